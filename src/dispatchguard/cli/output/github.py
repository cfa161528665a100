"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

``::error title=...,file=...,line=...,col=...,endLine=...,endColumn=...::message``. Property values
and the message are escaped as the Actions runner expects (``%``, CR and LF everywhere; ``:`` and
``,`` in property values too), so a message can never end the command early or inject another one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden
from dispatchguard.cli.output.text import position


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_finding(finding: Any) -> str:
    # a notebook's lines are not the file's: its annotation goes on the file's first line (as
    # ruff's), the cell and line in the message
    in_file = getattr(finding, "cell", None) is None
    props = {
        "title": f"dispatchguard ({finding.code})",
        "file": finding.path,
        "line": finding.line if in_file else 1,
        "col": finding.col if in_file else 1,
        "endLine": finding.end_line if in_file else 1,
        "endColumn": finding.end_col if in_file else 1,
    }
    prop_text = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items())
    message = f"{finding.path}:{position(finding)}: {finding.code} {finding.message}"
    return f"::error {prop_text}::{escape_data(message)}"


def render(findings: Sequence[Any], context: Context) -> str:
    return "".join(format_finding(f) + "\n" for f in findings if not is_hidden(f, context))
