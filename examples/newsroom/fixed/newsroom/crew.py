"""The crew: the planner gathers material, the report tool assembles the brief."""

from __future__ import annotations

import json
from typing import Any

from newsroom.agents.planner import PlannerAgent
from newsroom.dispatcher import call, load


def kickoff(readers: list[float], subscriptions: float, target: float) -> dict[str, Any]:
    planner = PlannerAgent()
    headlines = planner.gather_headlines()
    readership = planner.compute_metrics("daily readers", readers, unit="readers")
    kpi = planner.track_kpi("paid subscriptions", subscriptions, target)
    chart = planner.chart("Daily readers", [f"day {i + 1}" for i in range(len(readers))], readers)
    sections = [f"Headlines: {'; '.join(h['title'] for h in headlines)}"]
    sections.append(f"Readers: latest {readership['latest']:g}, change {readership['change_pct']}%")
    sections.append(f"Subscriptions: {kpi['progress_pct']}% of target ({kpi['status']})")
    report = load(call("Structured Report", {"title": "Morning brief", "sections": sections}))
    return {"report": report, "chart": chart}


if __name__ == "__main__":
    print(json.dumps(kickoff([1200, 1350, 1280, 1500], 8700, 10000), indent=2))
