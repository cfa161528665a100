"""The one file walker: which files the checker, the fixes, the flake8 plugin and the coverage gate
see, and how paths are shown.

A file or directory is excluded when ``exclude``/``extend-exclude`` match its path relative to the
project root, or (with ``respect-gitignore``, the default) when a ``.gitignore`` or ``.ignore`` file
in its directory or above it (up to the git work tree's top, or the project root outside git), or
``.git/info/exclude``, ignores it. Both kinds use git's pattern syntax, matched by ``pathspec``'s
``GitIgnoreSpec``; an ignored directory is not entered.

Paths given explicitly are checked even when excluded (as ruff does), unless ``force-exclude`` is
set. Below a directory given explicitly, a rule excludes what it matches itself, not everything
below a folder it matched (so ``dispatchguard check build/`` checks ``build/`` but still skips its
``__pycache__``, and a project whose root an outer repository ignores is still checked).

Notebooks (``.ipynb``) are never returned as Python files: :func:`scan` lists them apart (the engine
checks their code cells, ``lint/notebook.py``; the fix engine and the flake8 plugin walk Python
files).

**Nested projects.** Asked to (``nested=True``, the CLI's default), :func:`scan` leaves out every
folder below the root that has a configuration of its own (a ``pyproject.toml`` with a
``[tool.dispatchguard]`` table), and a path given inside one: it lists them in ``Scan.projects``
(folder -> the paths to check there), each to be checked as a project of its own, with its own
configuration, as ruff uses the nearest configuration of each file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pathspec import GitIgnoreSpec

from dispatchguard.lint.config import LintConfig, has_table

PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
IGNORE_FILES = (".gitignore", ".ignore")
# why a path is excluded: (where the rule lives, which rule set, the pattern's index), or None
Reason = tuple[Path, str, int] | None


@dataclass
class SourceFile:
    """A Python file of a project as the checker knows it: its path, how it is shown, its key.

    Made by the engine for each file the walk finds (and by the editor paths for a buffer); findings
    show ``relpath``, and ``key`` names the file in the project's tables and caches.
    """

    path: Path  # absolute from the file walk; check_source's: under the configuration's root as given
    relpath: str  # root-relative POSIX path (absolute POSIX path when outside the root)
    key: str  # its name in the project's tables: absolute POSIX path (check_source: the root-relative path)


@dataclass
class Scan:
    """What a walk found: Python files and notebooks (absolute, sorted)."""

    files: list[Path] = field(default_factory=list)
    notebooks: list[Path] = field(default_factory=list)
    #: the folders below the root with a configuration of their own -> the paths to check there
    projects: dict[Path, list[Path]] = field(default_factory=dict)


def has_own_config(directory: Path) -> bool:
    """Whether a folder holds a configuration (a ``pyproject.toml`` with a ``[tool.dispatchguard]``
    table): the root of a project of its own."""
    candidate = directory / "pyproject.toml"
    return candidate.is_file() and has_table(candidate)


def nearest_project(path: Path, root: Path) -> Path | None:
    """The nearest folder at or above ``path`` and below ``root`` with its own configuration."""
    directory = path if path.is_dir() else path.parent
    while directory != root and root in directory.parents:
        if has_own_config(directory):
            return directory
        directory = directory.parent
    return None


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


def display_path(path: Path, cwd: Path) -> str:
    """How a path is shown: relative to the current directory when below it."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


class _Rules:
    """A ``GitIgnoreSpec`` with a fast test first: one regular expression of all its patterns
    decides whether any pattern matches at all (the usual answer is no), so the per-pattern
    matching that tells which one decides runs only for the few paths some pattern matches."""

    __slots__ = ("any_match", "spec")

    def __init__(self, spec: GitIgnoreSpec) -> None:
        self.spec = spec
        # pathspec's patterns all name a group ps_d: one alternation cannot repeat a name
        alternatives = [p.regex.pattern.replace("(?P<ps_d>", "(?:") for p in spec.patterns if p.regex is not None]
        self.any_match = re.compile("|".join(alternatives)).search if alternatives else None

    def check(self, path: str) -> tuple[bool | None, int | None]:
        """(include, index) of the deciding pattern, as ``GitIgnoreSpec.check_file``."""
        if self.any_match is None or self.any_match(path) is None:
            return None, None
        result = self.spec.check_file(path)
        return result.include, result.index


