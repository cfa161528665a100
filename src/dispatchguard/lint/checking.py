"""Checking one file against the project: the rules that apply to it, the walk, ``# noqa``, and
the :class:`~dispatchguard.lint.cache.FileResult` a front end reports and the cache keeps."""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from typing import Any

from dispatchguard.lint.cache import CachedFinding, FileResult
from dispatchguard.lint.discovery import SourceFile
from dispatchguard.lint.index import summarise
from dispatchguard.lint.modules import ModuleInfo
from dispatchguard.lint.noqa import file_suppresses, file_suppression, parse_line
from dispatchguard.lint.parsing import char_col, decode_lines
from dispatchguard.lint.project import Project
from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules import RULES, WALK_RULES, dg002_unused_noqa
from dispatchguard.lint.rules.dg001_parse_error import RULE as UNPARSABLE
from dispatchguard.lint.rules.dg002_unused_noqa import RULE as UNUSED_NOQA
from dispatchguard.lint.walker import Context, RawFinding


def rules_for(project: Project, relpath: str) -> list[Rule]:
    """The walk rules enabled for a file: selected, not ignored for its path, not exempt."""
    config = project.config
    ignored = config.ignored_for(relpath)
    facts = functools.cache(lambda: project.facts(relpath))
    return [
        rule
        for code, rule in WALK_RULES.items()
        if config.is_enabled(code, preview=rule.preview)
        and not any(code.startswith(prefix) for prefix in ignored)
        and rule.applies_to(facts)
    ]


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
    config = project.config
    ctx = Context(project.resolver, info, rules=rules, dispatchers=config.dispatchers, strict=config.strict)
    project.walked += 1
    try:
        raw = ctx.run(tree) if rules else []
    except RecursionError:
        raw = [(1, 0, 1, 0, UNPARSABLE.code, UNPARSABLE.message.format(reason="too deeply nested"))]
    return FileResult(
        findings=finish(raw, data, apply_noqa, judge_noqa=judges_noqa(project, file.relpath)),
        module=info.name,
        deps=sorted([q, k] for q, k in ctx.deps.items()),
        class_deps=sorted([q, k] for q, k in ctx.class_deps.items()),
        return_deps=sorted([q, v] for q, v in ctx.return_deps.items()),
        dispatch_points=sorted([line, fn] for line, fn in ctx.dispatch_points),
    )


def skipped_result(project: Project, file: SourceFile, data: bytes | None = None) -> FileResult:
    """The result of a file whose walk the gate skipped (it names no tool word): no finding but
    DG002 for its ``# noqa: DGxxx`` comments, which have nothing to suppress (``data``: the
    file's bytes, when they may hold such a comment)."""
    info: ModuleInfo | None = project.infos.get(file.key)
    name = info.name if info is not None else project.module_names[file.key][0]
    findings = finish([], data, judge_noqa=judges_noqa(project, file.relpath)) if data else []
    return FileResult(findings=findings, module=name, gated=True)


def may_name_noqa_codes(data: bytes) -> bool:
    """Whether a file's bytes may hold a ``# noqa`` naming a DG code: DG002's cheap gate, before
    any decoding. Two substring searches (``oqa`` and ``OQA`` after an ``n``/``N``: 4x faster than a
    case-insensitive regex over the file), so ``noqa``, ``Noqa``, ``NOQA`` and ``nOQA`` are judged;
    other mixed cases (``NoQA``) silence findings but are not judged."""
    for tail in (b"oqa", b"OQA"):
        at = data.find(tail)
        while at >= 0:
            if at and data[at - 1] in b"nN":
                end = data.find(b"\n", at)
                if b"dg" in data[at + 3 : end if end >= 0 else len(data)].lower():
                    return True
            at = data.find(tail, at + 3)
    return False


