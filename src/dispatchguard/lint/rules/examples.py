"""Writing a rule's VALID/INVALID examples as readable, indented source."""

from __future__ import annotations

import textwrap


def snippet(text: str) -> str:
    """A triple-quoted example as source text: dedented, without its first newline."""
    return textwrap.dedent(text).lstrip("\n")
