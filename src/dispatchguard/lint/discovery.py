"""The one file walker: which files the checker, the fixes, the flake8 plugin and the coverage gate
see, and how paths are shown.

A file or directory is excluded when ``exclude``/``extend-exclude`` match its path relative to the
project root, or (with ``respect-gitignore``, the default) when a ``.gitignore`` or ``.ignore`` file
in its directory or above it (up to the git work tree's top, or the project root outside git), or
``.git/info/exclude``, ignores it. Both kinds use git's pattern syntax, matched by ``pathspec``'s
``GitIgnoreSpec``; an ignored directory is not entered.

Paths given explicitly are checked even when excluded (as ruff does), unless ``force-exclude`` is
set. Inside a directory given explicitly that is itself excluded, the rules apply as if that
directory were the root (so ``dispatchguard check build/`` checks ``build/`` but still skips its
``__pycache__``).

Notebooks (``.ipynb``) are never returned as Python files: :func:`scan` lists them apart so that
the CLI can say they were not checked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pathspec import GitIgnoreSpec

from dispatchguard.lint.config import LintConfig

PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
IGNORE_FILES = (".gitignore", ".ignore")


@dataclass
class SourceFile:
    path: Path  # absolute
    relpath: str  # root-relative POSIX path (absolute POSIX path when outside the root)
    key: str  # cache key: absolute POSIX path


@dataclass
class Scan:
    """What a walk found: Python files to check and notebooks it did not check (absolute, sorted)."""

    files: list[Path] = field(default_factory=list)
    notebooks: list[Path] = field(default_factory=list)


def _relpath(path: Path, root: Path) -> str:
    if os.sep == "/":  # POSIX paths are normalised: a textual prefix is a prefix of the parts
        text, prefix = str(path), f"{root}/"
        if text.startswith(prefix) and len(text) > len(prefix):
            return text[len(prefix) :]
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _display_path(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


class Ignores:
    """The exclusion rules below one base directory (the project root, or an explicitly given
    directory that is itself excluded). Ignore files are read once per directory."""

    def __init__(self, exclude: Sequence[str], respect_gitignore: bool, base: Path, git_top: Path | None) -> None:
        self.base = base
        self.exclude = GitIgnoreSpec.from_lines(exclude)
        self.respect_gitignore = respect_gitignore
        # ignore files are read from the git work tree's top down (or from the base, outside git)
        self.top = git_top if git_top is not None and (base == git_top or git_top in base.parents) else base
        self._specs: dict[Path, GitIgnoreSpec | None] = {}

    def _spec(self, directory: Path) -> GitIgnoreSpec | None:
        if directory in self._specs:
            return self._specs[directory]
        lines: list[str] = []
        sources = [directory / name for name in IGNORE_FILES]
        if directory == self.top:
            sources.insert(0, directory / ".git" / "info" / "exclude")
        for source in sources:
            try:
                lines.extend(source.read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:  # absent (the usual case), a directory, unreadable: no rules
                continue
        spec = GitIgnoreSpec.from_lines(lines) if any(line.strip() for line in lines) else None
        self._specs[directory] = spec
        return spec

    def excluded(self, path: Path, is_dir: bool) -> bool:
        """Whether ``path`` (absolute, normalised) is excluded; paths outside the base never are."""
        rel = _relpath(path, self.base)
        if rel == path.as_posix() or rel == ".":
            return False
        suffix = "/" if is_dir else ""
        if self.exclude.match_file(rel + suffix):
            return True
        if not self.respect_gitignore:
            return False
        directory = path.parent
        while True:  # the deepest ignore file with a matching pattern decides, as in git
            spec = self._spec(directory)
            if spec is not None:
                verdict = spec.check_file(_relpath(path, directory) + suffix).include
                if verdict is not None:
                    return verdict
            if directory == self.top or directory == directory.parent:
                return False
            directory = directory.parent


def _git_top(directory: Path) -> Path | None:
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


@lru_cache(maxsize=16)
def _ignores(exclude: tuple[str, ...], respect_gitignore: bool, base: Path, inside_git: bool) -> Ignores:
    return Ignores(exclude, respect_gitignore, base, _git_top(base) if inside_git else None)


def _ignores_for(config: LintConfig, base: Path, *, as_root: bool = False) -> Ignores:
    """The rules below ``base``; ``as_root``: ignore files above ``base`` do not count."""
    return _ignores(tuple(config.exclude), config.respect_gitignore, base, config.respect_gitignore and not as_root)


def _absolute(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(path))


def is_excluded(path: str | os.PathLike[str], config: LintConfig, root: Path) -> bool:
    """Whether ``exclude``/``extend-exclude`` or an ignore file excludes ``path`` (a file or a
    directory, relative to the current directory or absolute) from the project under ``root``."""
    absolute = _absolute(path)
    return _ignores_for(config, _absolute(root)).excluded(absolute, absolute.is_dir())


def scan(paths: Iterable[str | os.PathLike[str]], config: LintConfig, root: Path) -> Scan:
    """The Python files and the notebooks under ``paths`` (see the module docstring for the rules).
    Files given explicitly count whatever their suffix, except notebooks."""
    root = _absolute(root)
    project = _ignores_for(config, root)
    files: set[Path] = set()
    notebooks: set[Path] = set()
    for raw in paths:
        path = _absolute(raw)
        is_dir = path.is_dir()
        excluded = project.excluded(path, is_dir)
        if excluded and config.force_exclude:
            continue
        if not is_dir:
            (notebooks if path.suffix == NOTEBOOK_SUFFIX else files).add(path)
            continue
        rules = _ignores_for(config, path, as_root=True) if excluded else project
        _walk_dir(path, rules, files, notebooks)
    return Scan(sorted(files), sorted(notebooks))


def _walk_dir(start: Path, rules: Ignores, files: set[Path], notebooks: set[Path]) -> None:
    pending = [start]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:  # vanished or unreadable: nothing to check there
            continue
        for entry in entries:
            path = directory / entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:  # pragma: no cover - raced with a deletion
                continue
            if is_dir:
                if not rules.excluded(path, True):
                    pending.append(path)
            elif entry.name.endswith(PYTHON_SUFFIXES):
                if not rules.excluded(path, False):
                    files.add(path)
            elif entry.name.endswith(NOTEBOOK_SUFFIX) and not rules.excluded(path, False):
                notebooks.add(path)


def walk(paths: Iterable[str | os.PathLike[str]], config: LintConfig, root: Path) -> list[Path]:
    """The Python files to check under ``paths``: absolute, sorted, each once."""
    return scan(paths, config, root).files


def discover(paths: Iterable[str | os.PathLike[str]], config: LintConfig, root: Path) -> list[Path]:
    """The engine's name for :func:`walk` (kept while the engine is rewritten to call ``walk``)."""
    return walk(paths, config, root)
