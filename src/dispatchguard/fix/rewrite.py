"""Fixing one file's source text with libcst: run the fixers, keep the fixes that apply cleanly,
add the runtime imports they use."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from dispatchguard.fix import dg101, dg103
from dispatchguard.fix.base import FileContext, Fix, NoFix
from dispatchguard.fix.imports import plan_refs
from dispatchguard.fix.names import ProjectNames
from dispatchguard.fix.report import AppliedFix, SkippedFix
from dispatchguard.fix.splice import apply_fixes, line_offsets, node_span, only_imports_changed

FIXERS: dict[str, Callable[[Any, FileContext], Fix | NoFix]] = {
    dg101.CODE: dg101.fix,
    dg103.CODE: dg103.fix,
}
#: Codes that have no automatic fix, and what the user should do instead.
NO_FIX_REASONS = {
    "DG102": "no automatic fix: instantiate the tool in a tool module (tool-modules) and register it; "
    "look it up in the registry or go through the dispatcher elsewhere",
    "DG001": "no automatic fix: the file cannot be read or parsed",
}


def fix_source(
    source: bytes,
    findings: Iterable[Any],
    *,
    path: str = "<string>",
    unsafe: bool = False,
    project: ProjectNames | None = None,
    project_factory: Callable[[], ProjectNames] | None = None,
) -> tuple[bytes, list[AppliedFix], list[SkippedFix]]:
    """Fix one file's source for the given findings. Returns the new bytes (the same bytes when
    nothing applied), the applied fixes and the skipped ones with their reasons."""
    applied: list[AppliedFix] = []
    skipped: list[SkippedFix] = []
    findings = list(findings)

    def skip(finding: Any, reason: str, kind: str) -> None:
        skipped.append(SkippedFix(path, finding.line, finding.col, finding.code, reason, kind))

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        for finding in findings:
            skip(finding, f"libcst cannot parse the file: {str(exc).splitlines()[0]}", "dropped")
        return source, applied, skipped
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    refs, needed = plan_refs(module)
    if project is None and any(f.code == dg101.CODE for f in findings) and project_factory is not None:
        project = project_factory()
    ctx = FileContext(
        path=path,
        module=module,
        positions=wrapper.resolve(PositionProvider),
        parents=wrapper.resolve(ParentNodeProvider),
        project=project or ProjectNames(),
        refs=refs,
    )

    candidates: list[tuple[Any, Fix]] = []
    for finding in findings:
        fixer = FIXERS.get(finding.code)
        if fixer is None:
            skip(finding, NO_FIX_REASONS.get(finding.code, "no automatic fix for this rule"), "unfixable")
            continue
        try:
            outcome = fixer(finding, ctx)
        except Exception as exc:
            skip(finding, f"fix dropped: internal error in the {finding.code} fixer ({type(exc).__name__}: {exc})", "dropped")
            continue
        if isinstance(outcome, NoFix):
            skip(finding, outcome.reason, "unfixable")
        elif not outcome.safe and not unsafe:
            skip(finding, f"unsafe fix available ({outcome.description}); use --unsafe-fixes", "unsafe")
        else:
            candidates.append((finding, outcome))

    # One fix per node, and no fix inside another fix's node this pass (the next pass gets it).
    chosen: list[tuple[Any, Fix]] = []
    spans: list[tuple[int, int]] = []
    starts = line_offsets(module.code)
    for finding, fix in candidates:
        if fix.target not in ctx.positions:
            skip(finding, "fix dropped: it targets a node that is not in the file", "dropped")
            continue
        span = node_span(ctx.positions[fix.target], starts)
        if any(s < span[1] and span[0] < e for s, e in spans):
            continue  # overlapping: retried on the next pass
        result, reason = apply_fixes(module, [fix])
        if result is None:
            skip(finding, f"fix dropped: {reason}", "dropped")
            continue
        chosen.append((finding, fix))
        spans.append(span)

    if not chosen:
        return source, applied, skipped
    new_module, reason = apply_fixes(module, [fix for _, fix in chosen])
    if new_module is None:  # each fix was fine alone: should not happen, but never write a broken file
        for finding, _ in chosen:
            skip(finding, f"fix dropped: {reason}", "dropped")
        return source, applied, skipped

    used = {name for _, fix in chosen for name in fix.names}
    imports = [(needed[name][0], name, needed[name][1]) for name in sorted(used) if name in needed]
    if imports:
        context = CodemodContext()
        for source_module, name, alias in imports:
            AddImportsVisitor.add_needed_import(context, source_module, name, alias)
        with_imports = new_module.visit(AddImportsVisitor(context))
        if not only_imports_changed(new_module.code, with_imports.code):
            for finding, _ in chosen:
                skip(finding, "fix dropped: adding the imports would change other code", "dropped")
            return source, applied, skipped
        new_module = with_imports

    try:
        cst.parse_module(new_module.code)
    except cst.ParserSyntaxError as exc:  # pragma: no cover - guarded by apply_fixes and the import check
        for finding, _ in chosen:
            skip(finding, f"fix dropped: the result would not parse ({exc})", "dropped")
        return source, applied, skipped

    for finding, fix in chosen:
        applied.append(AppliedFix(path, finding.line, finding.col, finding.code, fix.description, fix.safe))
    return new_module.bytes, applied, skipped
