"""Metrics and KPI tools for the business desk."""

from __future__ import annotations

from statistics import fmean

from pydantic import BaseModel, Field

from dispatchguard import ensure_json_str
from newsroom.models import KPI, Metric
from newsroom.tools.base import NewsTool


class MetricsInput(BaseModel):
    name: str = Field(description="what is measured, e.g. 'daily readers'")
    values: list[float] = Field(min_length=1, description="observations, oldest first")
    unit: str = Field(default="", description="unit of the values")


class MetricsCalculatorTool(NewsTool):
    name: str = "Metrics Calculator"
    description: str = "Summarise a series of observations: latest, mean, range and change."
    args_schema: type[BaseModel] = MetricsInput

    def _run(self, name: str, values: list[float], unit: str = "") -> str:
        first = values[0]
        change = None if first == 0 else round((values[-1] - first) / abs(first) * 100, 2)
        metric = Metric(
            name=name,
            unit=unit,
            latest=values[-1],
            mean=round(fmean(values), 4),
            minimum=min(values),
            maximum=max(values),
            change_pct=change,
        )
        return metric.model_dump_json()


class KPIInput(BaseModel):
    name: str
    current: float
    target: float = Field(gt=0)


class KPITrackerTool(NewsTool):
    name: str = "KPI Tracker"
    description: str = "Compare a KPI with its target and classify it as on track, at risk or off track."
    args_schema: type[BaseModel] = KPIInput

    def _run(self, name: str, current: float, target: float) -> str:
        progress = round(current / target * 100, 1)
        status = "on_track" if progress >= 95 else "at_risk" if progress >= 75 else "off_track"
        kpi = KPI(name=name, current=current, target=target, progress_pct=progress, status=status)
        return ensure_json_str(kpi)

