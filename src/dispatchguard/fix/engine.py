"""The fix engine: findings from the checking core in, edited files out.

For each pass (at most :data:`MAX_PASSES`, like ruff): run :func:`dispatchguard.lint.check_paths`,
then for every file with *fixable* findings (of rules that name a fixer; nothing else is read) let the rule's
fixer turn each finding into text edits, using the project's tool facts
(:class:`~dispatchguard.lint.tool_facts.ToolFacts`: registered names, the dispatcher's signature,
pydantic models), and

1. keep the edits that do not overlap (a fix inside another is retried next pass);
2. add the imports they need where the project's isort settings put them (:mod:`.imports`);
3. keep the result only if it parses, and write it atomically (temporary file in the same
   directory, ``os.replace``), keeping its encoding, newline style and permission bits.

libcst parses only the calls a DG101 fix rewrites (to keep their comments); everything else is
read with :mod:`ast`. Passes repeat while they change something; a second run of the command finds
nothing to do (idempotence).
"""

from __future__ import annotations

import ast
import dataclasses
import os
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dispatchguard.atomic import atomic_write
from dispatchguard.fix.files import read_source
from dispatchguard.fix.imports import IsortSettings
from dispatchguard.fix.report import AppliedFix, FixReport, SkippedFix, unified_diff
from dispatchguard.fix.rewrite import FIXERS, file_edits, fix_file, no_fix_reason, plan_file, splice, unsafe_note
from dispatchguard.lint.notebook import NotebookError, is_notebook, load_notebook

__all__ = [
    "MAX_PASSES",
    "AppliedFix",
    "FixReport",
    "SkippedFix",
    "apply_fixes",
]

MAX_PASSES = 10


# --------------------------------------------------------------------------- whole runs


def _selected(code: str, select: Sequence[str] | None, ignore: Sequence[str] | None) -> bool:
    if select and not any(code.startswith(p) for p in select):
        return False
    return not (ignore and any(code.startswith(p) for p in ignore))


def apply_fixes(
    paths: Sequence[str | os.PathLike[str]],
    config: Any,
    *,
    unsafe: bool = False,
    diff: bool = False,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    jobs: int | None = None,
    use_cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
) -> FixReport:
    """Fix the findings of ``check_paths(paths, config)`` in place (or, with ``diff=True``, only
    compute the unified diff). ``select``/``ignore`` restrict the codes fixed and reported, on top
    of the configuration. Returns what was applied, skipped and what remains."""
    from dispatchguard.lint import check_paths
    from dispatchguard.lint.parsing import quiet_parsing

    report = FixReport()
    str_paths = [os.fspath(p) for p in paths]
    root = Path(config.root)
    settings = IsortSettings.from_pyproject(root)

    # Without the user's cache, the passes still share one of their own: a later pass re-checks
    # only the files the fixes changed (and what depends on them).
    scratch = None if use_cache else tempfile.TemporaryDirectory(prefix="dispatchguard-fix-")
    run_cache_dir = scratch.name if scratch is not None else cache_dir

    def check(check_paths_: Sequence[str]) -> Any:
        # one configuration for every file: the facts the fixes read are this project's
        return check_paths(check_paths_, config, jobs=jobs, use_cache=True, cache_dir=run_cache_dir, nested=False)

    def facts_of(paths: Sequence[str]) -> Any:
        from dispatchguard.lint.cache import CACHE_DIRNAME, know_cached
        from dispatchguard.lint.engine import project_files
        from dispatchguard.lint.tool_facts import ToolFacts

        facts = ToolFacts(config, project_files(paths, config)[0])
        # the pass's check has just summarised the project: its facts are those, not a second parse
        know_cached(facts.project, Path(run_cache_dir) if run_cache_dir else root / CACHE_DIRNAME)
        return facts

    try:
        with quiet_parsing():  # the fixer parses many files too, and keeps their trees for a pass
            return _passes(
                report, str_paths, check, facts_of, settings, unsafe=unsafe, diff=diff, select=select, ignore=ignore
            )
    finally:
        if scratch is not None:
            scratch.cleanup()


