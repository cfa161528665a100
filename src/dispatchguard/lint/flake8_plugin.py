"""flake8 front end: the same core and ``[tool.dispatchguard]`` configuration as the CLI.

flake8 creates one ``Plugin`` per file and hands it the parsed tree. The project index (every
module's summary and the resolver) is built once per process and per configuration, reusing the
on-disk cache of ``dispatchguard check``, so a flake8 run never re-indexes the project per file.
flake8 applies its own ``--select``/``--ignore``/``--per-file-ignores`` and ``# noqa``; the
configuration's ``select``/``ignore``/``per-file-ignores`` and the file-level
``# dispatchguard: noqa`` apply too, so both front ends report the same findings.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dispatchguard import __version__
from dispatchguard.lint.config import ConfigError, LintConfig, load_config
from dispatchguard.lint.engine import Project, SourceFile, _relpath, build_project
from dispatchguard.lint.index import summarise
from dispatchguard.lint.noqa import file_suppresses, file_suppression

_CONFIGS: dict[Path, LintConfig] = {}
_PROJECTS: dict[tuple[str, str], Project] = {}


def _config_for(path: Path) -> LintConfig:
    directory = path.parent
    config = _CONFIGS.get(directory)
    if config is None:
        config = load_config([directory])
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
            if not file_suppresses(directives, code):
                yield line, col - 1, f"{code} {message}", type(self)
