"""The crew: the planner gathers material, the report tool assembles the brief."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from newsroom.agents.planner import PlannerAgent
from newsroom.dispatcher import dispatch_tool
from newsroom.tool_registry import TOOL_REGISTRY
from newsroom.tools.reports import StructuredReportTool

backup_reporter = StructuredReportTool()  # expect: DG102


def kickoff(readers: list[float], subscriptions: float, target: float) -> dict[str, Any]:
    planner = PlannerAgent()
    headlines = planner.gather_headlines()
    readership = planner.compute_metrics("daily readers", readers, unit="readers")
    kpi = planner.track_kpi("paid subscriptions", subscriptions, target)
    chart = planner.chart("Daily readers", [f"day {i + 1}" for i in range(len(readers))], readers)
    sections = [f"Headlines: {'; '.join(h['title'] for h in headlines)}"]
    sections.append(f"Readers: latest {readership['latest']:g}, change {readership['change_pct']}%")
    sections.append(f"Subscriptions: {kpi['progress']}% of target ({kpi['status']})")
    reporter = TOOL_REGISTRY.get("Structured Report")
    report = reporter.run(title="Morning brief", sections=sections)  # expect: DG101
    return {"report": report, "chart": chart, "edition": edition()}


def retry_report(tool: StructuredReportTool, sections: list[str]) -> str:
    return tool.run(title="Morning brief (retry)", sections=sections)  # expect: DG101


def stats_snapshot() -> Any:
    # Going through the project's dispatcher is fine, even though this one is home-grown.
    return dispatch_tool("KPI Tracker", {"name": "newsletter signups", "current": 310, "target": 400})


def edition() -> str:
    # Not a tool: subprocess.run is never flagged.
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "dev"


if __name__ == "__main__":
    print(json.dumps(kickoff([1200, 1350, 1280, 1500], 8700, 10000), indent=2, default=str))
