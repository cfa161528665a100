"""Suppression comments: one grammar for the CLI and the flake8 plugin.

Line level, at the end of the line where a finding starts (flake8's and ruff's spellings, spaces
optional, any case)::

    x()  # noqa                  every code
    x()  #noqa:DG101             DG101 only (a prefix such as DG1 works too)
    x()  # NOQA: DG101, DG102    several codes, separated by commas and/or spaces

``# noqa:`` with no code after it suppresses every code, as flake8 reads it.

File level, on a line of its own anywhere in the file: ``# dispatchguard: noqa``, ``# ruff: noqa`` or
``# flake8: noqa`` suppress every DG finding of the file; followed by ``: DG101, DG103`` only those
codes (``=`` is accepted in place of the first ``:``, as flake8 does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE = r"[A-Za-z]+[0-9]+"
_CODE_LIST = rf"{_CODE}(?:(?:[ \t]*,[ \t]*|[ \t]+){_CODE})*"
LINE_NOQA = re.compile(rf"#[ \t]*noqa(?![A-Za-z0-9_-])(?:[ \t]*:[ \t]*(?P<codes>{_CODE_LIST})?)?", re.IGNORECASE)
FILE_NOQA = re.compile(
    rf"^[ \t]*#[ \t]*(?P<tool>dispatchguard|ruff|flake8)[ \t]*[:=][ \t]*noqa(?![A-Za-z0-9_-])"
    rf"(?:[ \t]*:[ \t]*(?P<codes>{_CODE_LIST}))?[ \t,]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
_SPLIT = re.compile(r"[,\s]+")
_FILE_TOOLS = (b"dispatchguard", b"ruff", b"flake8")


@dataclass(frozen=True)
class Noqa:
    """A parsed ``# noqa`` comment: ``codes`` is None for every code. ``start``/``end`` are the
    0-based character offsets of the directive in its line (where a fix would edit it)."""

    codes: tuple[str, ...] | None
    start: int
    end: int

    def suppresses(self, code: str) -> bool:
        """Whether this directive covers ``code`` (no codes: every code; listed codes match as prefixes)."""
        return codes_match(self.codes, code)


def _codes(text: str | None) -> tuple[str, ...] | None:
    if not text:
        return None
    return tuple(c.upper() for c in _SPLIT.split(text.strip()) if c)


def codes_match(codes: tuple[str, ...] | None, code: str) -> bool:
    """Whether a directive's code list (None: every code) covers ``code`` (codes are prefixes)."""
    return codes is None or any(code.startswith(c) for c in codes)


def parse_line(line: str) -> Noqa | None:
    """The ``# noqa`` directive of a physical line, or None."""
    if "#" not in line:
        return None
    match = LINE_NOQA.search(line)
    if match is None:
        return None
    return Noqa(_codes(match.group("codes")), match.start(), match.end())


def line_suppresses(line: str, code: str) -> bool:
    """Whether a physical line's ``# noqa`` comment suppresses ``code``."""
    directive = parse_line(line)
    return directive is not None and directive.suppresses(code)


def file_suppression(data: bytes) -> list[tuple[str, ...] | None]:
    """The code lists of every file-level directive of a file's bytes (None entries: all codes)."""
    lowered = data.lower()
    if not any(tool in lowered for tool in _FILE_TOOLS):
        return []
    text = data.decode("utf-8", errors="replace")
    return [_codes(match.group("codes")) for match in FILE_NOQA.finditer(text)]


def file_suppresses(directives: list[tuple[str, ...] | None], code: str) -> bool:
    """Whether the file-level directives found by :func:`file_suppression` cover ``code``."""
    return any(codes_match(codes, code) for codes in directives)


def with_codes(line: str, codes: list[str], reason: str = "") -> str:
    """``line`` (without its line ending) with a ``# noqa`` directive that covers ``codes``: an
    existing directive gains the codes it lacks (a blanket one is left alone), else
    ``  # noqa: CODES`` is appended, followed by `` REASON`` when one is given."""
    directive = parse_line(line)
    if directive is None:
        tail = f"  # noqa: {', '.join(codes)}" + (f" {reason}" if reason else "")
        return line.rstrip() + tail
    if directive.codes is None:
        return line
    missing = [c for c in codes if not directive.suppresses(c)]
    if not missing:
        return line
    text = line[directive.start : directive.end].rstrip()
    return line[: directive.start] + text + ", " + ", ".join(missing) + line[directive.start + len(text) :]


def without_codes(line: str, codes: list[str]) -> str:
    """``line`` (without its line ending) with ``codes`` taken out of its ``# noqa`` directive; the
    directive goes (with the spaces before it) when no code is left, text after it stays."""
    directive = parse_line(line)
    if directive is None or directive.codes is None:
        return line
    drop = {c.upper() for c in codes}
    kept = [c for c in directive.codes if c not in drop]
    if len(kept) == len(directive.codes):
        return line
    before, after = line[: directive.start], line[directive.end :]
    if kept:
        return before + f"# noqa: {', '.join(kept)}" + after
    after = after.lstrip()
    if after.startswith("#"):
        return before + after
    return before.rstrip() + (f"  # {after}" if after else "")
