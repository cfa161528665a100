"""The coverage gate: fail when critical modules drop below a coverage threshold.

``dispatchguard coverage --fail-under 90 --include 'src/**/tool_dispatcher.py'`` reads a coverage.py
data file through coverage's public API, reports the files matching the patterns (one row per file:
statements, branches, missed lines, percentage) and fails below the threshold.

Defaults come from ``[tool.dispatchguard.coverage]`` in the nearest ``pyproject.toml``::

    [tool.dispatchguard.coverage]
    fail-under = 90
    include = ["src/**/tool_dispatcher.py", "src/**/models.py"]
    data-file = ".coverage"      # relative to the pyproject.toml
    per-file = false             # true: every file must reach fail-under, not just the total

Patterns are globs: ``*`` and ``?`` stay within one path segment, ``**`` spans any number of
segments (including none). Patterns given on the command line are relative to the current
directory; those from ``pyproject.toml`` are relative to the file's directory. A file that matches
a pattern on disk but was never imported during the test run counts as 0% covered: a critical
module nobody imports is exactly what the gate is for.

Exit codes: 0 at or above the threshold, 1 below, 2 on errors (no data file, nothing matched,
bad configuration). The package imports ``coverage`` only when the gate runs.

The gate is split by concern: :mod:`.settings` (options over the ``[tool.dispatchguard.coverage]``
defaults that :mod:`dispatchguard.lint.config` reads), :mod:`.matching` (selecting files with the
patterns of :mod:`dispatchguard.globs` and the checker's walker), :mod:`.measure`
(reading the coverage data), :mod:`.results`, :mod:`.report` (the table) and :mod:`.cli`.
This package re-exports their public names, so ``from dispatchguard.coverage_gate import ...``
keeps working.
"""

from __future__ import annotations

from dispatchguard.coverage_gate.cli import add_arguments, main, run_args, run_gate
from dispatchguard.coverage_gate.errors import GateError
from dispatchguard.coverage_gate.matching import (
    display_path,
    files_on_disk,
    match_files,
)
from dispatchguard.coverage_gate.measure import measure
from dispatchguard.coverage_gate.report import format_percent, render
from dispatchguard.coverage_gate.results import FileResult, GateResult, format_missing
from dispatchguard.coverage_gate.settings import GateOptions, resolve_options

__all__ = [
    "FileResult",
    "GateError",
    "GateOptions",
    "GateResult",
    "add_arguments",
    "display_path",
    "files_on_disk",
    "format_missing",
    "format_percent",
    "main",
    "match_files",
    "measure",
    "render",
    "resolve_options",
    "run_args",
    "run_gate",
]
