"""Parameter descriptions from Google, NumPy and Sphinx style docstrings."""

from __future__ import annotations

import inspect
import re

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns?|Raises"
                      r"|Yields|Examples?|Notes?|Attributes)\s*:?\s*$")
_GOOGLE_ITEM = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_SPHINX = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^(\w+)\s*(?::.*)?$")


_PARAM_SECTIONS = frozenset({"Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments"})
_STOP, _SKIP = "stop", "skip"  # what an item reader says of a line that starts no item


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """``(summary, {param: description})`` from a Google, Sphinx or NumPy style docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    end = next((i for i, line in enumerate(lines) if _SECTION.match(line) or line.lstrip().startswith(":")),
               len(lines))
    params: dict[str, str] = {}
    i = end
    while i < len(lines):
        i = _read_block(lines, i, params)
    return " ".join(" ".join(lines[:end]).split()), params


def _read_block(lines: list[str], i: int, params: dict[str, str]) -> int:
    """Read what starts at line ``i`` (a ``:param`` item or a parameter section) into ``params``;
    the index of the next line to read."""
    m = _SPHINX.match(lines[i])
    if m:
        return _sphinx_item(lines, i, m, params)
    m = _SECTION.match(lines[i])
    if m and m.group(1) in _PARAM_SECTIONS:
        return _param_section(lines, i, params)
    return i + 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _sphinx_item(lines: list[str], i: int, m: re.Match[str], params: dict[str, str]) -> int:
    text = [m.group(2).strip()]
    i += 1
    while i < len(lines) and lines[i].startswith((" ", "\t")) and not _SPHINX.match(lines[i]):
        text.append(lines[i].strip())
        i += 1
    params[m.group(1)] = " ".join(t for t in text if t)
    return i


def _google_item(line: str, indent: int, base: int) -> tuple[str, list[str]] | str:
    """``name (type): text`` indented under the section header."""
    if indent <= base:
        return _STOP
    m = _GOOGLE_ITEM.match(line)
    return _SKIP if m is None else (m.group(1), [m.group(3).strip()])


def _numpy_item(line: str, indent: int, base: int) -> tuple[str, list[str]] | str:
    """``name : type`` at the section header's indent, its text on the lines below."""
    m = _NUMPY_ITEM.match(line.strip()) if indent == base else None
    return _STOP if m is None else (m.group(1), [])


def _param_section(lines: list[str], i: int, params: dict[str, str]) -> int:
    """An ``Args:`` (Google) or underlined ``Parameters`` (NumPy) section, from its header at ``i``."""
    base = _indent(lines[i])
    numpy = i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
    read_item = _numpy_item if numpy else _google_item
    i += 2 if numpy else 1
    while i < len(lines):
        line = lines[i]
        if line.strip():
            indent = _indent(line)
            item = _STOP if _SECTION.match(line) and indent <= base else read_item(line, indent, base)
            if item == _STOP:
                break
            if item != _SKIP:
                i = _item_text(lines, i + 1, indent, item, params)
                continue
        i += 1
    return i


def _item_text(lines: list[str], i: int, indent: int, item: tuple[str, list[str]], params: dict[str, str]) -> int:
    """An item's text continued on the blank or deeper-indented lines from ``i``."""
    name, text = item
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        if lines[i].strip():
            text.append(lines[i].strip())
        i += 1
    params[name] = " ".join(t for t in text if t)
    return i
