"""Structured reports: the skeleton the writer agent fills in."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from newsroom.models import Report, ReportSection
from newsroom.tools.base import NewsTool


class ReportInput(BaseModel):
    title: str
    sections: list[str] = Field(description="one 'Heading: body' string per section")


class StructuredReportTool(NewsTool):
    name: str = "Structured Report"
    description: str = "Build a report from 'Heading: body' sections."
    args_schema: type[BaseModel] = ReportInput

    def _run(self, title: str, sections: list[str]) -> str:
        if not sections:
            return "a report needs at least one section"  # expect: DG103
        parsed = [_section(text) for text in sections]
        words = sum(len(s.body.split()) for s in parsed)
        report = Report(title=title, sections=parsed, word_count=words)
        return "Report ready: " + json.dumps(report.model_dump(), ensure_ascii=False)  # expect: DG103


def _section(text: str) -> ReportSection:
    heading, _, body = text.partition(":")
    if not body:
        heading, body = "Notes", heading
    return ReportSection(heading=heading.strip(), body=body.strip())