class _FixRun:
    """The state of one fix run across its passes: the files' first and latest bytes, the fixes
    applied so far, and each file's skipped findings of the latest pass that read it."""

    def __init__(self, report: FixReport, settings: IsortSettings, *, unsafe: bool, diff: bool) -> None:
        self.report = report
        self.settings = settings
        self.unsafe = unsafe
        self.diff = diff
        self.originals: dict[str, bytes] = {}
        self.current: dict[str, bytes] = {}  # latest text of every file a fix changed
        self.applied_keys: set[tuple[str, int | None, int, int, str]] = set()
        self.last_skipped: dict[str, list[SkippedFix]] = {}

    def one_pass(self, active: list[Any], facts: Any) -> bool:
        """Fix the files of ``active`` findings; whether any file changed."""
        by_file: dict[str, list[Any]] = defaultdict(list)
        for finding in active:
            by_file[finding.path].append(finding)
        changed = False
        for file_path, findings in sorted(by_file.items()):
            changed = self.fix_one(file_path, findings, facts) or changed
        return changed

    def fix_one(self, file_path: str, findings: list[Any], facts: Any) -> bool:
        if not any(f.code in FIXERS for f in findings):
            self.last_skipped[file_path] = [
                SkippedFix(file_path, f.line, f.col, f.code, no_fix_reason(f.code), "unfixable", f.cell)
                for f in findings
            ]
            return False
        path = Path(file_path)
        try:
            src = read_source(path)
        except OSError as exc:
            self.last_skipped[file_path] = [
                SkippedFix(file_path, f.line, f.col, f.code, f"cannot read the file: {exc}", "dropped")
                for f in findings
            ]
            return False
        self.originals.setdefault(file_path, src.data)
        if is_notebook(path):
            new_data, applied, skipped = _fix_notebook(path, file_path, src.data, findings, facts, self)
        else:
            new_data, applied, skipped = fix_file(
                path.absolute().as_posix(), file_path, src.data, findings, facts, self.settings, unsafe=self.unsafe
            )
        self.last_skipped[file_path] = skipped
        if new_data == src.data:
            return False
        for fix in applied:
            key = (fix.path, fix.cell, fix.line, fix.col, fix.code)
            if key not in self.applied_keys:
                self.applied_keys.add(key)
                self.report.applied.append(fix)
        self.current[file_path] = new_data
        if not self.diff:
            atomic_write(path, new_data, mode=src.mode)
        return True

    def finish(self, remaining: list[Any]) -> FixReport:
        report = self.report
        report.remaining = remaining
        report.skipped = [s for skips in self.last_skipped.values() for s in skips]
        report.changed_files = sorted(p for p, data in self.current.items() if data != self.originals.get(p))
        if self.diff:
            report.diff = "".join(unified_diff(p, self.originals[p], self.current[p]) for p in report.changed_files)
        return report


def _fix_notebook(
    path: Path, display: str, data: bytes, findings: list[Any], facts: Any, run: _FixRun
) -> tuple[bytes, list[AppliedFix], list[SkippedFix]]:
    """Fix a notebook as :func:`~dispatchguard.fix.rewrite.fix_file` fixes a file: its code cells'
    virtual source planned as a module, the edits then made in the cells they fall in
    (:meth:`~dispatchguard.lint.notebook.Notebook.with_edits`: only the changed cells' ``source``
    values are rewritten, outputs and metadata keep their bytes). Positions are in cells."""
    try:
        notebook = load_notebook(data)
    except NotebookError as exc:
        return data, [], [SkippedFix(display, f.line, f.col, f.code, str(exc), "dropped", f.cell) for f in findings]

    def in_cell(item: Any) -> Any:
        cell, line = notebook.position(item.line)
        return dataclasses.replace(item, line=line, cell=cell)

    source = notebook.source.encode("utf-8")
    key = path.absolute().as_posix()
    plan = plan_file(key, display, source, [notebook.in_cells(f) for f in findings], facts, unsafe=run.unsafe)
    if isinstance(plan, list):
        return data, [], [in_cell(s) for s in plan]
    skipped = [in_cell(s) for s in plan.skipped]
    if not plan.chosen:
        return data, [], skipped
    edits = file_edits(plan, run.settings)
    try:
        if isinstance(edits, str):
            raise ValueError(edits)
        ast.parse(splice(plan.ctx.text, edits))
        new_data = notebook.with_edits((e.start, e.end, e.text) for e in edits).encode("utf-8")
    except (SyntaxError, ValueError) as exc:  # NotebookError is a ValueError
        reason = f"the result would not parse ({exc})" if isinstance(exc, SyntaxError) else str(exc)
        why = f"fix dropped: {reason}"
        dropped = [SkippedFix(display, f.line, f.col, f.code, why, "dropped") for f, _ in plan.chosen]
        return data, [], [*skipped, *map(in_cell, dropped)]
    applied = [
        in_cell(AppliedFix(display, f.line, f.col, f.code, unsafe_note(fix), fix.safe, fix.unsafe_because))
        for f, fix in plan.chosen
    ]
    return new_data, applied, skipped


def _passes(
    report: FixReport,
    str_paths: list[str],
    check: Any,
    facts_of: Any,
    settings: IsortSettings,
    *,
    unsafe: bool,
    diff: bool,
    select: Sequence[str] | None,
    ignore: Sequence[str] | None,
) -> FixReport:
    def active_of(findings: list[Any]) -> list[Any]:
        return [f for f in findings if not f.suppressed and _selected(f.code, select, ignore)]

    run = _FixRun(report, settings, unsafe=unsafe, diff=diff)
    active: list[Any] = []
    changed = False
    for _ in range(1 if diff else MAX_PASSES):
        result = check(str_paths)
        report.files_checked = max(report.files_checked, result.files_checked)
        active = active_of(result.findings)
        # the facts are read afresh each pass: a fix may have changed the files they come from
        fixable = any(f.code in FIXERS for f in active)
        facts = facts_of(str_paths) if fixable else None
        changed = run.one_pass(active, facts)
        if not changed:
            break
    if diff:  # nothing was written: what remains is what the diff does not fix
        return run.finish([f for f in active if (f.path, f.cell, f.line, f.col, f.code) not in run.applied_keys])
    return run.finish(active if not changed else active_of(check(str_paths).findings))
