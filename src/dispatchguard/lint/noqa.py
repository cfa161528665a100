"""``# noqa`` comments (flake8's syntax and semantics) and the file-level ``# dispatchguard: noqa``."""

from __future__ import annotations

import re

_CODES = r"[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*"
# flake8's own pattern: "# noqa" optionally followed by ":" and a list of codes
LINE_NOQA = re.compile(rf"#\s*noqa(?::[\s]?(?P<codes>{_CODES}))?", re.IGNORECASE)
FILE_NOQA = re.compile(
    rb"^[ \t]*#[ \t]*dispatchguard[ \t]*:[ \t]*noqa(?:[ \t]*:[ \t]*(?P<codes>[A-Za-z]+[0-9]+(?:[, \t]+[A-Za-z]+[0-9]+)*))?[ \t]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
_SPLIT = re.compile(r"[,\s]+")


def _matches(codes: str | None, code: str) -> bool:
    if codes is None:
        return True
    return any(code.startswith(c.upper()) for c in _SPLIT.split(codes.strip()) if c)


def line_suppresses(line: str, code: str) -> bool:
    """Whether a physical line's ``# noqa`` comment suppresses ``code``."""
    if "#" not in line:
        return False
    match = LINE_NOQA.search(line)
    return match is not None and _matches(match.group("codes"), code)


def file_suppression(data: bytes) -> list[str | None]:
    """The code lists of every file-level ``# dispatchguard: noqa`` (None entries: all codes)."""
    if b"dispatchguard" not in data:
        return []
    out: list[str | None] = []
    for match in FILE_NOQA.finditer(data):
        codes = match.group("codes")
        out.append(codes.decode() if codes else None)
    return out


def file_suppresses(directives: list[str | None], code: str) -> bool:
    return any(_matches(codes, code) for codes in directives)
