"""Which files the include patterns select, in the coverage data and on disk."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from dispatchguard.globs import glob_to_regex
from dispatchguard.lint.config import LintConfig
from dispatchguard.lint.discovery import walk


def display_path(path: Path, base_dir: Path) -> str:
    """``path`` relative to ``base_dir`` (lexically) in POSIX form; the whole path if outside it."""
    try:
        return path.relative_to(base_dir).as_posix()
    except ValueError:
        return path.as_posix()


def match_files(
    candidates: Iterable[Path], patterns: Sequence[str], base_dir: Path
) -> tuple[dict[Path, str], list[str]]:
    """Files among ``candidates`` matching any pattern, and the patterns that matched nothing.

    A relative pattern is matched against the path relative to ``base_dir`` (files outside it
    against their absolute path, so ``**/x.py`` still works); an absolute pattern against the
    absolute path.
    """
    compiled = [(p, glob_to_regex(p), os.path.isabs(p)) for p in patterns]
    matched: dict[Path, str] = {}
    hits = dict.fromkeys(patterns, False)
    for path in candidates:
        rel = display_path(path, base_dir)
        absolute = path.as_posix()
        for raw, regex, is_abs in compiled:
            if regex.match(absolute if is_abs else rel):
                matched[path] = rel
                hits[raw] = True
    return matched, [p for p, hit in hits.items() if not hit]


def files_on_disk(patterns: Sequence[str], base_dir: Path, config: LintConfig) -> list[Path]:
    """Python files below ``base_dir`` (or absolute patterns' roots) that the patterns may select,
    found by the checker's walker: ``exclude`` and ignore files apply, as for ``dispatchguard check``."""
    starts: list[Path] = []
    for pattern in patterns:
        root = Path(pattern) if os.path.isabs(pattern) else base_dir / pattern
        # walk from the longest wildcard-free prefix of the pattern
        fixed: list[str] = []
        for part in root.parts:
            if any(ch in part for ch in "*?["):
                break
            fixed.append(part)
        start = Path(*fixed) if fixed else base_dir
        if start.exists():
            starts.append(start)
    return [path.resolve() for path in walk(starts, config, config.root)]
