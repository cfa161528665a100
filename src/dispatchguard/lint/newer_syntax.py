"""Files written for a newer Python than the one running the checker (PEP 695 and 701 under 3.11).

F-strings in Python 3.12 syntax (PEP 701: quotes reused inside a replacement field, and so on) are
read by :mod:`dispatchguard.lint.fstrings`. ``type Alias = ...`` statements and the type parameter
lists of ``def f[T](...)`` and ``class C[T](...)`` (Python 3.12) are the other newer syntax that real
tool projects use. When the
running interpreter cannot parse a file, :func:`parse_newer_syntax` rewrites exactly those
constructs into 3.11 syntax of the same length (``type Tools = list[Tool]`` becomes
``Tools      = list[Tool]``; a parameter list becomes spaces), so every line and the column of
every other token are unchanged and findings point where they would under 3.12. The type
parameters themselves are dropped: the rules never look at them. A file that still does not parse
keeps its DG001.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize

from dispatchguard.lint.fstrings import FStringSyntaxError, replace_fstrings

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_LINE_STARTS = frozenset({tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING})


def parse_newer_syntax(data: bytes) -> ast.Module | None:
    """The tree of ``data`` with PEP 701 f-strings and PEP 695 constructs read as Python 3.12 reads
    them (see the module docstring), or None when the interpreter already has that syntax, the file
    has none of it, or it still fails."""
    if sys.version_info >= (3, 12):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    placeholders = None
    if "f'" in text or 'f"' in text or "F'" in text or 'F"' in text:
        try:
            text, placeholders = replace_fstrings(text)
        except FStringSyntaxError:
            return None
    rewritten = _without_type_parameters(text)
    if rewritten is None and placeholders is None:
        return None
    try:
        tree = ast.parse(rewritten if rewritten is not None else text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return placeholders.graft(tree) if placeholders is not None else tree  # type: ignore[return-value]


def _without_type_parameters(text: str) -> str | None:
    """``text`` with its PEP 695 constructs rewritten at the same length, or None when it has none."""
    if "type" not in text and "[" not in text:
        return None
    try:
        lines = text.splitlines(keepends=True)
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    edits: list[tuple[int, int, int, str]] = []  # (row, start col, end col, replacement)
    for i, tok in enumerate(tokens):
        previous = tokens[i - 1] if i else None
        at_line_start = previous is None or previous.type in _LINE_STARTS or previous.string == ";"
        if tok.type == tokenize.NAME and tok.string == "type" and at_line_start:
            edit = _type_alias(tokens, i)
        elif tok.type == tokenize.NAME and tok.string in ("def", "class"):
            edit = _type_params(tokens, i + 1)
        else:
            continue
        if edit is not None:
            edits.append(edit)
    if not edits:
        return None
    for row, start, end, replacement in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + replacement + line[end:]
    return "".join(lines)


def _type_alias(tokens: list[tokenize.TokenInfo], i: int) -> tuple[int, int, int, str] | None:
    """``type Name[params] =`` on one line -> ``Name`` padded to the ``=``."""
    name = tokens[i + 1] if i + 1 < len(tokens) else None
    if name is None or name.type != tokenize.NAME or name.start[0] != tokens[i].start[0]:
        return None
    j = i + 2
    if j < len(tokens) and tokens[j].string == "[":
        j = _closing(tokens, j)
        if j is None:
            return None
        j += 1
    if j >= len(tokens) or tokens[j].string != "=" or tokens[j].start[0] != tokens[i].start[0]:
        return None
    start, end = tokens[i].start[1], tokens[j].start[1]
    return tokens[i].start[0], start, end, name.string.ljust(end - start)


def _type_params(tokens: list[tokenize.TokenInfo], i: int) -> tuple[int, int, int, str] | None:
    """``def name[params](`` / ``class Name[params]`` on one line -> the parameters blanked."""
    if i + 1 >= len(tokens) or tokens[i].type != tokenize.NAME or tokens[i + 1].string != "[":
        return None
    close = _closing(tokens, i + 1)
    if close is None or tokens[close].end[0] != tokens[i + 1].start[0]:
        return None
    row, start, end = tokens[i + 1].start[0], tokens[i + 1].start[1], tokens[close].end[1]
    return row, start, end, " " * (end - start)


def _closing(tokens: list[tokenize.TokenInfo], i: int) -> int | None:
    depth = 0
    for j in range(i, len(tokens)):
        s = tokens[j].string
        if tokens[j].type == tokenize.OP and s in _OPENERS:
            depth += 1
        elif tokens[j].type == tokenize.OP and s in _OPENERS.values():
            depth -= 1
            if depth == 0:
                return j
    return None
