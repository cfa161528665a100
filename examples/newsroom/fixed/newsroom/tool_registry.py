"""The one place where tools are instantiated and registered under the names the model sees.

Besides the newsroom's own tools, the ops desk uses two of dispatchguard's reference tools
(`system_stats`, `environment_check`): plain functions, registered the same way.
"""

from __future__ import annotations

from dispatchguard import ToolRegistry
from dispatchguard.tools import register_reference_tools
from newsroom.tools.metrics import KPITrackerTool, MetricsCalculatorTool
from newsroom.tools.reports import StructuredReportTool
from newsroom.tools.rss import RssFeedTool
from newsroom.tools.visualisation import DataVisualizationTool

TOOL_REGISTRY = ToolRegistry()

for _tool in (
    MetricsCalculatorTool(),
    KPITrackerTool(),
    DataVisualizationTool(),
    StructuredReportTool(),
    RssFeedTool(),
):
    TOOL_REGISTRY.register(_tool.name, _tool, description=_tool.description)

register_reference_tools(TOOL_REGISTRY, names=["system_stats", "environment_check"])
