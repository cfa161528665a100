"""pylint's parseable format, as ruff writes it: ``path:line: [CODE] message`` (what Jenkins'
warnings plugin and other pylint readers parse)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dispatchguard.cli.output import Context, is_hidden


def render(findings: Sequence[Any], context: Context) -> str:
    """Return one ``path:line: [CODE] message`` line per unsilenced finding; a notebook's finding is
    put on line 1 with ``cell N:line:`` before the message."""
    return "".join(
        f"{f.path}:{f.line}: [{f.code}] {f.message}\n"
        if f.cell is None
        else f"{f.path}:1: [{f.code}] cell {f.cell}:{f.line}: {f.message}\n"  # a notebook: its first line, as ruff
        for f in findings
        if not is_hidden(f, context)
    )
