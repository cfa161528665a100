"""Fixing one file: run the fixers on its findings, keep the text edits that do not overlap, add
the imports they need, remove the imports they leave unused, and keep the result only if it
still parses. :func:`plan_file` and :func:`file_edits` are the steps :func:`fix_file` (the fix
command) and :func:`dispatchguard.fix.data.with_fixes` (fix data of each finding) share."""

from __future__ import annotations

import ast
import bisect
import importlib
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

from dispatchguard.fix.base import Edit, FileContext, Fix, NoFix
from dispatchguard.fix.imports import IsortSettings, import_edits, unused_import_edits
from dispatchguard.fix.report import AppliedFix, SkippedFix
from dispatchguard.lint.rules import RULES
from dispatchguard.lint.tool_facts import ToolFacts

#: Each fixable rule's fixer (the ``fix`` of the module its rule names).
FIXERS: dict[str, Callable[[Any, FileContext], Fix | NoFix]] = {
    code: importlib.import_module(rule.fixer).fix for code, rule in RULES.items() if rule.fixer
}


def no_fix_reason(code: str) -> str:
    """Why a finding of ``code`` has no automatic fix, and what the user should do instead."""
    rule = RULES.get(code)
    return (rule and rule.no_fix_reason) or "no automatic fix for this rule"


def splice(text: str, edits: Iterable[Edit]) -> str:
    """Return ``text`` with the edits applied (an edit given twice is made once). The edits must not
    overlap: the planner drops clashing ones before calling this."""
    out, cut = [], 0
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        out.append(text[cut : edit.start])
        out.append(edit.text)
        cut = edit.end
    out.append(text[cut:])
    return "".join(out)


def _clashes(edit: Edit, other: Edit) -> bool:
    """Whether two different edits replace common characters, or one inserts strictly inside the other."""
    if edit == other:
        return False  # two fixes may need the same edit (the function's annotation): it is made once
    overlap = edit.start < other.end and other.start < edit.end
    inside = other.start < edit.start < other.end or edit.start < other.start < edit.end
    same_point = edit.start == edit.end == other.start == other.end
    return overlap or inside or same_point


class _TakenEdits:
    """The edits of the fixes chosen so far, sorted by start. The edits a new one may clash with
    start at most at its end and reach its start: found by halving, then walking back only as far
    as the longest edit can reach (a file of 800 fixes needs no 800 x 800 comparisons)."""

    def __init__(self) -> None:
        self.edits: list[Edit] = []
        self.longest = 0

    def clash(self, edits: Iterable[Edit]) -> bool:
        for edit in edits:
            index = bisect.bisect_right(self.edits, edit.end, key=_edit_start) - 1
            while index >= 0 and self.edits[index].start + self.longest >= edit.start:
                if _clashes(edit, self.edits[index]):
                    return True
                index -= 1
        return False

    def add(self, edits: Iterable[Edit]) -> None:
        for edit in edits:
            bisect.insort(self.edits, edit, key=_edit_position)
            self.longest = max(self.longest, edit.end - edit.start)


def _edit_start(edit: Edit) -> int:
    return edit.start


def _edit_position(edit: Edit) -> tuple[int, int]:
    return edit.start, edit.end


def unsafe_note(fix: Fix) -> str:
    """The fix's description with what makes it unsafe, for the report."""
    if fix.safe or not fix.unsafe_because:
        return fix.description
    return f"{fix.description}; unsafe: {'; '.join(fix.unsafe_because)}"


@dataclass
class Plan:
    """The fixes chosen for one file (edits that do not overlap) and the findings skipped."""

    ctx: FileContext
    encoding: str
    chosen: list[tuple[Any, Fix]] = field(default_factory=list)
    skipped: list[SkippedFix] = field(default_factory=list)


def _parse(data: bytes) -> tuple[str, str, ast.Module] | str:
    try:
        encoding = tokenize.detect_encoding(BytesIO(data).readline)[0]
        return encoding, data.decode(encoding), ast.parse(data)
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        return f"the file cannot be parsed: {exc}"


