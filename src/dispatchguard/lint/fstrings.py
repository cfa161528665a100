"""PEP 701 f-strings (Python 3.12) read by an older interpreter, with their lines and columns.

Since 3.12 a replacement field may reuse the f-string's own quotes (``f"{row["a"]}"``), hold
backslashes and comments, span lines and nest f-strings to any depth. Python 3.10 and 3.11 reject
such a file, and their tokenizer cannot even find where the string ends, so the f-strings are found
here by a scanner of their own (as linters with their own parser do). :func:`replace_fstrings`
turns every implicitly concatenated group of strings that holds an f-string into a blank string
literal of the same size in UTF-8 bytes, keeping its line breaks, so that every other token keeps its
line and byte column (ast's columns). Once the file is parsed, :meth:`Placeholders.graft` puts back,
in each placeholder's place, the ``JoinedStr`` that Python 3.12 builds: literal parts and
``FormattedValue`` nodes whose expressions are parsed at their own positions in the file.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field

_QUOTES = ("'''", '"""', "'", '"')
_STRING_PREFIXES = frozenset({"r", "u", "b", "br", "rb", "f", "fr", "rf"})
_OPENERS = "([{"
_CLOSERS = ")]}"


class FStringSyntaxError(ValueError):
    """A string the scanner cannot read (unterminated, a lone ``}``, an empty field...)."""


@dataclass
class _Field:
    """One replacement field ``{expr=!c:spec}``: text spans are indices into the scanned text."""

    span: tuple[int, int]  # from the ``{`` to after the ``}``
    expr: tuple[int, int]
    debug_text: str | None
    conversion: int
    spec: list[str | _Field] | None
    spec_start: int


@dataclass
class _StringLiteral:
    start: int
    end: int
    prefix: str
    quote: str
    parts: list[str | _Field] | None = None  # None: not an f-string


@dataclass
class _Group:
    """Implicitly concatenated string literals (one ``JoinedStr`` once one of them is an f-string)."""

    literals: list[_StringLiteral] = field(default_factory=list)

    @property
    def start(self) -> int:
        return self.literals[0].start

    @property
    def end(self) -> int:
        return self.literals[-1].end


