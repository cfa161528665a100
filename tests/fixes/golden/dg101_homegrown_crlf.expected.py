"""Home-grown dispatcher already named dispatch_tool: the fix must not shadow it."""

import json

from crewai.tools import BaseTool

from desk.dispatcher import dispatch_tool


class KpiTool(BaseTool):
    name: str = "KPI Tracker"
    description: str = "Track a KPI."

    def _run(self, name: str, current: float) -> str:
        return json.dumps({"name": name, "current": current})


def track() -> str:
    tool = KpiTool()
    old = dispatch_tool("KPI Tracker", {"name": "signups", "current": 3})
    new = dispatch_tool("kpi", {"name": "signups",   "current": 3})
    return old + new
