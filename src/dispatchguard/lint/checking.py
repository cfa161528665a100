"""Checking one file against the project: the rules that apply to it, the walk, ``# noqa``, and
the :class:`~dispatchguard.lint.cache.FileResult` a front end reports and the cache keeps."""

from __future__ import annotations

import ast
from types import ModuleType
from typing import Any

from dispatchguard.lint.cache import CachedFinding, FileResult
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.index import summarise
from dispatchguard.lint.noqa import file_suppresses, file_suppression, line_suppresses
from dispatchguard.lint.parsing import char_col, decode_lines
from dispatchguard.lint.project import Project
from dispatchguard.lint.resolve import ModuleInfo
from dispatchguard.lint.rules import WALK_RULES, dg001_parse_error
from dispatchguard.lint.walker import Context, RawFinding


def rules_for(project: Project, relpath: str) -> list[ModuleType]:
    """The walk rules enabled for a file: selected, not ignored for its path, not exempt."""
    config = project.config
    ignored = config.ignored_for(relpath)
    facts = None
    out = []
    for code, rule in WALK_RULES.items():
        if not config.is_enabled(code) or any(code.startswith(prefix) for prefix in ignored):
            continue
        exempt = getattr(rule, "exempt", None)
        if exempt is not None:
            facts = facts or project.facts(relpath)
            if exempt(facts):
                continue
        out.append(rule)
    return out


def check_tree(
    project: Project, file: SourceFile, data: bytes, tree: ast.Module, *, apply_noqa: bool = True
) -> FileResult:
    """Walk one parsed file with every rule that applies to it."""
    info = project.infos.get(file.key)
    if info is None:
        summary = summarise(tree)
        project.known[file.key] = (summary, None)
        info = project.add(file.key, summary)
    rules = rules_for(project, file.relpath)
    ctx = Context(project.resolver, info, rules=rules, dispatchers=project.config.dispatchers, strict=project.config.strict)
    project.walked += 1
    try:
        raw = ctx.run(tree) if rules else []
    except RecursionError:
        raw = [(1, 0, 1, 0, dg001_parse_error.CODE, dg001_parse_error.MESSAGE.format(reason="too deeply nested"))]
    return FileResult(
        findings=finish(raw, data, apply_noqa),
        module=info.name,
        deps=sorted([q, k] for q, k in ctx.deps.items()),
        class_deps=sorted([q, k] for q, k in ctx.class_deps.items()),
    )


def skipped_result(project: Project, file: SourceFile) -> FileResult:
    """The result of a file whose walk the gate skipped (it names no tool word)."""
    info: ModuleInfo | None = project.infos.get(file.key)
    name = info.name if info is not None else project.module_names[file.key][0]
    return FileResult(findings=[], module=name, gated=True)


def finish(raw: list[RawFinding], data: bytes, apply_noqa: bool = True) -> list[CachedFinding]:
    """Sorted findings with 1-based character columns, marked suppressed by ``# noqa``."""
    if not raw:
        return []
    lines = decode_lines(data)
    directives = file_suppression(data) if apply_noqa else []
    out = []
    for line, col, end_line, end_col, code, message in sorted(set(raw)):
        suppressed = apply_noqa and (
            file_suppresses(directives, code) or (0 < line <= len(lines) and line_suppresses(lines[line - 1], code))
        )
        out.append(
            [line, char_col(lines, line, col), end_line, char_col(lines, end_line, end_col), code, message, suppressed]
        )
    return out


def error_result(project: Project, file: SourceFile, data: bytes | None, error: list[Any]) -> FileResult:
    """DG001 for a file that cannot be read or parsed (unless DG001 is off for it)."""
    config = project.config
    code = dg001_parse_error.CODE
    if not config.is_enabled(code) or any(code.startswith(p) for p in config.ignored_for(file.relpath)):
        return FileResult(findings=[])
    line, col, reason = error
    suppressed = bool(data) and file_suppresses(file_suppression(data), code)
    message = dg001_parse_error.MESSAGE.format(reason=reason)
    return FileResult(findings=[[line, col, line, col, code, message, suppressed]])
