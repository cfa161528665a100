"""The checking engine: the two phases and parallel jobs.

Phase 1 reads and parses every file of the project (under ``config.root``, minus ``exclude``) and
keeps a summary of what each module binds at top level. Phase 2 resolves tool classes, tools and
registries across the project, then walks only the files to report on. A file's findings are
cached with the project facts it looked up (``deps``): a later run reuses them while the file's
content, the configuration and those facts are unchanged, so editing a base class in one file
re-checks exactly the files that depend on it.

The parts: :mod:`.discovery` (which files), :mod:`.parsing` (per-file work), :mod:`.project`
(checking one file against the project), :mod:`.cache` (the result cache), :mod:`.run` (the state
of one run) and :mod:`.source` (checking source text in memory). Their names that tests, the
flake8 plugin and benchmarks use are importable from here too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dispatchguard.lint.analysis import Context  # noqa: F401 - tests patch engine.Context.run
from dispatchguard.lint.cache import (
    CACHE_VERSION,  # noqa: F401 - tests read engine.CACHE_VERSION
    ResultCache,
    _parsed_entry,
    _valid_entry,
)
from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import (
    SourceFile,
    _display_path,
    _relpath,  # noqa: F401 - the flake8 plugin imports it from here
    discover,
)
from dispatchguard.lint.findings import CheckReport, Finding
from dispatchguard.lint.parsing import _stat, quiet_parsing, read_and_parse
from dispatchguard.lint.project import (
    _IDENT,
    _PRIVATE_RUN,
    CachedFinding,
    Project,
    _check_one,
    _findings_valid,
)
from dispatchguard.lint.run import _Run
from dispatchguard.lint.source import check_source

_KEEP_TREES_BYTES = 8_000_000  # source bytes whose trees phase 1 keeps for phase 2 (about 25x in RAM)
_MIN_PARALLEL = 24  # below this many files a process pool costs more than it saves


# ============================================================================ the run


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    *,
    jobs: int | None = None,
    use_cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CheckReport:
    """Check the Python files under ``paths`` with knowledge of the whole project under the root."""
    with quiet_parsing():
        return _check_paths(paths, config, jobs, use_cache, cache_dir, progress)


def _check_paths(
    paths: Sequence[str | os.PathLike[str]],
    config: LintConfig,
    jobs: int | None,
    use_cache: bool,
    cache_dir: str | os.PathLike[str] | None,
    progress: Callable[[int, int], None] | None,
) -> CheckReport:
    run = _Run(config, list(paths) or ["."], jobs, use_cache, cache_dir, progress)
    _index(run)
    project = run.project
    results: dict[str, list[CachedFinding]] = {}
    todo: list[str] = []
    digest = project.resolver.words_digest() if run.targets else ""
    for key in run.targets:
        entry = run.entries[key]
        if entry.get("e"):
            results[key] = project.error_finding(run.files[key], run.kept.get(key, (None,))[0], entry["e"])
            run.tick()
            continue
        cached = entry.get("f")
        info = project.infos.get(key)
        module = info.name if info is not None else None
        if isinstance(cached, dict) and cached.get("m") == module and _findings_valid(project, cached, digest):
            results[key] = cached["x"]
            run.tick()
        elif key in run.gates and not project.gate_passes(*run.gates[key]):
            run.store(results, key, {"x": [], "d": None, "g": digest, "m": module})
            run.tick()
        else:
            todo.append(key)
    # phase 2 re-reads and re-parses in the workers: only worth a pool for more files than phase 1
    pool_context = _fork_context() if run.jobs > 1 and len(todo) >= 3 * _MIN_PARALLEL else None
    if pool_context is not None:
        global _WORKER_PROJECT
        _WORKER_PROJECT = project
        try:
            project.resolver.words()  # computed once, before forking
            with _pool(run.jobs, pool_context) as pool:
                work = [(run.files[k], run.entries[k]["h"]) for k in todo]
                for batch in pool.map(_phase2_worker, _chunks(work, run.jobs)):
                    for key, outcome in batch:
                        run.store(results, key, outcome)
                    run.tick(len(batch))
        finally:
            _WORKER_PROJECT = None
    else:
        for key in todo:
            data, tree = run.kept.pop(key, (None, None))
            run.store(results, key, _check_one(project, run.files[key], data, tree, run.entries[key]["h"]))
            run.tick()
    if use_cache:
        run.cache.save(keep=run.files)

    cwd = Path.cwd()
    findings = []
    for key, items in results.items():
        shown = _display_path(run.files[key].path, cwd)
        for line, col, end_line, end_col, code, message, suppressed in items:
            findings.append(Finding(shown, line, col, code, message, end_line, end_col, suppressed))
    findings.sort(key=lambda f: (f.path, f.line, f.col, f.code, f.message))
    return CheckReport(findings=findings, files_checked=len(run.targets))


def build_project(config: LintConfig, *, use_cache: bool = True) -> Project:
    """Index the whole project under ``config.root`` (phase 1 and resolution) without checking."""
    run = _Run(config, [], 1, use_cache, None, None)
    with quiet_parsing():
        _index(run)
    for key, entry in run.entries.items():
        if isinstance(entry.get("f"), dict):
            run.project.cached[key] = entry["f"]
    if use_cache:
        run.cache.save(keep=run.files)
    return run.project


def _index(run: _Run) -> None:
    """Phase 1 (summaries, from the cache when the file's stat is unchanged) and resolution."""
    stale: list[str] = []
    for key, file in run.files.items():
        entry = run.cache.get(key) if run.use_cache else None
        if entry is not None and _valid_entry(entry, _stat(file.path)):
            run.entries[key] = entry
            run.tick()
        else:
            stale.append(key)
    targets = set(run.targets)
    pool_context = _fork_context() if run.jobs > 1 and len(stale) >= _MIN_PARALLEL else None
    if pool_context is not None:
        with _pool(run.jobs, pool_context) as pool:
            work = [(key, key in targets) for key in stale]
            for batch in pool.map(_phase1_worker, _chunks(work, run.jobs)):
                for key, fresh, gate in batch:
                    run.merge(key, fresh)
                    if gate is not None:
                        run.gates[key] = gate
                run.tick(len(batch))
    else:
        budget = _KEEP_TREES_BYTES
        hints = _relevance_hints(run.config)
        for key in stale:
            data, tree, parsed = read_and_parse(run.files[key].path)
            if data is not None and key in targets and budget > 0 and any(h in data for h in hints):
                run.kept[key] = (data, tree)
                budget -= len(data)
            run.merge(key, _parsed_entry(parsed))
            run.tick()
    project = run.project
    project.package_dirs = frozenset(
        rel[: -len("/__init__.py")] if "/" in rel else ""
        for rel in (f.relpath for f in run.files.values())
        if rel.endswith("/__init__.py") or rel == "__init__.py"
    )
    for key, entry in run.entries.items():
        if entry.get("s") is not None:
            project.add(run.files[key], entry["s"], project.package_dirs)
            project.digests[key] = entry["h"]


def _relevance_hints(config: LintConfig) -> tuple[bytes, ...]:
    """Substrings for a cheap guess (phase 1 cannot know the project's tool names yet) of whether
    phase 2 will walk a file: the configured names, ``_run`` and ``egistr``. Only decides which
    trees are kept in memory (a file guessed wrong is parsed again), never what is reported."""
    names = {e.rsplit(".", 1)[-1] for e in (*config.tool_bases, *config.tool_decorators)}
    names.update(p.rsplit(".", 1)[-1] for p in config.tool_packages)  # as in ``from pkg.tools import X``
    hints = {b"_run", b"egistr"} | {n.encode() for n in names if n}
    shortest = [h for h in hints if not any(o != h and o in h for o in hints)]  # the others are redundant
    return tuple(sorted(shortest, key=lambda h: (len(h), h)))


# ============================================================================ workers


_WORKER_PROJECT: Project | None = None


def _phase1_worker(items: list[tuple[str, bool]]) -> list[tuple[str, dict[str, Any], Any]]:
    """Parse and summarise; for files to report on, also what the gate needs (the tree itself
    cannot travel back cheaply, so phase 2 only re-parses the files that pass the gate)."""
    out = []
    for raw, is_target in items:
        data, _, parsed = read_and_parse(Path(raw))
        gate = None
        if is_target and data is not None:
            gate = (bool(_PRIVATE_RUN.search(data)) if b"_run" in data else False, frozenset(_IDENT.findall(data)))
        out.append((raw, _parsed_entry(parsed), gate))
    return out


def _phase2_worker(items: list[tuple[SourceFile, str]]) -> list[tuple[str, dict[str, Any]]]:
    project = _WORKER_PROJECT
    assert project is not None
    out = []
    for file, digest in items:
        out.append((file.key, _check_one(project, file, None, None, digest)))
    return out


def _chunks(items: list[Any], jobs: int) -> list[list[Any]]:
    size = max(1, min(64, len(items) // (jobs * 4) or 1))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _fork_context() -> Any:
    import multiprocessing  # only for parallel runs: flake8 imports this module in every process

    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - Windows
        return None


def _pool(jobs: int, context: Any) -> Any:
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=jobs, mp_context=context)


__all__ = ["Project", "ResultCache", "build_project", "check_paths", "check_source", "discover"]