def judges_noqa(project: Project, relpath: str) -> frozenset[str] | None:
    """The codes enabled for a file, whose ``# noqa`` mentions DG002 judges; None when DG002 is off
    for it. A code that is not enabled is not judged: its ``# noqa`` still matters the day it is."""
    config = project.config
    ignored = config.ignored_for(relpath)
    enabled = frozenset(
        code
        for code, rule in RULES.items()
        if config.is_enabled(code, preview=rule.preview) and not any(code.startswith(p) for p in ignored)
    )
    return enabled if UNUSED_NOQA.code in enabled else None


def finish(
    raw: list[RawFinding], data: bytes, apply_noqa: bool = True, *, judge_noqa: frozenset[str] | None = None
) -> list[CachedFinding]:
    """Sorted findings with 1-based character columns, marked suppressed by ``# noqa``; with
    ``judge_noqa`` (the codes enabled for the file), DG002 for each line-level directive whose DG
    codes suppress none of them."""
    if judge_noqa is not None and not may_name_noqa_codes(data):
        judge_noqa = None
    if not raw and judge_noqa is None:
        return []
    lines = decode_lines(data)
    directives = file_suppression(data) if apply_noqa else []
    out = []
    on_line: dict[int, list[str]] = {}  # line -> codes of its findings
    for line, col, end_line, end_col, code, message in sorted(set(raw)):
        directive = parse_line(lines[line - 1]) if 0 < line <= len(lines) else None
        on_line.setdefault(line, []).append(code)
        suppressed = apply_noqa and (
            file_suppresses(directives, code) or (directive is not None and directive.suppresses(code))
        )
        out.append(
            [line, char_col(lines, line, col), end_line, char_col(lines, end_line, end_col), code, message, suppressed]
        )
    if judge_noqa is not None:
        out.extend(_unused_noqa(lines, on_line, judge_noqa, directives if apply_noqa else None))
        out.sort(key=lambda item: (item[0], item[1], item[4]))
    return out


def _comment_starts(lines: list[str]) -> dict[int, int] | None:
    """line -> character column of its comment token (a ``# noqa`` in a string is no directive);
    None when the text does not tokenize (then every ``# noqa`` counts, as for suppression)."""
    starts: dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if token.type == tokenize.COMMENT:
                starts[token.start[0]] = token.start[1]
    except (tokenize.TokenError, SyntaxError):
        return None
    return starts


def _unused_noqa(
    lines: list[str],
    on_line: dict[int, list[str]],
    enabled: frozenset[str],
    file_directives: list[tuple[str, ...] | None] | None,
) -> list[CachedFinding]:
    """DG002 findings (suppressed by a file-level directive that covers DG002 when ``file_directives``
    are applied; a line's own directive never silences its DG002 but by naming DG002)."""
    code = UNUSED_NOQA.code
    out: list[CachedFinding] = []
    comments: dict[int, int] | None = None
    tokenized = False
    for number, text in enumerate(lines, start=1):
        if "noqa" not in text.lower():
            continue
        directive = parse_line(text)
        if directive is None:
            continue
        if not tokenized:
            comments, tokenized = _comment_starts(lines), True
        if comments is not None and (number not in comments or directive.start < comments[number]):
            continue
        message = dg002_unused_noqa.unused(directive, on_line.get(number, ()), RULES, enabled)
        if message is None:
            continue
        suppressed = file_directives is not None and (
            file_suppresses(file_directives, code) or directive.suppresses(code)
        )
        out.append([number, directive.start + 1, number, directive.end + 1, code, message, suppressed])
    return out


def error_result(project: Project, file: SourceFile, data: bytes | None, error: list[Any]) -> FileResult:
    """DG001 for a file that cannot be read or parsed (unless DG001 is off for it)."""
    config = project.config
    code = UNPARSABLE.code
    if not config.is_enabled(code, preview=RULES[code].preview) or any(
        code.startswith(p) for p in config.ignored_for(file.relpath)
    ):
        return FileResult(findings=[])
    line, col, reason = error
    suppressed = bool(data) and file_suppresses(file_suppression(data), code)
    message = UNPARSABLE.message.format(reason=reason)
    return FileResult(findings=[[line, col, line, col, code, message, suppressed]])
