"""The planner agent: gathers headlines and numbers for the morning brief."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from newsroom.dispatcher import call, load


@dataclass
class PlannerAgent:
    role: str = "Morning brief planner"
    goal: str = "Collect the day's headlines and the numbers behind them"
    feeds: list[str] = field(default_factory=lambda: ["sample_feed.xml"])

    def gather_headlines(self, per_feed: int = 3) -> list[dict[str, Any]]:
        headlines: list[dict[str, Any]] = []
        for feed in self.feeds:
            result = load(call("RSS Feed Reader", {"url": feed, "limit": per_feed}))
            if isinstance(result, list):
                headlines.extend(result)
        return headlines

    def compute_metrics(self, name: str, values: list[float], unit: str = "") -> dict[str, Any]:
        return load(call("Metrics Calculator", {"name": name, "values": values, "unit": unit}))

    def track_kpi(self, name: str, current: float, target: float) -> dict[str, Any]:
        return load(call("KPI Tracker", {"name": name, "current": current, "target": target}))

    def chart(self, title: str, labels: list[str], values: list[float]) -> dict[str, Any]:
        args = {"chart_type": "bar", "labels": labels, "values": values, "title": title}
        return load(call("Data Visualization", args))
