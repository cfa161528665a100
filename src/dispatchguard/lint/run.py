"""The state of one run of the engine: files, cache entries, trees kept between the phases and
the project (the phases themselves are in :mod:`dispatchguard.lint.engine`)."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dispatchguard.lint.cache import CACHE_DIRNAME, ResultCache
from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import SourceFile, _relpath, discover
from dispatchguard.lint.project import Project


class _Run:
    """The state of one run: files, cache entries, trees kept between the phases, the project."""

    def __init__(
        self,
        config: LintConfig,
        paths: list[str | os.PathLike[str]],
        jobs: int | None,
        use_cache: bool,
        cache_dir: str | os.PathLike[str] | None,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.config = config
        self.root = root = Path(config.root).absolute()
        targets = discover(paths, config, root) if paths else []
        self.targets = [p.as_posix() for p in targets]
        if [Path(p).absolute() for p in paths] == [root] and root.is_dir():
            every = dict(zip(self.targets, targets))  # checking the whole project: one walk of it
        else:
            every = {p.as_posix(): p for p in (discover([root], config, root) if root.is_dir() else [])}
        for p in targets:
            every.setdefault(p.as_posix(), p)
        self.files = {key: SourceFile(path, _relpath(path, root), key) for key, path in every.items()}
        self.jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
        self.use_cache = use_cache
        self.cache = ResultCache(Path(cache_dir) if cache_dir else root / CACHE_DIRNAME, config.fingerprint())
        if use_cache:
            self.cache.load()
        self.entries: dict[str, dict[str, Any]] = {}
        self.kept: dict[str, tuple[bytes, ast.Module | None]] = {}
        self.gates: dict[str, tuple[bool, frozenset[bytes]]] = {}  # from parallel phase 1
        self.progress = progress
        self.total = len(self.files) + len(self.targets)
        self.done = 0
        self.project = Project(config)

    def tick(self, n: int = 1) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.done, self.total)

    def merge(self, key: str, fresh: dict[str, Any]) -> None:
        old = self.cache.get(key)
        if old is not None and old.get("h") == fresh["h"] and "f" in old:
            fresh["f"] = old["f"]  # content unchanged (only touched): the findings may still be valid
        self.entries[key] = fresh
        self.cache.put(key, fresh)

    def store(self, results: dict, key: str, outcome: dict[str, Any]) -> None:
        results[key] = outcome["x"]
        entry = dict(self.entries[key])
        entry["f"] = outcome
        self.cache.put(key, entry)

