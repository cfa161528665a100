"""ruff's ``full`` format: each finding with the source around it and the offending range
underlined, for reading in a terminal or a CI log.

    DG101 direct tool call `tool.run(...)` bypasses the dispatcher: ...
     --> app/agent.py:6:12
      |
    4 | def plan(query):
    5 |     tool = Search()
    6 |     return tool.run(query=query)
      |            ^^^^^^^^^^^^^^^^^^^^^

Two lines of context on each side, blank edge lines left out. A file that cannot be read shows
the header and the location only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden
from dispatchguard.cli.output.source import Sources
from dispatchguard.cli.output.style import BOLD, CYAN, RED, paint
from dispatchguard.cli.output.text import position

CONTEXT_LINES = 2


def frame(finding: Any, lines: list[str]) -> list[str]:
    """The code frame of ``finding`` in ``lines`` (the file's lines)."""
    first = max(1, finding.line - CONTEXT_LINES)
    last = min(len(lines), finding.line + CONTEXT_LINES)
    while first < finding.line and not lines[first - 1].strip():
        first += 1
    while last > finding.line and not lines[last - 1].strip():
        last -= 1
    width = len(str(last))
    gutter = " " * width + " |"
    text = lines[finding.line - 1]
    end = finding.end_col if finding.end_line == finding.line else len(text) + 1
    carets = " " * (finding.col - 1) + "^" * max(1, end - finding.col)
    shown = [gutter]
    for number in range(first, last + 1):
        shown.append(f"{number:>{width}} | {lines[number - 1]}".rstrip())
        if number == finding.line:
            shown.append(f"{gutter} {carets}")
    if last > finding.line:
        shown.append(gutter)
    return shown


def format_finding(finding: Any, sources: Sources, colour: bool = False) -> str:
    """Return the finding's header, ``-->`` location and code frame, ending with a newline; only the
    header and location when the file (or cell) cannot be read or the line is outside it."""
    lines = sources.lines(finding.path, getattr(finding, "cell", None)) or []
    code_frame = frame(finding, lines) if 0 < finding.line <= len(lines) else []
    width = len(code_frame[0]) - 2 if code_frame else 1  # the frame's gutter is the number column and " |"
    header = f"{paint(finding.code, BOLD, RED, enabled=colour)} {paint(finding.message, BOLD, enabled=colour)}"
    where = paint("-->", CYAN, enabled=colour)
    shown = [header, f"{' ' * width}{where} {finding.path}:{position(finding)}", *code_frame]
    return "\n".join(shown) + "\n"


def render(findings: Sequence[Any], context: Context) -> str:
    """Return each unsilenced finding with its code frame, a blank line between; ``''`` if none."""
    sources = Sources(context)
    return "\n".join(format_finding(f, sources, context.colour) for f in findings if not is_hidden(f, context))
