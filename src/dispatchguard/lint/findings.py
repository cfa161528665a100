"""What a check produces: findings and the report of a run."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """One diagnostic. ``line``/``col`` are 1-based (col counts characters, not bytes) and point at
    the start of the offending expression; ``end_col`` is 1-based and exclusive, like ruff's."""

    path: str
    line: int
    col: int
    code: str
    message: str
    end_line: int
    end_col: int
    suppressed: bool = False
    fix: Any = dataclasses.field(default=None, compare=False)
    #: in a notebook, the cell (numbered from 1 among all its cells) ``line`` and ``end_line`` are in
    cell: int | None = None


def finding_order(finding: Finding) -> tuple[Any, ...]:
    """The order findings are reported in: by path, cell, line, column, code, message."""
    return (finding.path, finding.cell or 0, finding.line, finding.col, finding.code, finding.message)


@dataclasses.dataclass
class CheckReport:
    """Findings of a run (sorted by path, line, col, code; suppressed ones included), how many
    files were to be checked, the work it took (files parsed and walked by the rules), and the
    notebooks under the paths that could not be checked, each with why (not valid JSON, not
    nbformat 4, unreadable; paths shown as findings' paths are)."""

    findings: list[Finding]
    files_checked: int
    files_parsed: int = 0
    files_walked: int = 0
    notebooks: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    #: how many of ``files_checked`` the gate skipped: they name no tool word (nor call ``._run``), so
    #: no rule can find anything there and they are not parsed
    files_without_tool_word: int = 0
    #: ``(path, line, function)`` of the dispatch points detected with no ``dispatchers`` configured
    dispatch_points: list[tuple[str, int, str]] = dataclasses.field(default_factory=list)

    def merged(self, other: CheckReport) -> CheckReport:
        """This report and another project's, as one run's."""
        return CheckReport(
            sorted([*self.findings, *other.findings], key=finding_order),
            self.files_checked + other.files_checked,
            self.files_parsed + other.files_parsed,
            self.files_walked + other.files_walked,
            sorted([*self.notebooks, *other.notebooks]),
            self.files_without_tool_word + other.files_without_tool_word,
            sorted([*self.dispatch_points, *other.dispatch_points]),
        )

    @property
    def active(self) -> list[Finding]:
        """The findings not suppressed by a ``noqa`` comment."""
        return [f for f in self.findings if not f.suppressed]
