"""Data shapes the tools produce. Tools serialise them to JSON text before returning."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class Metric(BaseModel):
    name: str
    unit: str
    latest: float
    mean: float
    minimum: float
    maximum: float
    change_pct: float | None


class KPI(BaseModel):
    name: str
    current: float
    target: float
    progress_pct: float
    status: Literal["on_track", "at_risk", "off_track"]


class ChartSpec(BaseModel):
    chart_type: Literal["line", "bar"]
    title: str
    labels: list[str]
    values: list[float]


class Table(BaseModel):
    title: str
    columns: list[str]
    rows: list[list[str]]


class ReportSection(BaseModel):
    heading: str
    body: str


class Report(BaseModel):
    title: str
    sections: list[ReportSection]
    word_count: int


class FeedEntry(BaseModel):
    title: str
    link: str
    published: str
    summary: str
