"""Fixing one file: run the fixers on its findings, splice the text edits that do not overlap, add
the imports they need, and keep the result only if it still parses."""

from __future__ import annotations

import ast
import importlib
import tokenize
from collections.abc import Callable, Iterable
from io import BytesIO
from typing import Any

from dispatchguard.fix.base import Edit, FileContext, Fix, Import, NoFix
from dispatchguard.fix.imports import IsortSettings, import_edits
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
    out, cut = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(text[cut : edit.start])
        out.append(edit.text)
        cut = edit.end
    out.append(text[cut:])
    return "".join(out)


def _overlaps(edits: Iterable[Edit], taken: list[tuple[int, int]]) -> bool:
    """Whether an edit replaces characters of, or inserts strictly inside, a span already taken."""
    return any(
        (edit.start < end and start < edit.end) or start < edit.start < end for edit in edits for start, end in taken
    )


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
    applied: list[AppliedFix] = []
    skipped: list[SkippedFix] = []

    def skip(finding: Any, reason: str, kind: str) -> None:
        skipped.append(SkippedFix(display, finding.line, finding.col, finding.code, reason, kind))

    try:
        encoding = tokenize.detect_encoding(BytesIO(data).readline)[0]
        text = data.decode(encoding)
        tree = ast.parse(data)
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        for finding in findings:
            skip(finding, f"the file cannot be parsed: {exc}", "dropped")
        return data, applied, skipped
    ctx = FileContext(key, text, tree, facts)
    chosen: list[tuple[Any, Fix]] = []
    taken: list[tuple[int, int]] = []
    for finding in findings:
        fixer = FIXERS.get(finding.code)
        if fixer is None:
            skip(finding, no_fix_reason(finding.code), "unfixable")
            continue
        outcome = fixer(finding, ctx)
        if isinstance(outcome, NoFix):
            skip(finding, outcome.reason, "unfixable")
        elif not outcome.safe and not unsafe:
            skip(finding, f"unsafe fix available ({outcome.description}); use --unsafe-fixes", "unsafe")
        elif _overlaps(outcome.edits, taken):
            continue  # inside another fix: the next pass gets it
        else:
            chosen.append((finding, outcome))
            taken.append((min(e.start for e in outcome.edits), max(e.end for e in outcome.edits)))
    if not chosen:
        return data, applied, skipped
    edits = [edit for _, fix in chosen for edit in fix.edits]
    needed = list(dict.fromkeys(imp for _, fix in chosen for imp in fix.imports))
    added = _imports(ctx, needed, settings)
    if isinstance(added, str):
        for finding, _ in chosen:
            skip(finding, f"fix dropped: {added}", "dropped")
        return data, [], skipped
    new_text = splice(text, [*edits, *added])
    try:
        new_data = new_text.encode(encoding)
        ast.parse(new_data)
    except (SyntaxError, UnicodeEncodeError, ValueError) as exc:
        for finding, _ in chosen:
            skip(finding, f"fix dropped: the result would not parse ({exc})", "dropped")
        return data, [], skipped
    for finding, fix in chosen:
        applied.append(AppliedFix(display, finding.line, finding.col, finding.code, fix.description, fix.safe))
    return new_data, applied, skipped


def _imports(ctx: FileContext, needed: list[Import], settings: IsortSettings) -> list[Edit] | str:
    if not needed:
        return []
    project_modules = {name.split(".", 1)[0] for name in ctx.facts.project.owners}
    return import_edits(ctx, needed, settings, project_modules)
