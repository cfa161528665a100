"""What a fix run did: applied and skipped fixes, the run's :class:`FixReport`, and the diff."""

from __future__ import annotations

import difflib
import tokenize
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any


@dataclass(frozen=True)
class AppliedFix:
    """A fix that was applied: where its finding was, its code, and what the fix did.

    ``description`` includes, for an unsafe fix, what makes it unsafe; ``cell`` is the notebook cell
    ``line`` counts in (None in a Python file). Collected in :attr:`FixReport.applied`.
    """

    path: str
    line: int
    col: int
    code: str
    description: str
    safe: bool
    #: for an unsafe fix, what makes it unsafe (callers and tests that read the raw return)
    unsafe_because: tuple[str, ...] = ()
    cell: int | None = None  # in a notebook, the cell ``line`` is in


@dataclass(frozen=True)
class SkippedFix:
    """A finding that was not fixed, and why (no fix, unsafe without --unsafe-fixes, dropped)."""

    path: str
    line: int
    col: int
    code: str
    reason: str
    kind: str  # "unfixable", "unsafe", "dropped"
    cell: int | None = None  # in a notebook, the cell ``line`` is in


@dataclass
class FixReport:
    """What one :func:`~dispatchguard.fix.apply_fixes` run did, filled in over its passes.

    ``remaining`` are the unsuppressed findings left after fixing; ``diff`` is the unified diff of
    the changes, computed only with ``diff=True`` (the files are then left untouched).
    """

    applied: list[AppliedFix] = field(default_factory=list)
    skipped: list[SkippedFix] = field(default_factory=list)
    changed_files: list[str] = field(default_factory=list)
    remaining: list[Any] = field(default_factory=list)  # unsuppressed Findings left after fixing
    diff: str = ""
    files_checked: int = 0

    @property
    def exit_code(self) -> int:
        """pre-commit semantics: 0 nothing to fix and nothing left, 1 files changed or findings remain."""
        return 1 if self.changed_files or self.remaining else 0

    @property
    def unsafe_available(self) -> int:
        """Return how many findings have a fix that only --unsafe-fixes would apply."""
        return sum(1 for s in self.skipped if s.kind == "unsafe")


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """Return a unified diff (``a/PATH``, ``b/PATH``) of the file's text, decoded per its coding
    cookie; ``''`` when nothing changed. A last line without a newline gets one."""
    def lines(data: bytes) -> list[str]:
        encoding = tokenize.detect_encoding(BytesIO(data).readline)[0]
        text = data.decode(encoding, "replace")
        return text.splitlines(keepends=True)

    out = difflib.unified_diff(lines(before), lines(after), fromfile=f"a/{path}", tofile=f"b/{path}")
    text = "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in out)
    return text
