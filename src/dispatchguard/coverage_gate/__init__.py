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
The package exports the gate's entry points and result types lazily (PEP 562), so the
``dispatchguard`` router's ``import dispatchguard.coverage_gate.arguments`` loads none of them.
"""

from __future__ import annotations

from dispatchguard.lazy import lazy_exports

#: name -> the module of this package that defines it
_EXPORTS = {
    "GateError": "errors",
    "GateOptions": "settings",
    "resolve_options": "settings",
    "GateResult": "results",
    "FileResult": "results",
    "measure": "measure",
    "render": "report",
    "run_gate": "cli",
    "run_args": "cli",
    "main": "cli",
}
__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(globals(), {name: f"{__name__}.{home}" for name, home in _EXPORTS.items()})
