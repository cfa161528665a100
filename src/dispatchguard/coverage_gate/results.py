"""Per-file and total results, and the ``Missing`` column's text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dispatchguard.coverage_gate.settings import GateOptions


@dataclass(frozen=True)
class FileResult:
    """One matched file's row in the gate's table: its statement and branch counts, what was missed.

    Built by :func:`~dispatchguard.coverage_gate.measure.measure`; immutable. ``branch`` says
    whether branches count in :attr:`percent`; ``measured`` is False for a file coverage never saw
    imported.
    """

    path: str  # as displayed (relative to base_dir when below it)
    statements: int
    missing_lines: tuple[int, ...]
    branches: int
    missing_branches: tuple[tuple[int, int], ...]  # (from, to); to < 0 means "exit"
    partial_branches: int
    measured: bool  # False: the file matched on disk but coverage never saw it imported
    branch: bool  # whether branches count in the percentage

    @property
    def covered(self) -> int:
        """Statements run, plus branches taken when branches count."""
        return (
            self.statements
            - len(self.missing_lines)
            + (self.branches - len(self.missing_branches) if self.branch else 0)
        )

    @property
    def total(self) -> int:
        """Statements, plus branches when they count: what :attr:`percent` divides by."""
        return self.statements + (self.branches if self.branch else 0)

    @property
    def percent(self) -> float:
        """Coverage in percent (0 to 100); 100.0 for a file with nothing to cover."""
        return 100.0 if self.total == 0 else 100.0 * self.covered / self.total

    def missing_text(self) -> str:
        """The ``Missing`` column: missed lines as ranges, then missed branches when they count."""
        return format_missing(self.missing_lines, self.missing_branches if self.branch else ())


@dataclass
class GateResult:
    """One gate run's outcome: a row per matched file, the options judging them, and the verdict.

    Built by :func:`~dispatchguard.coverage_gate.measure.measure`, printed by
    :func:`~dispatchguard.coverage_gate.report.render`; ``unmatched_patterns`` are the ``include``
    patterns that matched no file (printed as warnings, they do not fail the gate).
    """

    files: list[FileResult]
    options: GateOptions
    unmatched_patterns: list[str] = field(default_factory=list)

    @property
    def total_percent(self) -> float:
        """Coverage of all files pooled (not a mean of percents); 100.0 with nothing to cover."""
        total = sum(f.total for f in self.files)
        return 100.0 if total == 0 else 100.0 * sum(f.covered for f in self.files) / total

    @property
    def failing_files(self) -> list[FileResult]:
        """The files below ``fail_under``, listed whether or not the gate is per file."""
        return [f for f in self.files if f.percent < self.options.fail_under]

    @property
    def passed(self) -> bool:
        """The verdict: every file reaches ``fail_under`` (``per_file``), else the pooled total."""
        if self.options.per_file:
            return not self.failing_files
        return self.total_percent >= self.options.fail_under


def format_missing(lines: Sequence[int], branches: Sequence[tuple[int, int]] = ()) -> str:
    """``3-5, 9, 12->14, 20->exit`` like ``coverage report -m`` (a partial branch from or to a
    missed line is not repeated)."""
    items: list[tuple[int, str]] = []
    ordered = sorted(set(lines))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        start, end = ordered[i], ordered[j]
        items.append((start, str(start) if start == end else f"{start}-{end}"))
        i = j + 1
    missing = set(ordered)
    for src, dst in sorted(branches):
        if src in missing or dst in missing:  # already visible as a missed line
            continue
        items.append((src, f"{src}->{'exit' if dst < 0 else dst}"))
    items.sort(key=lambda item: item[0])
    return ", ".join(text for _, text in items)
