"""flake8 front end: the same core and ``[tool.dispatchguard]`` configuration as the CLI.

flake8 creates one ``Plugin`` per file and hands it the parsed tree. The project index (every
module's summary and the resolver) is built once per process and per configuration, reusing the
on-disk cache of ``dispatchguard check``, so a flake8 run never re-indexes the project per file.
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
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flake8.defaults import NOQA_INLINE_REGEXP as FLAKE8_NOQA

from dispatchguard import __version__
from dispatchguard.lint.config import ConfigError, LintConfig, find_root, load_config
from dispatchguard.lint.discovery import is_excluded
from dispatchguard.lint.engine import Project, SourceFile, _relpath, build_project
from dispatchguard.lint.index import summarise
from dispatchguard.lint.noqa import file_suppresses, file_suppression, line_suppresses

_CONFIGS: dict[Path, LintConfig] = {}
_PROJECTS: dict[tuple[str, str], Project] = {}


def _config_for(path: Path) -> LintConfig:
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
    """The project index for a configuration, built once per process."""
    key = (str(config.root), config.fingerprint())
    project = _PROJECTS.get(key)
    if project is None:
        project = build_project(config)
        _PROJECTS[key] = project
    return project


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
            config = _config_for(path)
        except ConfigError as exc:
            yield 1, 0, f"DG001 cannot check this file: {exc}", type(self)
            return
        if is_excluded(path, config, config.root):
            return
        project = project_for(config)
        data = "".join(self.lines).encode("utf-8")
        file = SourceFile(path, _relpath(path, project.root), path.as_posix())
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        findings = project.cached_findings(file.key, digest)  # from `dispatchguard check`'s cache
        if findings is None:
            info = project.infos.get(file.key)
            if info is not None and project.digests.get(file.key) != digest:
                # the buffer differs from the file on disk (an editor): index what flake8 was given
                info = project.add(file, summarise(self.tree), project.package_dirs, replace=True)
                project.digests[file.key] = digest
                project.cached.pop(file.key, None)
            findings, _, _ = project.check(file, data, self.tree, info, apply_noqa=False)
        directives = file_suppression(data)
        for line, col, _end_line, _end_col, code, message, _ in findings:
            if file_suppresses(directives, code):
                continue
            if 0 < line <= len(self.lines) and _noqa_only_we_read(self.lines[line - 1], code):
                continue
            yield line, col - 1, f"{code} {message}", type(self)
