"""The names a file's class bodies may bind as members, read from its bytes without parsing (a
superset of what :func:`.index.class_members` reads), and the member names of a summary: the
project's index of toolkit members in runs without word rounds (:class:`.project.Project`)."""

from __future__ import annotations

import bisect
import re
from typing import Any

#: What a class body binds, in a file's bytes (:func:`member_names_in`).
_PUBLIC_NAME = rb"[A-Za-z][A-Za-z0-9_]*"
_PLAIN_DECORATOR = rb"(?:staticmethod|classmethod|property|abstractmethod|abc\.abstractmethod)[ \t\r]*\n"
_CLASS = re.compile(rb"class[ \t\\]")
_HEADER_TOKEN = re.compile(rb"[()\[\]{}:#\n\\]")
_BLANK_LINES = re.compile(rb"(?:[ \t]*(?:#[^\n]*)?\r?\n)*")
_INDENT = re.compile(rb"[ \t]*")
_ASSIGNED = re.compile(rb"(?:^|;)[ \t]*(" + _PUBLIC_NAME + rb")[ \t]*=(?!=)")
_AFTER_SEMICOLON = re.compile(rb";[ \t]*(" + _PUBLIC_NAME + rb")[ \t]*=(?!=)")
_ANY_DEF = re.compile(rb"^[ \t]+(?:async[ \t]+)?def[ \t]+(" + _PUBLIC_NAME + rb")", re.MULTILINE)
_ANY_ASSIGN = re.compile(rb"(?:^[ \t]+|[;:][ \t]*)(" + _PUBLIC_NAME + rb")[ \t]*=(?!=)", re.MULTILINE)
#: a line of a class body, after its indentation: an assignment, a decorator, a def
_BODY_LINE = rb"(?:(%s)[ \t]*=(?!=)|(@)(?!%s)|(?:async[ \t]+)?def[ \t]+(%s))" % (
    _PUBLIC_NAME,
    _PLAIN_DECORATOR,
    _PUBLIC_NAME,
)
_HEADER_BYTES = 4000  # a class header longer than this: the file's every indented name
_BODY_LINES: dict[bytes, re.Pattern[bytes]] = {}


def member_names_in(data: bytes) -> set[str]:
    """The public names (no ``_x``: a toolkit's member so named is never taken for a tool) that a
    class body of these bytes may bind as a member: a superset of what :func:`.index.class_members`
    reads, found without parsing.

    A class body runs from its header's colon (outside brackets) to the next ``def`` or ``class``
    at the class's own indentation (one inside a string, when an odd number of triple quotes comes
    before it, does not end it); its statements are its lines at the indentation of its first
    statement. There a member attribute is a name assigned at the line's start, a member method a
    ``def`` after a decorator other than the plain ones (``@staticmethod``, ``@classmethod``,
    ``@property``, ``@abstractmethod``). A one-line body's names are those assigned after the
    colon, and a name assigned after a semicolon anywhere counts. A header that cannot be read so
    (unbalanced brackets, longer than 4 000 bytes) gives every name assigned or defined on an
    indented line of the file."""
    if b"class" not in data:
        return set()
    bodies = _class_bodies(data)
    if bodies is None:
        names = set(_ANY_ASSIGN.findall(data)) | set(_ANY_DEF.findall(data))
    else:
        spans, names = bodies
        for indent, start, stop in spans:
            pattern = _BODY_LINES.get(indent)
            if pattern is None:
                pattern = _BODY_LINES[indent] = re.compile(rb"\n" + re.escape(indent) + _BODY_LINE)
            decorated = False
            for assigned, decorator, defined in pattern.findall(data, start, stop):
                if assigned:
                    names.add(assigned)
                elif decorator:
                    decorated = True
                elif decorated:  # the def a decorator other than the plain ones applies to
                    names.add(defined)
                    decorated = False
        if b";" in data:
            names.update(_AFTER_SEMICOLON.findall(data))
    return {name.decode() for name in names}


def _class_bodies(data: bytes) -> tuple[list[tuple[bytes, int, int]], set[bytes]] | None:
    """(each class body's indentation, start and end in ``data``; the names assigned in one-line
    class bodies), or None when a class header cannot be read (see :func:`member_names_in`)."""
    spans: list[tuple[bytes, int, int]] = []
    names: set[bytes] = set()
    ends: dict[bytes, list[int]] = {}  # an indentation -> where its def and class statements start
    end = len(data)
    for match in _CLASS.finditer(data):
        line = data.rfind(b"\n", 0, match.start()) + 1
        own = data[line : match.start()]
        if own.strip(b" \t"):
            continue  # not a statement's first word
        colon = _header_colon(data, match.end())
        if colon is None:
            return None
        if colon < 0:
            continue  # a line that only starts with the word
        newline = data.find(b"\n", colon)
        rest = data[colon : end if newline < 0 else newline]
        if rest.strip() and not rest.lstrip().startswith(b"#"):
            names.update(_ASSIGNED.findall(rest))  # ``class K: search = SearchTool()``
            continue
        if newline < 0:
            continue
        first = _BLANK_LINES.match(data, newline + 1).end()  # type: ignore[union-attr]
        indent = _INDENT.match(data, first).group()  # type: ignore[union-attr]
        if len(indent) > len(own):
            starts = ends.get(own)
            if starts is None:
                starts = ends[own] = _statement_starts(data, own)
            spans.append((indent, newline, _body_end(data, starts, newline)))
    return spans, names


def _header_colon(data: bytes, pos: int) -> int | None:
    """The offset just after a class header's colon (outside brackets) that starts at ``pos``; -1
    when its line ends first (not a class statement); None when it cannot be read."""
    depth, start = 0, pos
    while True:
        found = _HEADER_TOKEN.search(data, pos)
        if found is None or found.start() - start > _HEADER_BYTES:
            return None
        token, pos = data[found.start()], found.end()
        if token in b"([{":
            depth += 1
        elif token in b")]}":
            depth -= 1
            if depth < 0:
                return None
        elif token == 35:  # a comment: to the end of its line
            newline = data.find(b"\n", pos)
            pos = len(data) if newline < 0 else newline
        elif token == 92:  # a backslash: the next byte is escaped
            pos += 1
        elif depth == 0:
            return pos if token == 58 else -1  # ``:`` or a newline


def _statement_starts(data: bytes, own: bytes) -> list[int]:
    """The offsets of the ``def``, ``async def`` and ``class`` lines at indentation ``own``, in order."""
    starts = []
    for word in (b"def", b"class", b"async"):
        keyword = b"\n" + own + word
        at = data.find(keyword)
        while at >= 0:
            after = at + len(keyword)
            if after < len(data) and data[after] in b" \t\\(":
                starts.append(at)
            at = data.find(keyword, after)
    return sorted(starts)


def _body_end(data: bytes, starts: list[int], start: int) -> int:
    """Where a class body that starts at ``start`` ends: the next of ``starts`` (the ``def`` and
    ``class`` statements at the class's own indentation) that no string holds, or the end."""
    for stop in starts[bisect.bisect_right(starts, start) :]:
        if data.count(b'"""', start, stop) % 2 == 0 and data.count(b"\'\'\'", start, stop) % 2 == 0:
            return stop
    return len(data)


def member_names_of(members: dict[str, dict[str, Any]]) -> set[str]:
    """The public names a summary's classes bind as members that may be tools (its ``members``)."""
    return {name for bound in members.values() for name in bound if not name.startswith("_")}
