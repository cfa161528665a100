"""The planner agent: gathers headlines and numbers for the morning brief."""

from __future__ import annotations

import json
from typing import Any

from newsroom.tool_registry import TOOL_REGISTRY
from newsroom.tools import metrics as metric_tools
from newsroom.tools.rss import RssFeedTool
from newsroom.tools.visualisation import DataVisualizationTool as ChartTool


class PlannerAgent:
    role = "Morning brief planner"
    goal = "Collect the day's headlines and the numbers behind them"

    def __init__(self, feeds: list[str] | None = None) -> None:
        self.feeds = feeds or ["sample_feed.xml"]
        self.rss = RssFeedTool()  # expect: DG102
        self.kpis = metric_tools.KPITrackerTool()  # expect: DG102

    def gather_headlines(self, per_feed: int = 3) -> list[dict[str, Any]]:
        headlines: list[dict[str, Any]] = []
        for feed in self.feeds:
            headlines.extend(self.rss.run(url=feed, limit=per_feed) or [])  # expect: DG101
        return headlines

    def compute_metrics(self, name: str, values: list[float], unit: str = "") -> dict[str, Any]:
        calculator = TOOL_REGISTRY["Metrics Calculator"]
        return calculator._run(name=name, values=values, unit=unit)  # expect: DG101

    def track_kpi(self, name: str, current: float, target: float) -> dict[str, Any]:
        return self.kpis.run(name=name, current=current, target=target)  # expect: DG101

    def chart(self, title: str, labels: list[str], values: list[float]) -> dict[str, Any]:
        chart_tool = ChartTool()  # expect: DG102
        spec = chart_tool.run(chart_type="bar", labels=labels, values=values, title=title)  # expect: DG101
        return json.loads(spec.model_dump_json())