class Ignores:
    """The exclusion rules of one project: ``exclude`` and the ignore files from the git work tree's
    top (or the root, outside git) down. Ignore files are read once per directory.

    A path is excluded when a rule matches *it*, not merely because its folder matched: pathspec's
    git semantics make every path below an ignored folder match too, so a path counts as excluded
    only when the pattern that decides for it is not the one that decides for its folder. The walker
    never enters an excluded folder, so this only matters below a folder it was told to walk (a root
    inside a folder an outer repository ignores, an excluded folder named explicitly)."""

    def __init__(self, exclude: Sequence[str], respect_gitignore: bool, root: Path) -> None:
        self.root = root
        self.exclude = _Rules(GitIgnoreSpec.from_lines(exclude))
        self.respect_gitignore = respect_gitignore
        self.top = _git_top(root) if respect_gitignore else None
        if self.top is None:
            self.top = root
        self._top_prefix = os.path.join(str(self.top), "")
        self._specs: dict[Path, _Rules | None] = {}
        self._chains: dict[Path, tuple[tuple[Path, str, _Rules], ...]] = {}
        self._dirs: dict[Path, tuple[Reason, Reason]] = {}

    def _spec(self, directory: Path) -> _Rules | None:
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
        spec = _Rules(GitIgnoreSpec.from_lines(lines)) if any(line.strip() for line in lines) else None
        self._specs[directory] = spec
        return spec

    def _chain(self, directory: Path) -> tuple[tuple[Path, str, _Rules], ...]:
        """The ignore files that apply in ``directory``, deepest first: (folder, its path + "/", rules)."""
        chain = self._chains.get(directory)
        if chain is None:
            spec = self._spec(directory)
            own = ((directory, os.path.join(str(directory), ""), spec),) if spec is not None else ()
            above = self._chain(directory.parent) if directory != self.top and directory != directory.parent else ()
            chain = self._chains[directory] = own + above
        return chain

    def _matches(self, path: Path, is_dir: bool) -> tuple[Reason, Reason]:
        """Why ``exclude`` and the ignore files exclude ``path`` (folder contents included): the
        deciding pattern, or None."""
        suffix = "/" if is_dir else ""
        rel = relative_path(path, self.root)
        if rel == path.as_posix():  # outside the root: only the name-based patterns can match
            rel = rel.lstrip("/")
        excluded: Reason = None
        if rel not in ("", "."):
            include, index = self.exclude.check(rel + suffix)
            excluded = (self.root, "exclude", index) if include else None
        ignored: Reason = None
        if self.respect_gitignore and str(path).startswith(self._top_prefix):
            text = str(path)
            for directory, prefix, spec in self._chain(path.parent):  # the deepest file decides, as in git
                include, index = spec.check(text[len(prefix) :] + suffix)
                if include is not None:
                    ignored = (directory, "ignore", index) if include else None
                    break
        return excluded, ignored

    def _dir_matches(self, directory: Path) -> tuple[Reason, Reason]:
        if directory not in self._dirs:
            self._dirs[directory] = self._matches(directory, True)
        return self._dirs[directory]

    def excluded_in(self, path: Path, is_dir: bool) -> bool:
        """Whether a rule matches ``path`` itself, rather than only a folder above it: the
        deciding pattern differs from the one that decides for the folder."""
        excluded, ignored = self._dir_matches(path) if is_dir else self._matches(path, False)
        if excluded is None and ignored is None:
            return False
        parent_excluded, parent_ignored = self._dir_matches(path.parent)
        return (excluded is not None and excluded != parent_excluded) or (
            ignored is not None and ignored != parent_ignored
        )

    def clearance(self, directory: Path) -> tuple[str, tuple[tuple[int, Any], ...]]:
        """What :meth:`clear` needs for the entries of ``directory``: their root-relative prefix
        and, for each ignore file that applies, the length of its folder's prefix and its test."""
        rel = relative_path(directory, self.root)
        if rel == directory.as_posix():
            rel = rel.lstrip("/")
        prefix = "" if rel in ("", ".") else rel + "/"
        chain: tuple[tuple[int, Any], ...] = ()
        if self.respect_gitignore and os.path.join(str(directory), "").startswith(self._top_prefix):
            chain = tuple((len(text), spec.any_match) for _, text, spec in self._chain(directory))
        return prefix, chain

    def clear(self, clearance: tuple[str, tuple[tuple[int, Any], ...]], path: str, name: str, is_dir: bool) -> bool:
        """True when no pattern at all matches an entry (then it is certainly not excluded; else
        :meth:`excluded_in` decides): the walk's fast path."""
        prefix, chain = clearance
        suffix = "/" if is_dir else ""
        any_match = self.exclude.any_match
        if any_match is not None and any_match(prefix + name + suffix) is not None:
            return False
        return not any(test is not None and test(path[skip:] + suffix) is not None for skip, test in chain)

    def excluded(self, path: Path, is_dir: bool) -> bool:
        """Whether ``path`` or one of its folders below the root is excluded."""
        if self.excluded_in(path, is_dir):
            return True
        for folder in path.parents:
            if folder == self.root or folder == folder.parent or self.root not in folder.parents:
                return False
            if self.excluded_in(folder, True):
                return True
        return False  # pragma: no cover - the loop always reaches the root or "/"