def plan_file(
    key: str,
    display: str,
    data: bytes,
    findings: list[Any],
    facts: ToolFacts,
    *,
    unsafe: bool,
    context: Sequence[Any] | None = None,
) -> Plan | list[SkippedFix]:
    """Run each finding's fixer; keep the fixes allowed (safe, or ``unsafe``) whose edits do not
    overlap an earlier one (those wait for the next pass). ``context``: the file's findings this
    run fixes (default ``findings``). The skipped findings when the file cannot be parsed."""

    def skip(finding: Any, reason: str, kind: str) -> SkippedFix:
        return SkippedFix(display, finding.line, finding.col, finding.code, reason, kind)

    parsed = _parse(data)
    if isinstance(parsed, str):
        return [skip(finding, parsed, "dropped") for finding in findings]
    encoding, text, tree = parsed
    facts.remember(key, tree)
    plan = Plan(FileContext(key, text, tree, facts, findings if context is None else context), encoding)
    taken = _TakenEdits()
    for finding in findings:
        fixer = FIXERS.get(finding.code)
        outcome = fixer(finding, plan.ctx) if fixer is not None else NoFix(no_fix_reason(finding.code))
        if isinstance(outcome, NoFix):
            plan.skipped.append(skip(finding, outcome.reason, "unfixable"))
        elif not outcome.safe and not unsafe:
            reason = f"unsafe fix available ({unsafe_note(outcome)}); use --unsafe-fixes"
            plan.skipped.append(skip(finding, reason, "unsafe"))
        elif not taken.clash(outcome.edits):
            plan.chosen.append((finding, outcome))
            taken.add(outcome.edits)
    return plan


def file_edits(plan: Plan, settings: IsortSettings) -> list[Edit] | str:
    """All the edits of the chosen fixes: theirs, the imports they need, and the removal of the
    imports they leave unused; or why the imports cannot be added."""
    ctx = plan.ctx
    edits = list(dict.fromkeys(edit for _, fix in plan.chosen for edit in fix.edits))
    needed = list(dict.fromkeys(imp for _, fix in plan.chosen for imp in fix.imports))
    added: list[Edit] | str = []
    if needed:
        project_modules = {name.split(".", 1)[0] for name in ctx.facts.project.owners}
        added = import_edits(ctx, needed, settings, project_modules)
    if isinstance(added, str):
        return added
    removed = unused_import_edits(ctx, [*edits, *added], needed)
    return [*edits, *added, *removed]


def fix_file(
    key: str,
    display: str,
    data: bytes,
    findings: list[Any],
    facts: ToolFacts,
    settings: IsortSettings,
    *,
    unsafe: bool,
) -> tuple[bytes, list[AppliedFix], list[SkippedFix]]:
    """Fix one file's findings. Returns the new bytes (the same bytes when nothing applied), the
    applied fixes and the skipped ones with their reasons."""
    plan = plan_file(key, display, data, findings, facts, unsafe=unsafe)
    if isinstance(plan, list):
        return data, [], plan
    if not plan.chosen:
        return data, [], plan.skipped

    def drop(reason: str) -> tuple[bytes, list[AppliedFix], list[SkippedFix]]:
        dropped = [
            SkippedFix(display, f.line, f.col, f.code, f"fix dropped: {reason}", "dropped") for f, _ in plan.chosen
        ]
        return data, [], [*plan.skipped, *dropped]

    edits = file_edits(plan, settings)
    if isinstance(edits, str):
        return drop(edits)
    try:
        new_data = splice(plan.ctx.text, edits).encode(plan.encoding)
        ast.parse(new_data)
    except (SyntaxError, UnicodeEncodeError, ValueError) as exc:
        return drop(f"the result would not parse ({exc})")
    applied = [
        AppliedFix(display, f.line, f.col, f.code, unsafe_note(fix), fix.safe, fix.unsafe_because)
        for f, fix in plan.chosen
    ]
    return new_data, applied, plan.skipped
