"""Parameter descriptions from Google, NumPy and Sphinx style docstrings."""

from __future__ import annotations

import inspect
import re

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns?|Raises"
                      r"|Yields|Examples?|Notes?|Attributes)\s*:?\s*$")
_GOOGLE_ITEM = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_SPHINX = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^(\w+)\s*(?::.*)?$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """``(summary, {param: description})`` from a Google, Sphinx or NumPy style docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    i = 0
    n = len(lines)
    in_summary = True
    while i < n:
        line = lines[i]
        m_sec = _SECTION.match(line)
        numpy_underline = i + 1 < n and set(lines[i + 1].strip()) == {"-"}
        if m_sec or line.lstrip().startswith(":"):
            in_summary = False
        if in_summary:
            summary.append(line)
            i += 1
            continue
        m_sp = _SPHINX.match(line)
        if m_sp:
            name, text = m_sp.group(1), [m_sp.group(2).strip()]
            i += 1
            while i < n and lines[i].startswith((" ", "\t")) and not _SPHINX.match(lines[i]):
                text.append(lines[i].strip())
                i += 1
            params[name] = " ".join(t for t in text if t)
            continue
        if m_sec and m_sec.group(1) in ("Args", "Arguments", "Parameters", "Params",
                                        "Keyword Args", "Keyword Arguments"):
            base_indent = len(line) - len(line.lstrip())
            i += 2 if numpy_underline else 1
            while i < n:
                cur = lines[i]
                if not cur.strip():
                    i += 1
                    continue
                indent = len(cur) - len(cur.lstrip())
                if _SECTION.match(cur) and indent <= base_indent:
                    break
                if numpy_underline:
                    m = _NUMPY_ITEM.match(cur.strip()) if indent == base_indent else None
                    if m is None:
                        break
                    name, text = m.group(1), []
                else:
                    if indent <= base_indent:
                        break
                    m = _GOOGLE_ITEM.match(cur)
                    if m is None:
                        i += 1
                        continue
                    name, text = m.group(1), [m.group(3).strip()]
                item_indent = indent
                i += 1
                while i < n and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > item_indent):
                    if lines[i].strip():
                        text.append(lines[i].strip())
                    i += 1
                params[name] = " ".join(t for t in text if t)
            continue
        i += 1
    text = " ".join(" ".join(summary).split())
    return text, params
