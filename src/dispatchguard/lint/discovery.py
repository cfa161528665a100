"""Discovery: the Python files under the given paths, minus ``exclude``, and how paths are shown."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dispatchguard.lint.config import LintConfig, any_glob

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass
class SourceFile:
    path: Path  # absolute
    relpath: str  # root-relative POSIX path (absolute POSIX path when outside the root)
    key: str  # cache key: absolute POSIX path


def relative_path(path: Path, root: Path) -> str:
    """Root-relative POSIX path (absolute POSIX path when outside the root)."""
    if os.sep == "/":  # POSIX paths are normalised: a textual prefix is a prefix of the parts
        text, prefix = str(path), f"{root}/"
        if text.startswith(prefix) and len(text) > len(prefix):
            return text[len(prefix) :]
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def discover(paths: Iterable[str | os.PathLike[str]], config: LintConfig, root: Path) -> list[Path]:
    """Python files under ``paths`` (files given explicitly count whatever their suffix), minus
    ``exclude`` (matched against root-relative paths and every directory name)."""
    found: list[Path] = []
    seen: set[Path] = set()
    exclude = config.exclude
    for raw in paths:
        path = Path(raw).absolute()
        if path.is_dir():
            if _excluded(path, root, exclude, is_dir=True):
                continue
            for dirpath, dirnames, filenames in os.walk(path):
                base = Path(dirpath)
                dirnames[:] = sorted(d for d in dirnames if not _excluded(base / d, root, exclude, is_dir=True))
                for name in sorted(filenames):
                    if name.endswith(PYTHON_SUFFIXES):
                        file = base / name
                        if file not in seen and not _excluded(file, root, exclude):
                            seen.add(file)
                            found.append(file)
        elif path not in seen and not _excluded(path, root, exclude):
            seen.add(path)
            found.append(path)
    return found


def _excluded(path: Path, root: Path, exclude: Sequence[str], is_dir: bool = False) -> bool:
    if not exclude:
        return False
    rel = relative_path(path, root)
    if rel == ".":
        return False
    return any_glob(exclude, rel)


def display_path(path: Path, cwd: Path) -> str:
    """How a path is shown: relative to the current directory when below it."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()
