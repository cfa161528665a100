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
    """Escape a command's message: ``%``, CR and LF as ``%25``, ``%0D`` and ``%0A``."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command's property value: as ``escape_data``, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_finding(finding: Any) -> str:
    """Return the finding's ``::error`` workflow command, without a newline. A notebook's finding is
    placed on line 1, column 1 of the file; its cell and line are in the message."""
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
    """Return one ``::error`` annotation line per unsilenced finding; ``''`` when none."""
    return "".join(format_finding(f) + "\n" for f in findings if not is_hidden(f, context))
