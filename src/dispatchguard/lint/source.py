"""Checking source text in memory: snippets for tests and tools (:func:`check_source`), and an
editor's buffer as a file of the project on disk (:func:`check_buffer`, for ``--stdin-filename``,
the language server and the flake8 plugin).

The editor path sets a project up once per process and configuration from the file list alone
(module names, no parsing); checking a buffer loads only the modules its names lead to, from the
on-disk cache of ``dispatchguard check`` when it has them, else by parsing them. So a buffer costs
little more than itself, however large the project. A buffer that differs from the file on disk
(an unsaved editor buffer, stdin) is what the project knows of that module from then on.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path

from dispatchguard.lint.cache import CACHE_DIRNAME, CachedFinding, know_cached
from dispatchguard.lint.checking import check_tree, error_result, rules_for, skipped_result
from dispatchguard.lint.config import LintConfig, find_root, load_config
from dispatchguard.lint.discovery import SourceFile, display_path, relative_path
from dispatchguard.lint.engine import project_files
from dispatchguard.lint.environment import find_environment
from dispatchguard.lint.findings import Finding
from dispatchguard.lint.index import summarise
from dispatchguard.lint.notebook import Notebook, is_notebook, load_notebook
from dispatchguard.lint.parsing import parse_bytes, quiet_parsing, readable_source
from dispatchguard.lint.project import Project, WordSet, may_have_findings


def check_source(
    source: str, config: LintConfig | None = None, *, path: str = "snippet.py", extra: dict[str, str] | None = None
) -> list[Finding]:
    """Check one source text as ``path`` under the config root (``extra``: other modules of the
    project, relpath -> source), exactly as ``check_paths`` would check such a project."""
    config = config or LintConfig()
    sources = {**(extra or {}), path: source}
    with quiet_parsing():
        project = Project(config, [SourceFile(config.root / rel, rel, rel) for rel in sources])
        for rel, text in sources.items():
            tree, error = parse_bytes(text.encode("utf-8"))
            project.known[rel] = (summarise(tree) if tree is not None else None, error)

        def scan(words: WordSet, previous: WordSet | None) -> Iterator[tuple[str, bytes | None]]:
            for rel, text in sources.items():
                if rel not in project.infos and words.named_in(text.encode("utf-8")):
                    yield rel, None

        words = project.close_words(scan)
        file, data = project.files[path], source.encode("utf-8")
        tree, error = parse_bytes(data)
        walk = rules_for(project, path) and may_have_findings(data, words)
        if tree is None and (walk or not readable_source(data)):
            result = error_result(project, file, data, error or [1, 1, "syntax error"])
        elif tree is not None and walk:
            result = check_tree(project, file, data, tree)
        else:  # as check_paths: a file that names no tool word is not walked, nor held to its syntax
            result = skipped_result(project, file, data)
    return [Finding(path, *item[:2], item[4], item[5], item[2], item[3], item[6]) for item in result.findings]


# ------------------------------------------------------------------------------------------------
# the editor path

_CONFIGS: dict[Path, LintConfig] = {}
_PROJECTS: dict[tuple[str, str, str], Project] = {}
_WORDS: dict[tuple[str, str, str], WordSet] = {}  # the tool words of the last `dispatchguard check` run


def _project_key(config: LintConfig) -> tuple[str, str, str]:
    """A project set up for an editor is valid for its configuration and installed environment:
    a package installed during an editor session sets the project up again."""
    environment, _ = find_environment(Path(config.root), config.python)
    return str(config.root), config.fingerprint(), repr(environment.stamp()) if environment is not None else ""


def editor_config(path: Path) -> LintConfig:
    """The configuration of the project a file belongs to, read once per directory and process.

    Without a project marker above the file, the root is the current directory when the file is
    below it (an editor's workspace, flake8's checked paths' common parent), as for
    ``dispatchguard check .``."""
    directory = path.parent
    config = _CONFIGS.get(directory)
    if config is None:
        cwd = Path.cwd()
        unmarked = find_root([directory]).kind == "parent"
        config = load_config([cwd] if unmarked and cwd in (directory, *directory.parents) else [directory])
        _CONFIGS[directory] = config
    return config


def editor_project(config: LintConfig) -> Project:
    """The project of a configuration, set up once per process; what ``dispatchguard check``
    cached of unchanged files spares parsing them."""
    key = _project_key(config)
    project = _PROJECTS.get(key)
    if project is None:
        files, _, _ = project_files([config.root], config, nested=True)  # the CLI's project, not more
        project = Project(config, files)
        cache = know_cached(project, project.root / CACHE_DIRNAME)
        _WORDS[key] = cache.words or project.seeds
        _PROJECTS[key] = project
    return project


def forget_editor_state() -> None:
    """Drop the configurations and projects set up so far (a configuration file or the files of
    the project changed): the next buffer sets them up again."""
    _CONFIGS.clear()
    _PROJECTS.clear()
    _WORDS.clear()


def file_changed(path: Path) -> None:
    """A file of the projects set up so far changed on disk (or appeared, or went): what they knew
    of it is dropped, so the next buffer that leads to it reads it again."""
    path = Path(path).absolute()
    key = path.as_posix()
    for project in _PROJECTS.values():
        if key not in project.files and path.suffix in (".py", ".pyi") and project.root in path.parents:
            project.register(SourceFile(path, relative_path(path, project.root), key))
        project.unload(key)


def buffer_findings(
    project: Project, path: Path, data: bytes, tree: ast.Module, *, apply_noqa: bool = True
) -> list[CachedFinding]:
    """Findings of a file's content as an editor has it (with ``apply_noqa`` False, ``# noqa`` is
    left to the caller: flake8 applies its own)."""
    file = _buffer_file(project, path)
    summary = summarise(tree)
    if project.known.get(file.key, (None,))[0] != summary:  # not what the project knew of it
        project.unload(file.key)
        project.known[file.key] = (summary, None)
    return check_tree(project, file, data, tree, apply_noqa=apply_noqa).findings


def _buffer_file(project: Project, path: Path) -> SourceFile:
    key = path.as_posix()
    file = project.files.get(key)
    if file is None:
        file = SourceFile(path, relative_path(path, project.root), key)
    if key not in project.module_names:
        project.register(file)
    return file


def check_buffer(path: str | Path, data: bytes, config: LintConfig | None = None) -> list[Finding]:
    """Check ``data`` as the file ``path`` (which need not exist) of its project, with what the
    project knows of its other files; ``# noqa`` applied. Paths are shown as ``check_paths`` shows
    them (relative to the current directory when below it). For a notebook (``path`` ending in
    ``.ipynb``), ``data`` is its JSON: its code cells are checked as one module and the findings
    are in cells (:class:`~dispatchguard.lint.notebook.NotebookError` when it is not a notebook).

    A buffer that cannot be decoded is DG001; a syntax error is DG001 only when the buffer names a
    tool word (the configured ones, and those of the project that the last ``dispatchguard check``
    cached), as ``check_paths`` leaves the others to the project's Python linter."""
    path = Path(path).absolute()
    config = config or editor_config(path)
    shown = display_path(path, Path.cwd())
    notebook = load_notebook(data) if is_notebook(path) else None
    if notebook is not None:
        data = notebook.source.encode("utf-8")
    with quiet_parsing():
        project = editor_project(config)
        tree, error = parse_bytes(data)
        if tree is None:
            file = _buffer_file(project, path)
            words = _WORDS[_project_key(config)]
            if readable_source(data) and not (rules_for(project, file.relpath) and may_have_findings(data, words)):
                return []
            findings = error_result(project, file, data, error or [1, 1, "syntax error"]).findings
        else:
            findings = buffer_findings(project, path, data, tree)
    out = [Finding(shown, *item[:2], item[4], item[5], item[2], item[3], item[6]) for item in findings]
    return out if notebook is None else [_in_cell(notebook, finding) for finding in out]


def _in_cell(notebook: Notebook, finding: Finding) -> Finding:
    cell, line = notebook.position(finding.line)
    end_cell, end_line = notebook.position(finding.end_line)
    if end_cell != cell:  # never past the cell
        end_line, end_col = line, finding.col
    else:
        end_col = finding.end_col
    return dataclasses.replace(finding, cell=cell, line=line, end_line=end_line, end_col=end_col)
