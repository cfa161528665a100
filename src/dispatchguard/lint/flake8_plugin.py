"""flake8 front end: the same core and ``[tool.dispatchguard]`` configuration as the CLI.

flake8 creates one ``Plugin`` per file and hands it the parsed tree, which goes down the editor
path of :mod:`dispatchguard.lint.source` (the project set up once per process, modules loaded as
the buffer's names lead to them).

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
from dispatchguard.lint.config import ConfigError
from dispatchguard.lint.discovery import is_excluded
from dispatchguard.lint.noqa import file_suppresses, file_suppression, line_suppresses
from dispatchguard.lint.parsing import quiet_parsing
from dispatchguard.lint.source import buffer_findings, editor_config, editor_project


def _noqa_only_we_read(line: str, code: str) -> bool:
    """A ``# noqa`` spelling that suppresses ``code`` in the CLI but that flake8's own parser misses
    (``#noqa:DG101``, ``# noqa : DG101``); flake8 applies the spellings it reads itself."""
    return line_suppresses(line, code) and FLAKE8_NOQA.search(line) is None


class Plugin:
    """The flake8 extension ``DG``: flake8 creates one per file it checks and calls :meth:`run`.

    The file is checked with its project's ``[tool.dispatchguard]`` configuration as the CLI would
    check it; the findings come back as flake8's ``(line, col, message, type)`` tuples.
    """

    name = "dispatchguard"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        """The findings of flake8's file as ``(line, 0-based col, "DGnnn message", type)``.

        The buffer is checked by the editor path; an excluded file gives nothing, a configuration error
        one DG001 at line 1. File-wide ``# noqa`` is applied here; flake8 applies line ``# noqa``
        itself, except the spellings it does not read, which are applied here too.
        """
        if self.filename in ("-", "stdin") or not isinstance(self.tree, ast.Module):
            path = Path.cwd() / "stdin.py"
        else:
            path = Path(self.filename).absolute()
        try:
            config = editor_config(path)
        except ConfigError as exc:
            yield 1, 0, f"DG001 cannot check this file: {exc}", type(self)
            return
        if is_excluded(path, config, config.root):
            return
        data = "".join(self.lines).encode("utf-8")
        with quiet_parsing():
            project = editor_project(config)
            findings = buffer_findings(project, path, data, self.tree, apply_noqa=False)  # type: ignore[arg-type]
        directives = file_suppression(data)
        for line, col, _end_line, _end_col, code, message, _ in findings:
            if file_suppresses(directives, code):
                continue
            if 0 < line <= len(self.lines) and _noqa_only_we_read(self.lines[line - 1], code):
                continue
            yield line, col - 1, f"{code} {message}", type(self)
