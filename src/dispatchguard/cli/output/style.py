"""Colours on a terminal, the conventions of NO_COLOR (https://no-color.org) and FORCE_COLOR
(https://force-color.org), in the order CPython's own tracebacks use: a non-empty ``NO_COLOR``
turns colours off, else a non-empty ``FORCE_COLOR`` turns them on (even into a pipe or a file),
else they are on when the stream is a terminal and ``TERM`` is not ``dumb``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

BOLD = "\033[1m"
RED = "\033[31m"
CYAN = "\033[36m"
DIM = "\033[2m"
RESET = "\033[0m"


def use_colour(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Return whether to colour ``stream``: NO_COLOR, then FORCE_COLOR, then a non-dumb tty."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    if env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, *styles: str, enabled: bool = True) -> str:
    """Return ``text`` in ``styles`` then a reset; unchanged if not enabled or no style given."""
    return f"{''.join(styles)}{text}{RESET}" if enabled and styles else text
