"""Output formats of ``dispatchguard check``: one small module per format.

Every formatter is ``render(findings, context) -> str``. ``findings`` are the core's ``Finding``
objects in the core's order; ``context`` carries what some formats need beyond the findings (the
rule table, the current directory). Formatters never print: the caller writes the text.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: ``--output-format`` name -> module. ``concise`` is ruff's name for what ``text`` (the default)
#: prints, so both name one module.
FORMATS = {
    "text": "dispatchguard.cli.output.text",
    "concise": "dispatchguard.cli.output.text",
    "full": "dispatchguard.cli.output.full",
    "grouped": "dispatchguard.cli.output.grouped",
    "json": "dispatchguard.cli.output.json_format",
    "json-lines": "dispatchguard.cli.output.json_lines",
    "github": "dispatchguard.cli.output.github",
    "gitlab": "dispatchguard.cli.output.gitlab",
    "junit": "dispatchguard.cli.output.junit",
    "pylint": "dispatchguard.cli.output.pylint",
    "rdjson": "dispatchguard.cli.output.rdjson",
    "sarif": "dispatchguard.cli.output.sarif",
}

#: The project's home, for the tool descriptions of SARIF and rdjson.
PROJECT_URL = "https://github.com/dispatchguard/dispatchguard"


@dataclass(frozen=True)
class Context:
    """What a formatter may need besides the findings."""

    rules: Mapping[str, Any] = field(default_factory=dict)  # code -> Rule (name, summary, message, url)
    cwd: str = "."  # absolute; finding paths are relative to it
    baselined: frozenset[int] = frozenset()  # ids of findings matched by the baseline
    show_suppressed: bool = False
    version: str = ""
    colour: bool = False  # ANSI colours (text format only; see style.use_colour)
    sources: Mapping[str, str] = field(default_factory=dict)  # path -> text of a buffer not on disk (stdin)


def is_hidden(finding: Any, context: Context) -> bool:
    """A finding that is silenced by `# noqa` or matched by the baseline."""
    return bool(finding.suppressed) or id(finding) in context.baselined


def render(fmt: str, findings: Sequence[Any], context: Context) -> str:
    """Return the findings in the format ``fmt``, a key of ``FORMATS`` (KeyError otherwise)."""
    return importlib.import_module(FORMATS[fmt]).render(findings, context)
