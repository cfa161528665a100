"""Which files the include patterns select, in the coverage data and on disk."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from dispatchguard.coverage_gate.globs import glob_to_regex


def display_path(path: Path, base_dir: Path) -> str:
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


def files_on_disk(patterns: Sequence[str], base_dir: Path) -> list[Path]:
    """Python files below ``base_dir`` (or absolute patterns' roots) that match the patterns."""
    found: list[Path] = []
    for pattern in patterns:
        root = Path(pattern) if os.path.isabs(pattern) else base_dir / pattern
        # walk from the longest wildcard-free prefix of the pattern
        parts = root.parts
        fixed: list[str] = []
        for part in parts:
            if any(ch in part for ch in "*?["):
                break
            fixed.append(part)
        start = Path(*fixed) if fixed else base_dir
        if start.is_file():
            found.append(start.resolve())
            continue
        if not start.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(start):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
            for name in filenames:
                if name.endswith((".py", ".pyw")):
                    found.append(Path(dirpath, name).resolve())
    return found
