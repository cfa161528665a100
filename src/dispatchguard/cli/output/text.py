"""``path:line:col: CODE message`` (``path:cell N:line:col: ...`` in a notebook, as ruff), one finding
per line, in the core's sorted order (the path in bold and the code in bold red when
``context.colour`` is on)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden
from dispatchguard.cli.output.style import BOLD, CYAN, DIM, RED, paint


def position(finding: Any) -> str:
    """``line:col``, or ``cell N:line:col`` in a notebook (ruff's notebook positions)."""
    cell = getattr(finding, "cell", None)
    return f"{'' if cell is None else f'cell {cell}:'}{finding.line}:{finding.col}"


def format_finding(finding: Any, colour: bool = False) -> str:
    """Return ``path:line:col: CODE message`` (``cell N:`` before the line in a notebook)."""
    path = paint(finding.path, BOLD, enabled=colour)
    where = paint(f"{position(finding)}:", CYAN, enabled=colour)
    code = paint(finding.code, BOLD, RED, enabled=colour)
    return f"{path}:{where} {code} {finding.message}"


def render(findings: Sequence[Any], context: Context) -> str:
    """Return one line per unsilenced finding; silenced ones only with ``show_suppressed``, marked
    ``[noqa]`` or ``[baseline]``. ``''`` when nothing is shown."""
    lines = []
    colour = context.colour
    for finding in findings:
        if finding.suppressed:
            if context.show_suppressed:
                lines.append(format_finding(finding, colour) + paint("  [noqa]", DIM, enabled=colour))
        elif id(finding) in context.baselined:
            if context.show_suppressed:
                lines.append(format_finding(finding, colour) + paint("  [baseline]", DIM, enabled=colour))
        else:
            lines.append(format_finding(finding, colour))
    return "".join(line + "\n" for line in lines)


def render_statistics(findings: Sequence[Any], context: Context) -> str:
    """One row per code with a count, most frequent first (ruff's `--statistics` layout)."""
    rows = []
    for code, count in count_by_code(findings, context):
        rows.append(f"{count:>5}\t{code}\t{context.rules[code].name}")
    return "".join(row + "\n" for row in rows)


def count_by_code(findings: Sequence[Any], context: Context) -> list[tuple[str, int]]:
    """Return ``(code, count)`` for the unsilenced findings, by count descending, then by code."""
    counts: dict[str, int] = {}
    for finding in findings:
        if not is_hidden(finding, context):
            counts[finding.code] = counts.get(finding.code, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
