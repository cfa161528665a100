"""Desk tools: metrics and KPIs (CrewAI)."""

from __future__ import annotations

import json

from crewai.tools import BaseTool
from dispatchguard import ensure_json_str
from pydantic import BaseModel


class Metric(BaseModel):
    name: str
    latest: float


class MetricsTool(BaseTool):
    name: str = "Metrics"
    description: str = "Summarise observations."

    @staticmethod
    def _fmt(x: float) -> str:
        return f"{x:.2f}"  # not a tool method: never touched

    def _run(self, name: str, values: list[float]) -> str:
        def helper(v):
            # nested function: its returns are not the tool's
            return {"v": v}

        if not values:
            return ensure_json_str({
                "error": "no values",  # the model reads this
                "kind": "invalid_args",
            })
        metric = Metric(name=name, latest=helper(values[-1])["v"])
        return json.dumps(metric.model_dump(
            mode="json", exclude_none=True,  # keep the payload small
        ), ensure_ascii=False)


class KpiTool(BaseTool):
    name: str = "KPI"
    description: str = "Track a KPI."

    def _run(self, current: float, target: float) -> str:
        if target == 0:
            return ensure_json_str(None)  # a forgotten value? the fix makes it "null"
        ratio = current / target
        return ensure_json_str([ratio, round(ratio * 100, 1)])

    async def _arun(self, current: float, target: float) -> str:
        return ensure_json_str({"ratio": current / target})  # async tools too


class ReportTool(BaseTool):
    name: str = "Report"
    description: str = "Assemble a report."

    def _run(self, title: str) -> str:
        return ensure_json_str("Report ready: " + json.dumps({"title": title}))
