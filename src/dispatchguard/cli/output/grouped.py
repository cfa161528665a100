"""ruff's ``grouped`` format: the findings under their file, ``line:col CODE message``, with the
positions aligned and a blank line after each file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden
from dispatchguard.cli.output.style import BOLD, RED, paint
from dispatchguard.cli.output.text import position


def format_group(path: str, findings: Sequence[Any], colour: bool = False) -> str:
    """Return ``path:`` in bold, one ``line:col CODE message`` row per finding with the positions
    aligned, then a blank line. ``findings`` must not be empty."""
    row_width = max(len(position(f).rpartition(":")[0]) for f in findings)
    col_width = max(len(str(f.col)) for f in findings)
    lines = [paint(path, BOLD, enabled=colour) + ":"]
    for f in findings:
        code = paint(f.code, BOLD, RED, enabled=colour)
        row = position(f).rpartition(":")[0]  # the line, after its cell in a notebook
        lines.append(f"  {row:>{row_width}}:{f.col:<{col_width}} {code} {f.message}")
    return "\n".join(lines) + "\n\n"


def render(findings: Sequence[Any], context: Context) -> str:
    """Return the unsilenced findings under their file (first-seen order); ``''`` if none."""
    groups: dict[str, list[Any]] = {}
    for finding in findings:
        if not is_hidden(finding, context):
            groups.setdefault(finding.path, []).append(finding)
    return "".join(format_group(path, group, context.colour) for path, group in groups.items())
