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

FORMATS = {
    "text": "dispatchguard.cli.output.text",
    "json": "dispatchguard.cli.output.json_format",
    "github": "dispatchguard.cli.output.github",
    "sarif": "dispatchguard.cli.output.sarif",
}

# Where the rule pages (docs/rules/<CODE>.md) are published; used for the `url` of JSON findings
# and the `helpUri` of SARIF rules.
PROJECT_URL = "https://github.com/dispatchguard/dispatchguard"
DOCS_URL = PROJECT_URL + "/blob/main/docs/rules/{code}.md"


def rule_url(code: str) -> str:
    return DOCS_URL.format(code=code)


@dataclass(frozen=True)
class Context:
    """What a formatter may need besides the findings."""

    rules: Mapping[str, Any] = field(default_factory=dict)  # code -> rule module (CODE, NAME, ...)
    cwd: str = "."  # absolute; finding paths are relative to it
    baselined: frozenset[int] = frozenset()  # ids of findings matched by the baseline
    show_suppressed: bool = False
    version: str = ""
    colour: bool = False  # ANSI colours (text format only; see style.use_colour)


def is_hidden(finding: Any, context: Context) -> bool:
    """A finding that is silenced by `# noqa` or matched by the baseline."""
    return bool(finding.suppressed) or id(finding) in context.baselined


def render(fmt: str, findings: Sequence[Any], context: Context) -> str:
    return importlib.import_module(FORMATS[fmt]).render(findings, context)