class _Scanner:
    """Python source scanned for its string literals; f-strings are read with the 3.12 grammar."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.size = len(text)

    def groups(self) -> list[_Group]:
        """The concatenation groups of the whole text, in order."""
        text, size = self.text, self.size
        groups: list[_Group] = []
        current: _Group | None = None
        depth = 0
        i = 0
        while i < size:
            c = text[i]
            if c == "#":
                i = self._line_end(i)
            elif c in " \t\f\r":
                i += 1
            elif c == "\\" and text.startswith("\n", i + 1):
                i += 2
            elif c == "\n":
                if depth == 0:
                    current = None
                i += 1
            elif c in "'\"" or c.isidentifier():
                literal, i = self._token(i)
                if literal is None:
                    current = None
                    continue
                if current is None:
                    current = _Group()
                    groups.append(current)
                current.literals.append(literal)
            else:
                if c in _OPENERS:
                    depth += 1
                elif c in _CLOSERS:
                    depth = max(depth - 1, 0)
                current = None
                i += 1
        return groups

    def _line_end(self, i: int) -> int:
        end = self.text.find("\n", i)
        return self.size if end < 0 else end

    def _token(self, i: int) -> tuple[_StringLiteral | None, int]:
        """The string literal at ``i`` (prefix included), or None and the end of a name/number."""
        text = self.text
        j = i
        while j < self.size and (text[j].isalnum() or text[j] == "_"):
            j += 1
        if j < self.size and text[j] in "'\"" and text[i:j].lower() in _STRING_PREFIXES | {""}:
            return self._string(i, text[i:j].lower(), j)
        return None, max(j, i + 1)

    def _string(self, start: int, prefix: str, at: int) -> tuple[_StringLiteral, int]:
        quote = next(q for q in _QUOTES if self.text.startswith(q, at))
        literal = _StringLiteral(start, start, prefix, quote)
        if "f" in prefix:
            literal.parts, end = self._fstring_body(at + len(quote), quote, "r" in prefix, in_spec=False)
        else:
            end = self._plain_body(at + len(quote), quote, "r" in prefix)
        literal.end = end
        return literal, end

    def _plain_body(self, i: int, quote: str, raw: bool) -> int:
        text = self.text
        while i < self.size:
            if text.startswith(quote, i):
                return i + len(quote)
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == "\n" and len(quote) == 1:
                break
            i += 1
        raise FStringSyntaxError("unterminated string")

    def _fstring_body(self, i: int, quote: str, raw: bool, in_spec: bool) -> tuple[list[str | _Field], int]:
        """The parts of an f-string (or of a format spec) from ``i``; the index after its end: after
        the closing quote, or at the ``}`` that closes the field a format spec belongs to."""
        text = self.text
        parts: list[str | _Field] = []
        literal: list[str] = []
        while i < self.size:
            c = text[i]
            if in_spec and c == "}":
                break
            if not in_spec and text.startswith(quote, i):
                _flush(literal, parts)
                return parts, i + len(quote)
            if c == "\\":
                i = self._escape(i, raw, literal)
            elif c in "{}" and text.startswith(c, i + 1) and not in_spec:
                literal.append(c)
                i += 2
            elif c == "{":
                _flush(literal, parts)
                fld, i = self._field(i, quote, raw)
                parts.append(fld)
            elif c == "}":
                raise FStringSyntaxError("single '}' is not allowed")
            elif c == "\n" and len(quote) == 1 and not in_spec:
                raise FStringSyntaxError("unterminated f-string")
            else:
                literal.append(c)
                i += 1
        if in_spec and i < self.size:
            _flush(literal, parts)
            return parts, i
        raise FStringSyntaxError("unterminated f-string")

    def _escape(self, i: int, raw: bool, literal: list[str]) -> int:
        """A backslash in an f-string's literal part: kept as written (decoded later). Before a
        brace it is a backslash of its own (the brace still opens or closes a field)."""
        text = self.text
        if text.startswith(("{", "}"), i + 1):
            literal.append("\\")
            return i + 1
        if not raw and text.startswith("N{", i + 1):
            end = text.find("}", i)
            if end < 0:
                raise FStringSyntaxError("unterminated \\N{...} escape")
            literal.append(text[i : end + 1])
            return end + 1
        literal.append(text[i : i + 2])
        return i + 2

    def _field(self, opening: int, quote: str, raw: bool) -> tuple[_Field, int]:
        """The field whose ``{`` is at ``opening``; the index after its ``}``."""
        text = self.text
        i = opening + 1
        end = self._expression_end(i)
        if not text[i:end].strip():
            raise FStringSyntaxError("f-string: valid expression required before '}'")
        debug_text = None
        j = end
        if text.startswith("=", j):
            j += 1
            while j < self.size and text[j] in " \t":
                j += 1
            debug_text = text[i:j]
        conversion = -1
        if text.startswith("!", j):
            if not text.startswith(("s", "r", "a"), j + 1):
                raise FStringSyntaxError("f-string: invalid conversion character")
            conversion = ord(text[j + 1])
            j += 2
        spec = None
        spec_start = j + 1
        if text.startswith(":", j):
            spec, j = self._fstring_body(spec_start, quote, raw, in_spec=True)
        if not text.startswith("}", j):
            raise FStringSyntaxError("f-string: expecting '}'")
        if debug_text is not None and conversion == -1 and spec is None:
            conversion = ord("r")
        return _Field((opening, j + 1), (i, end), debug_text, conversion, spec, spec_start), j + 1

    def _expression_end(self, i: int) -> int:
        """The end of a field's expression: the first ``}``, ``!``, ``:`` or self-documenting
        ``=`` outside brackets (strings, nested f-strings and comments skipped)."""
        text = self.text
        depth = 0
        while i < self.size:
            c = text[i]
            if c in "'\"" or c.isidentifier():
                i = self._token(i)[1]
                continue
            if c == "#":
                i = self._line_end(i)
                continue
            if c in _OPENERS:
                depth += 1
            elif c in _CLOSERS:
                if depth == 0:
                    return i
                depth -= 1
            elif depth == 0 and self._ends_expression(i):
                return i
            i += 1
        raise FStringSyntaxError("f-string: expecting '}'")

    def _ends_expression(self, i: int) -> bool:
        text = self.text
        c = text[i]
        nxt = text[i + 1] if i + 1 < self.size else ""
        if c == "!":
            return nxt != "="
        if c == ":":
            return nxt != "="  # `:=` outside brackets is a syntax error in a field anyway
        if c == "=":
            previous = text[i - 1] if i else ""
            return nxt != "=" and previous not in "=!<>:"
        return False


def _flush(literal: list[str], parts: list[str | _Field]) -> None:
    if literal:
        parts.append("".join(literal))
        literal.clear()


class Placeholders:
    """The f-string groups of one text, blanked by :func:`replace_fstrings`."""

    def __init__(self, text: str, groups: list[_Group]) -> None:
        self._text = text
        self._line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self._groups: dict[tuple[int, int], _Group] = {}
        for group in groups:
            row, col = self._position(group.start)
            offset = 1 if "\n" in text[group.start : group.end] else 0  # `(""` ... `)`
            self._groups[(row, col + offset)] = group

    def _position(self, index: int) -> tuple[int, int]:
        """1-based row and UTF-8 byte column of a text index, as ast counts them."""
        row = bisect.bisect_right(self._line_starts, index)
        start = self._line_starts[row - 1]
        return row, len(self._text[start:index].encode("utf-8"))

    def graft(self, tree: ast.AST) -> ast.AST:
        """``tree`` with each placeholder replaced by its ``JoinedStr``."""
        return _Grafter(self).visit(tree)

    def joined_string(self, node: ast.Constant) -> ast.expr | None:
        """The ``JoinedStr`` whose placeholder ``node`` is, or None for any other constant."""
        group = self._groups.get((node.lineno, node.col_offset))
        if group is None or not isinstance(node.value, str):
            return None
        values: list[ast.expr] = []
        for literal in group.literals:
            if literal.parts is None:
                _append_text(values, _literal_value(self._text[literal.start : literal.end]))
            else:
                self._add_parts(values, literal, literal.parts)
        joined = ast.JoinedStr(values=values)
        self._locate(joined, group.start, group.end)
        return joined

    def _add_parts(self, values: list[ast.expr], literal: _StringLiteral, parts: list[str | _Field]) -> None:
        for part in parts:
            if isinstance(part, str):
                _append_text(values, _piece_value(literal, part))
                continue
            if part.debug_text is not None:  # decoded like the literal parts, as CPython does
                _append_text(values, _piece_value(literal, part.debug_text))
            spec = None
            if part.spec is not None:
                spec_values: list[ast.expr] = []
                self._add_parts(spec_values, literal, part.spec)
                spec = ast.JoinedStr(values=spec_values)
                self._locate(spec, part.spec_start - 1, part.span[1] - 1)
            value = ast.FormattedValue(value=self._expression(*part.expr), conversion=part.conversion, format_spec=spec)
            self._locate(value, *part.span)
            values.append(value)

    def _expression(self, start: int, end: int) -> ast.expr:
        """A field's expression parsed where it stands: blank lines and columns before it."""
        row, col = self._position(start)
        source = "\n" * (row - 1) + "(" + " " * max(col - 1, 0) + self._text[start:end] + ")"
        return parse_expression(source)

    def _locate(self, node: ast.expr, start: int, end: int) -> None:
        node.lineno, node.col_offset = self._position(start)
        node.end_lineno, node.end_col_offset = self._position(end)


