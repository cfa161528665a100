"""Fix data for the output formats: each finding with ruff's fix object (``applicability``,
``message``, ``edits`` with 1-based locations, the end exclusive), from the same fixers and the
same edit planning as ``dispatchguard fix`` and the language server's code actions
(:func:`~dispatchguard.fix.rewrite.plan_file`, :func:`~dispatchguard.fix.rewrite.file_edits`).

Each finding's fix is computed alone (with the file's other findings as context: a return that
delegates to another fixed one gets no fix here either), so its edits apply to the file as it is,
the imports it needs and removes included; a finding without a fix keeps ``fix=None``.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dispatchguard.fix.base import Edit, FileContext
from dispatchguard.fix.imports import IsortSettings
from dispatchguard.fix.rewrite import FIXERS, Plan, file_edits, plan_file
from dispatchguard.lint.notebook import NotebookError, is_notebook, load_notebook
from dispatchguard.lint.tool_facts import ToolFacts


@dataclasses.dataclass(frozen=True)
class FixEdit:
    """Replace the text from (``line``, ``col``) to (``end_line``, ``end_col``) by ``content``
    (1-based, columns in characters, the end exclusive)."""

    content: str
    line: int
    col: int
    end_line: int
    end_col: int


@dataclasses.dataclass(frozen=True)
class FixData:
    """ruff's fix object: ``applicability`` is ``"safe"`` or ``"unsafe"``."""

    applicability: str
    message: str
    edits: tuple[FixEdit, ...]


def with_fixes(findings: Sequence[Any], config: Any) -> list[Any]:
    """``findings`` (from :func:`dispatchguard.lint.check_paths` with ``config``) in the same
    order, each with ``fix`` set to its :class:`FixData` when its rule's fixer has a fix for it.
    Suppressed findings and files that cannot be read or parsed keep ``fix=None``."""
    fixable = [f for f in findings if f.code in FIXERS and not f.suppressed]
    if not fixable:
        return list(findings)
    from dispatchguard.lint.engine import project_files

    # the findings' files too: a file named explicitly is checked even when excluded (or outside
    # the root), and its fixes are planned with it among the project's files
    paths = [str(config.root), *sorted({f.path for f in fixable})]
    facts = ToolFacts(config, project_files(paths, config)[0])
    settings = IsortSettings.from_pyproject(Path(config.root))
    by_file: dict[str, list[Any]] = defaultdict(list)
    for finding in fixable:
        by_file[finding.path].append(finding)
    fixes: dict[int, FixData] = {}
    for display, file_findings in by_file.items():
        fixes.update(_file_fixes(display, file_findings, facts, settings))
    return [dataclasses.replace(f, fix=fixes[id(f)]) if id(f) in fixes else f for f in findings]


def _file_fixes(display: str, findings: list[Any], facts: ToolFacts, settings: IsortSettings) -> dict[int, FixData]:
    path = Path(display)
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    key = path.absolute().as_posix()
    notebook = None
    if is_notebook(path):  # planned on the code cells' virtual source, the edits located in cells
        try:
            notebook = load_notebook(data)
        except NotebookError:
            return {}
        data = notebook.source.encode("utf-8")
        context = [notebook.in_cells(f) for f in findings]
    else:
        context = findings
    out = {}
    for finding, planned in zip(findings, context, strict=True):
        plan = plan_file(key, display, data, [planned], facts, unsafe=True, context=context)
        if not isinstance(plan, Plan) or not plan.chosen:
            continue
        edits = file_edits(plan, settings)
        if isinstance(edits, str):
            continue
        fix = plan.chosen[0][1]
        located = tuple(_located(plan.ctx, edit) for edit in sorted(edits, key=lambda e: (e.start, e.end)))
        if notebook is not None:
            located = _in_cell(notebook, finding.cell, located)
            if located is None:  # an edit in another cell: ruff's fix object cannot say so
                continue
        out[id(finding)] = FixData("safe" if fix.safe else "unsafe", fix.description, located)
    return out


def _in_cell(notebook: Any, cell: int, edits: tuple[FixEdit, ...]) -> tuple[FixEdit, ...] | None:
    located = []
    for edit in edits:
        (start_cell, line), (end_cell, end_line) = notebook.position(edit.line), notebook.position(edit.end_line)
        if start_cell != cell or end_cell != cell:
            return None
        located.append(dataclasses.replace(edit, line=line, end_line=end_line))
    return tuple(located)


def _position(ctx: FileContext, offset: int) -> tuple[int, int]:
    """1-based (line, character column) of a character offset."""
    line = bisect.bisect_right(ctx.starts, offset) - 1
    return line, offset - ctx.starts[line] + 1


def _located(ctx: FileContext, edit: Edit) -> FixEdit:
    line, col = _position(ctx, edit.start)
    end_line, end_col = _position(ctx, edit.end)
    return FixEdit(edit.text, line, col, end_line, end_col)
