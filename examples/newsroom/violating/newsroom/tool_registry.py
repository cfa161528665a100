"""Tools by the names the model sees."""

from __future__ import annotations

from newsroom.tools.metrics import KPITrackerTool, MetricsCalculatorTool
from newsroom.tools.reports import StructuredReportTool
from newsroom.tools.rss import RssFeedTool
from newsroom.tools.visualisation import DataVisualizationTool

TOOL_REGISTRY = {
    "Metrics Calculator": MetricsCalculatorTool(),
    "KPI Tracker": KPITrackerTool(),
    "Data Visualization": DataVisualizationTool(),
    "Structured Report": StructuredReportTool(),
    "RSS Feed Reader": RssFeedTool(),
}