class _Grafter(ast.NodeTransformer):
    def __init__(self, placeholders: Placeholders) -> None:
        self._placeholders = placeholders

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        return self._placeholders.joined_string(node) or node


def _append_text(values: list[ast.expr], text: str) -> None:
    if not text:
        return
    if values and isinstance(values[-1], ast.Constant):
        values[-1].value += text
    else:
        values.append(ast.Constant(value=text))


def _literal_value(source: str) -> str:
    """The value of a plain string literal beside an f-string."""
    try:
        value = ast.literal_eval(source)
    except (SyntaxError, ValueError):
        return source
    return value if isinstance(value, str) else source


_ESCAPE = re.compile(r"\\(N\{[^}]*\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\n|.)", re.S)


def _piece_value(literal: _StringLiteral, text: str) -> str:
    """The value of an f-string's literal part: escapes decoded as Python decodes them (one at a
    time, so that quotes in the part need no escaping)."""
    if "r" in literal.prefix or "\\" not in text:
        return text
    return _ESCAPE.sub(_decoded_escape, text)


def _decoded_escape(match: re.Match[str]) -> str:
    try:
        value = ast.literal_eval(f'"{match.group(0)}"')
    except (SyntaxError, ValueError):
        return match.group(0)
    return value if isinstance(value, str) else match.group(0)


def replace_fstrings(text: str) -> tuple[str, Placeholders | None]:
    """``text`` with each string group that holds an f-string blanked (same lines, same UTF-8 size),
    and what puts them back; ``(text, None)`` when it has no f-string. Raises
    :class:`FStringSyntaxError` for a string the scanner cannot read."""
    groups = [g for g in _Scanner(text).groups() if any(lit.parts is not None for lit in g.literals)]
    if not groups:
        return text, None
    if any("b" in lit.prefix for g in groups for lit in g.literals):
        raise FStringSyntaxError("cannot mix bytes and nonbytes literals")
    pieces: list[str] = []
    previous = 0
    for group in groups:
        pieces.append(text[previous : group.start])
        pieces.append(_blank(text[group.start : group.end]))
        previous = group.end
    pieces.append(text[previous:])
    return "".join(pieces), Placeholders(text, groups)


def _blank(segment: str) -> str:
    """A string literal as long as ``segment`` in UTF-8 bytes, with its line breaks: ``"  "`` on one
    line, ``(""`` ... ``)`` over several."""
    blanks = "".join(c if c in "\r\n" else " " * len(c.encode("utf-8")) for c in segment)
    if "\n" not in segment:
        if len(blanks) < 2:
            raise FStringSyntaxError("string too short to blank")
        return '"' + blanks[1:-1] + '"'
    first_break = blanks.index("\n")
    if first_break < 3 or blanks[-1] in "\r\n":
        raise FStringSyntaxError("string group too short to blank")
    return '(""' + blanks[3:-1] + ")"


def parse_source(text: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(text, mode)`` with PEP 701 f-strings read as 3.12 reads them. Raises SyntaxError
    (or :class:`FStringSyntaxError`) when the text is not valid 3.12 Python either."""
    blanked, placeholders = replace_fstrings(text)
    tree = ast.parse(blanked, mode=mode)
    return placeholders.graft(tree) if placeholders is not None else tree


def parse_expression(source: str) -> ast.expr:
    """The expression of ``source`` (``mode="eval"``), f-strings read as 3.12 reads them."""
    tree = parse_source(source, mode="eval")
    return tree.body if isinstance(tree, ast.Expression) else ast.Constant(value=None)
