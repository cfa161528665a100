"""Chart and table specifications for the web edition (rendered by the front end)."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from newsroom.models import ChartSpec, Table
from newsroom.tools.base import NewsTool


class VisualizationInput(BaseModel):
    chart_type: str = Field(description="'line', 'bar' or 'table'")
    labels: list[str]
    values: list[float]
    title: str = ""


class DataVisualizationTool(NewsTool):
    name: str = "Data Visualization"
    description: str = "Turn labelled values into a line or bar chart spec, or a table."
    args_schema: type[BaseModel] = VisualizationInput

    def _run(self, chart_type: str, labels: list[str], values: list[float], title: str = "") -> str:
        if len(labels) != len(values):
            return json.dumps({"error": f"{len(labels)} labels for {len(values)} values"})
        if chart_type == "table":
            rows = [[label, f"{value:g}"] for label, value in zip(labels, values, strict=True)]
            table = Table(title=title, columns=["label", "value"], rows=rows)
            return table.model_dump_json()
        if chart_type not in ("line", "bar"):
            raise ValueError(f"unknown chart type {chart_type!r}: use line, bar or table")
        spec = ChartSpec(chart_type=chart_type, title=title, labels=labels, values=values)
        return spec.model_dump_json()