def _git_top(directory: Path) -> Path | None:
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


@lru_cache(maxsize=16)
def _cached_ignores(exclude: tuple[str, ...], respect_gitignore: bool, root: Path) -> Ignores:
    return Ignores(exclude, respect_gitignore, root)


def _absolute(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(path))


def is_excluded(path: str | os.PathLike[str], config: LintConfig, root: Path) -> bool:
    """Whether ``exclude``/``extend-exclude`` or an ignore file excludes ``path`` (a file or a
    directory, relative to the current directory or absolute), or one of its folders below
    ``root``, from the project under ``root``."""
    absolute = _absolute(path)
    # asked once per file by the flake8 plugin: the ignore files are read once per process
    rules = _cached_ignores(tuple(config.exclude), config.respect_gitignore, _absolute(root))
    return rules.excluded(absolute, absolute.is_dir())


def scan(paths: Iterable[str | os.PathLike[str]], config: LintConfig, root: Path, *, nested: bool = False) -> Scan:
    """The Python files and the notebooks under ``paths`` (see the module docstring for the rules),
    and with ``nested``, the projects of their own below the root. Files given explicitly count
    whatever their suffix, except notebooks."""
    root = _absolute(root)
    rules = Ignores(config.exclude, config.respect_gitignore, root)  # ignore files as they are now
    files: set[Path] = set()
    notebooks: set[Path] = set()
    projects: dict[Path, list[Path]] | None = {} if nested else None
    for raw in paths:
        path = _absolute(raw)
        is_dir = path.is_dir()
        if config.force_exclude and rules.excluded(path, is_dir):
            continue
        owner = nearest_project(path, root) if projects is not None else None
        if owner is not None:
            projects.setdefault(owner, []).append(path)  # type: ignore[union-attr]
        elif is_dir:
            _walk_dir(path, rules, files, notebooks, projects)
        else:
            (notebooks if path.suffix == NOTEBOOK_SUFFIX else files).add(path)
    return Scan(sorted(files), sorted(notebooks), projects or {})


def _walk_dir(
    start: Path, rules: Ignores, files: set[Path], notebooks: set[Path], projects: dict[Path, list[Path]] | None = None
) -> None:
    pending = [start]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:  # vanished or unreadable: nothing to check there
            continue
        if projects is not None and directory != start and _own_config_among(directory, entries):
            projects.setdefault(directory, []).append(directory)
            continue
        clearance = rules.clearance(directory)
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:  # pragma: no cover - raced with a deletion
                continue
            python = not is_dir and name.endswith(PYTHON_SUFFIXES)
            if not (is_dir or python or name.endswith(NOTEBOOK_SUFFIX)):
                continue
            path = directory / name
            if not rules.clear(clearance, entry.path, name, is_dir) and rules.excluded_in(path, is_dir):
                continue
            if is_dir:
                pending.append(path)
            else:
                (files if python else notebooks).add(path)


def _own_config_among(directory: Path, entries: list[os.DirEntry[str]]) -> bool:
    return any(entry.name == "pyproject.toml" for entry in entries) and has_own_config(directory)


def walk(
    paths: Iterable[str | os.PathLike[str]], config: LintConfig, root: Path, *, nested: bool = False
) -> list[Path]:
    """The Python files to check under ``paths``: absolute, sorted, each once (with ``nested``,
    none of a project of its own below the root)."""
    return scan(paths, config, root, nested=nested).files
