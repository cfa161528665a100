"""flake8 front end: the same core and ``[tool.dispatchguard]`` configuration as the CLI.

flake8 creates one ``Plugin`` per file and hands it the parsed tree. The project is set up once per
process and configuration from the file list alone (module names, no parsing); checking a file
loads only the modules its names lead to, from the on-disk cache of ``dispatchguard check`` when it
has them, else by parsing them. So an editor's check of one buffer costs little more than the
buffer itself, however large the project. A buffer that differs from the file on disk (an unsaved
editor buffer, stdin) is what the project knows of that module from then on.

flake8 applies its own ``--select``/``--ignore``/``--per-file-ignores`` and ``# noqa``; the
configuration's ``select``/``ignore``/``per-file-ignores`` apply too. Files that
``exclude``/``extend-exclude`` or an ignore file exclude are not reported (as if ``force-exclude``
were set: flake8 cannot tell a file named on its command line from one it found). The ``# noqa``
grammar of :mod:`dispatchguard.lint.noqa` (``#noqa:DG101`` without a space, the file-level
``# dispatchguard: noqa`` and ``# ruff: noqa``) is applied on top of flake8's own, so both front
ends report the same findings.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flake8.defaults import NOQA_INLINE_REGEXP as FLAKE8_NOQA

from dispatchguard import __version__
from dispatchguard.lint.cache import CACHE_DIRNAME, ResultCache
from dispatchguard.lint.checking import check_tree
from dispatchguard.lint.config import ConfigError, LintConfig, find_root, load_config
from dispatchguard.lint.discovery import SourceFile, is_excluded, relative_path
from dispatchguard.lint.engine import project_files
from dispatchguard.lint.index import summarise
from dispatchguard.lint.noqa import file_suppresses, file_suppression, line_suppresses
from dispatchguard.lint.parsing import file_stat, quiet_parsing
from dispatchguard.lint.project import Project

_CONFIGS: dict[Path, LintConfig] = {}
_PROJECTS: dict[tuple[str, str], Project] = {}


def config_for(path: Path) -> LintConfig:
    """The configuration of the project a file belongs to, read once per directory."""
    directory = path.parent
    config = _CONFIGS.get(directory)
    if config is None:
        cwd = Path.cwd()
        # Without a project marker above the file, flake8's working directory is the checked
        # paths' common parent (flake8 is given paths relative to it), as for `dispatchguard check .`.
        unmarked = find_root([directory]).kind == "parent"
        config = load_config([cwd] if unmarked and cwd in (directory, *directory.parents) else [directory])
        _CONFIGS[directory] = config
    return config


def project_for(config: LintConfig) -> Project:
    """The project of a configuration, set up once per process; what ``dispatchguard check``
    cached of unchanged files spares parsing them."""
    key = (str(config.root), config.fingerprint())
    project = _PROJECTS.get(key)
    if project is None:
        files, _, _ = project_files([config.root], config)
        project = Project(config, files)
        cache = ResultCache(project.root / CACHE_DIRNAME, config.fingerprint())
        cache.load()
        for file_key, entry in cache.entries.items():
            file = project.files.get(file_key)
            if file is not None and entry.parsed and entry.stat == file_stat(file.path):
                project.known[file_key] = (entry.summary, entry.error)
        _PROJECTS[key] = project
    return project


def check_buffer(project: Project, path: Path, data: bytes, tree: ast.Module) -> list[list[Any]]:
    """Findings of a file's content as flake8 has it (``# noqa`` left to flake8)."""
    key = path.as_posix()
    file = project.files.get(key)
    if file is None:
        file = SourceFile(path, relative_path(path, project.root), key)
    summary = summarise(tree)
    if project.known.get(key, (None,))[0] != summary:  # not what the project knew of it: an editor
        project.known[key] = (summary, None)
        project.infos.pop(key, None)
        project.resolver.forget()
    if key not in project.module_names:
        project.register(file)
    return check_tree(project, file, data, tree, apply_noqa=False).findings


def _noqa_only_we_read(line: str, code: str) -> bool:
    """A ``# noqa`` spelling that suppresses ``code`` in the CLI but that flake8's own parser misses
    (``#noqa:DG101``, ``# noqa : DG101``); flake8 applies the spellings it reads itself."""
    return line_suppresses(line, code) and FLAKE8_NOQA.search(line) is None


class Plugin:
    name = "dispatchguard"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        if self.filename in ("-", "stdin") or not isinstance(self.tree, ast.Module):
            path = Path.cwd() / "stdin.py"
        else:
            path = Path(self.filename).absolute()
        try:
            config = config_for(path)
        except ConfigError as exc:
            yield 1, 0, f"DG001 cannot check this file: {exc}", type(self)
            return
        if is_excluded(path, config, config.root):
            return
        data = "".join(self.lines).encode("utf-8")
        with quiet_parsing():
            project = project_for(config)
            findings = check_buffer(project, path, data, self.tree)  # type: ignore[arg-type]
        directives = file_suppression(data)
        for line, col, _end_line, _end_col, code, message, _ in findings:
            if file_suppresses(directives, code):
                continue
            if 0 < line <= len(self.lines) and _noqa_only_we_read(self.lines[line - 1], code):
                continue
            yield line, col - 1, f"{code} {message}", type(self)
