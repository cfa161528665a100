"""Jupyter notebooks (``.ipynb``, nbformat 4) as Python sources, in ruff's model.

The code cells of a notebook are checked as ONE module (a tool class a cell defines is known to
the next cell that calls it): :func:`load_notebook` joins them into a *virtual source* (each cell
ending with a newline, no line added between cells), so that a line of the virtual source is a
line of one cell, at the same column. Findings are reported per cell: :meth:`Notebook.position`
maps a virtual line to ``(cell, line)``, the cell numbered from 1 among ALL the notebook's cells
(markdown and raw cells count but are never checked), as ruff prints ``path:cell N:line:col``.

IPython syntax is never parsed as Python. In a cell that does not parse as it stands, the lines
that are line magics (``%pip install x``, ``x = %time f()``), shell escapes (``!ls``,
``files = !ls``), help (``obj?``, ``?obj``) or automagics (``pip install x``) are *blanked*: an
empty line (``pass`` at their indentation inside a block), so line numbers hold. A cell starting
with a cell magic runs its body as Python only for the transparent ones (``%%time``, ``%%timeit``,
``%%capture``, ...: only the magic line is blanked); any other (``%%bash``, ``%%html``,
``%%writefile``) makes the whole cell blank. A notebook whose language is not Python contributes
no code.

Only ``json`` is imported (the checker's hot path); a file that is not valid JSON or not an
nbformat 4 notebook raises :class:`NotebookError`.

:meth:`Notebook.with_edits` is the way back for the fixes: the edits of the virtual source made
in the cells they fall in, and only the ``source`` values of the cells that changed replaced in the
notebook's text (everything else, outputs, metadata, indentation, key order and the final newline,
is the same bytes).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dispatchguard.lint.parsing import parses

NOTEBOOK_SUFFIX = ".ipynb"

#: Cell magics whose body is Python (ruff's list): only their first line is blanked.
TRANSPARENT_CELL_MAGICS = frozenset({"capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"})
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_MAGIC = re.compile(
    r"""[ \t]*(?:
        [%!]                                  # %magic, !shell
      | \?                                    # ?help
      | [^#'"\n]*\?\??[ \t]*$                 # obj? / obj??
      | [\w.,\[\]() \t]*=[ \t]*[%!]\w         # x = %magic, files = !ls
      | (?:pip|conda|mamba|uv|cd|ls|pwd|cat|env|set_env)[ \t]+[-\w./]   # automagics
    )""",
    re.VERBOSE,
)


class NotebookError(ValueError):
    """A file that is not a readable nbformat 4 notebook (the message says why)."""


@dataclass
class Cell:
    """A code cell: its number among all cells (1-based), its original lines (with their line
    ends), where its lines start in the virtual source (0-based) and how many it has there."""

    number: int
    lines: list[str]
    start: int
    ends_with_newline: bool
    blanked: set[int] = field(default_factory=set)  # indexes of its lines that are not Python
    python: bool = True  # False: a cell magic whose body is not Python (%%bash): all blanked

    def offset(self, index: int, column: int) -> int:
        """The character offset in the cell's text of a column of one of its lines."""
        return sum(len(line) for line in self.lines[:index]) + column

    def edited(self, changes: list[tuple[int, int, str]]) -> list[str]:
        """The cell's lines with ``changes`` made (each ``(start, end, text)`` of its text, in
        order); without a final newline when the cell had none."""
        text, cut, out = "".join(self.lines), 0, []
        for begin, stop, new in changes:
            out += [text[cut:begin], new]
            cut = stop
        out.append(text[cut:])
        new_lines = _split("".join(out))
        if new_lines and not self.ends_with_newline and new_lines[-1].endswith("\n"):
            new_lines[-1] = new_lines[-1][:-1]
        return new_lines


@dataclass
class Notebook:
    """A notebook as :func:`load_notebook` reads it: its text, its code cells, their virtual source.

    It maps lines of the virtual source to ``(cell, line)`` and back, and :meth:`with_edits` makes
    edits of the virtual source in the notebook's text. ``cells`` holds the code cells only.
    """

    text: str  # the notebook file's text
    cells: list[Cell]  # its code cells
    source: str  # the virtual source: the code cells' lines, magics blanked

    @property
    def line_count(self) -> int:
        """The number of lines of the virtual source (every code cell's lines, blanked ones included)."""
        return sum(len(c.lines) for c in self.cells)

    def position(self, line: int) -> tuple[int, int]:
        """``(cell number, line in the cell)`` of a 1-based line of the virtual source (a line past
        the end is the last cell's line past its end)."""
        cells = [c for c in self.cells if c.lines]
        if not cells:
            return (self.cells[0].number if self.cells else 1), line
        at = max(0, bisect.bisect_right([c.start for c in cells], line - 1) - 1)
        cell = cells[at]
        return cell.number, line - cell.start

    def virtual_line(self, cell: int, line: int) -> int:
        """The 1-based virtual line of ``line`` of cell number ``cell``."""
        for c in self.cells:
            if c.number == cell:
                return c.start + line
        raise KeyError(cell)

    def in_cells(self, finding: Any) -> Any:
        """A finding of the notebook (its lines in its cell) with the lines of the virtual source."""
        if getattr(finding, "cell", None) is None:
            return finding
        cell = finding.cell
        line, end_line = self.virtual_line(cell, finding.line), self.virtual_line(cell, finding.end_line)
        return replace(finding, line=line, end_line=end_line, cell=None)

    def with_edits(self, edits: Iterable[tuple[int, int, str]]) -> str:
        """The notebook's text with ``edits`` of its virtual source made in its cells: each
        ``(start, end, text)`` replaces the characters ``start:end`` of :attr:`source`. Only the
        ``source`` values of the cells that changed are rewritten; everything else keeps its bytes.
        An insertion at a cell's start goes into that cell. Raises :class:`NotebookError` when an
        edit spans two cells or touches an IPython line (a magic, a shell escape)."""
        by_cell = self._cell_edits(edits)
        replacements = {cell.number: cell.edited(by_cell[cell.number]) for cell in self.cells if cell.number in by_cell}
        return _replace_sources(self.text, replacements) if replacements else self.text

    def _cell_edits(self, edits: Iterable[tuple[int, int, str]]) -> dict[int, list[tuple[int, int, str]]]:
        """The edits of the virtual source, in order, as ``(start, end, text)`` of the text of the
        cell each falls in, by cell number; :class:`NotebookError` for an edit no cell can take."""
        lines = _split(self.source)
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line))
        owner = [(c, i) for c in self.cells for i in range(len(c.lines))]
        by_cell: dict[int, list[tuple[int, int, str]]] = {}
        for start, end, text in sorted(edits):
            if not owner:
                raise NotebookError("the notebook has no code cell")
            cell, first = self._locate(owner, starts, lines, start)
            last_cell, last = self._locate(owner, starts, lines, max(start, end - 1))
            _check_edit(cell, last_cell, range(first[0], last[0] + 1), end > start or first[1] > 0)
            begin = cell.offset(first[0], first[1])
            stop = begin if end == start else cell.offset(last[0], last[1] + 1)
            by_cell.setdefault(cell.number, []).append((begin, stop, text))
        return by_cell

    @staticmethod
    def _locate(
        owner: list[tuple[Cell, int]], starts: list[int], lines: list[str], offset: int
    ) -> tuple[Cell, tuple[int, int]]:
        """(cell, (line index in the cell, column)) of a character offset of the virtual source."""
        at = bisect.bisect_right(starts, offset) - 1
        column = offset - starts[at]
        if at == len(lines) - 1 and column >= len(lines[at]):  # the end of the source
            cell, index = owner[at]
            return cell, (index, len(lines[at]))
        cell, index = owner[at]
        return cell, (index, column)


def _check_edit(cell: Cell, last_cell: Cell, touched: range, changes_text: bool) -> None:
    """Raise :class:`NotebookError` unless an edit from ``cell`` to ``last_cell`` stays in one Python
    cell and, when it changes text (anything but an insertion at a line's start), keeps off the
    IPython lines among the ``touched`` ones."""
    if last_cell is not cell:
        raise NotebookError("a fix spans two cells")
    if not cell.python:
        raise NotebookError(f"a fix would edit cell {cell.number}, which is not Python")
    if changes_text and any(i in cell.blanked for i in touched):
        raise NotebookError("a fix touches an IPython line (a magic or a shell escape)")


def _split(text: str) -> list[str]:
    return _LINE.findall(text)


def is_notebook(path: str | Path) -> bool:
    """Whether ``path`` names a notebook, by its ``.ipynb`` suffix alone (the file is not read)."""
    return str(path).endswith(NOTEBOOK_SUFFIX)


def load_notebook(data: bytes | str) -> Notebook:
    """The notebook of a file's bytes, its code cells joined (see the module docstring)."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
        # an empty file (a placeholder committed as such) holds no code: nothing to check, as in an
        # empty notebook; Jupyter would refuse to open it, but it is no reason to fail a run
        document = json.loads(text) if text.strip() else {"nbformat": 4, "cells": [], "metadata": {}}
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NotebookError(f"not a notebook: not valid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise NotebookError("not a notebook: not a JSON object")
    if document.get("nbformat") != 4:
        raise NotebookError(f"not an nbformat 4 notebook (nbformat {document.get('nbformat')!r})")
    if not isinstance(document.get("cells"), list):
        raise NotebookError("not a notebook: no list of cells")
    python = _is_python(document.get("metadata"))
    cells: list[Cell] = []
    parts: list[str] = []
    start = 0
    for number, raw in enumerate(document["cells"], start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("cell_type"), str):
            raise NotebookError(f"not a notebook: cell {number} has no cell_type")
        source = raw.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        elif not isinstance(source, str):
            raise NotebookError(f"not a notebook: the source of cell {number} is not text")
        if raw["cell_type"] != "code" or not python:
            continue
        lines = _split(source)
        ends = source.endswith(("\n", "\r"))
        if lines and not ends:
            lines[-1] += "\n"
        cell = Cell(number, lines, start, ends)
        parts.extend(_python_lines(cell))
        start += len(lines)
        cells.append(cell)
    return Notebook(text, cells, "".join(parts))


def _is_python(metadata: Any) -> bool:
    if not isinstance(metadata, dict):
        return True
    for key, sub in (("language_info", "name"), ("kernelspec", "language")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(sub), str):
            return value[sub].lower() == "python"
    return True


def _blank(line: str) -> str:
    body = line.rstrip("\r\n")
    end = line[len(body) :]
    indent = body[: len(body) - len(body.lstrip(" \t"))]
    return (indent + "pass" if indent else "") + end


def _python_lines(cell: Cell) -> list[str]:
    """The cell's lines as Python: IPython lines blanked (recorded in ``cell.blanked``)."""
    lines = cell.lines
    if not lines:
        return []
    if lines[0].lstrip().startswith("%%") and not _cell_magic_keeps_body(cell):
        return [line[len(line.rstrip("\r\n")) :] for line in lines]
    candidates = [i for i, line in enumerate(lines) if i not in cell.blanked and _MAGIC.match(line)]
    if not candidates and not cell.blanked:
        return list(lines)
    # a magic-looking line in a cell that parses is Python (a string's text, a comparison)
    if candidates and (cell.blanked or not parses("".join(lines))):
        _blank_magics(cell, candidates)
    return [_blank(line) if i in cell.blanked else line for i, line in enumerate(lines)]


def _cell_magic_keeps_body(cell: Cell) -> bool:
    """A ``%%magic`` cell: its first line is blanked; the body stays Python for the magics that run
    it as Python (``%%time``), else the whole cell is blanked and is not Python."""
    rest = cell.lines[0].lstrip()[2:]
    name = rest.split(None, 1)[0] if rest.strip() else ""
    if name in TRANSPARENT_CELL_MAGICS:
        cell.blanked.add(0)
        return True
    cell.python = False
    cell.blanked.update(range(len(cell.lines)))
    return False


def _blank_magics(cell: Cell, candidates: list[int]) -> None:
    """Blank the magic lines, with the lines a trailing backslash continues them on."""
    lines = cell.lines
    for i in candidates:
        cell.blanked.add(i)
        while lines[i].rstrip("\r\n").endswith("\\") and i + 1 < len(lines):
            i += 1
            cell.blanked.add(i)


def read_notebook(path: Path) -> Notebook:
    """The notebook at ``path`` (``OSError`` when it cannot be read, :class:`NotebookError` when
    it is not a notebook)."""
    return load_notebook(path.read_bytes())


def virtual_bytes(path: Path) -> bytes:
    """A file's bytes as the checker reads them: a notebook's virtual source (UTF-8), any other
    file's bytes. ``OSError`` when it cannot be read; a notebook that is not one is empty here
    (the engine lists it among the notebooks not checked, with the reason)."""
    data = path.read_bytes()
    if not is_notebook(path):
        return data
    try:
        return load_notebook(data).source.encode("utf-8")
    except NotebookError:
        return b""


# ------------------------------------------------------------------------------------------------
# writing cells back: only the changed cells' source values are replaced in the text


def _replace_sources(text: str, replacements: dict[int, list[str]]) -> str:
    spans = _source_spans(text)
    ascii_only = text.isascii() and "\\u" in text
    out, cut = [], 0
    for number in sorted(replacements):
        if number not in spans:
            raise NotebookError(f"cell {number}: its source was not found in the file")
        start, end = spans[number]
        out.append(text[cut:start])
        out.append(_render_source(text[start:end], replacements[number], ascii_only))
        cut = end
    out.append(text[cut:])
    return "".join(out)


def _render_source(old: str, lines: list[str], ascii_only: bool) -> str:
    """``lines`` as the JSON value ``old`` was: a string, or a list laid out as it was."""
    if old.startswith('"'):
        return json.dumps("".join(lines), ensure_ascii=ascii_only)
    items = [json.dumps(line, ensure_ascii=ascii_only) for line in lines]
    if not items:
        return "[]"
    inner = old[1:-1]
    if inner.strip():
        lead = inner[: len(inner) - len(inner.lstrip())]
        close = inner[len(inner.rstrip()) :]
    else:  # an empty list: the layout of a list one level deeper than the key's line
        lead, close = "\n", ""
    separator = "," + (lead if lead else " ")
    return "[" + lead + separator.join(items) + close + "]"


_WS = " \t\r\n"


def _skip_ws(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WS:
        at += 1
    return at


def _source_spans(text: str) -> dict[int, tuple[int, int]]:
    """cell number -> (start, end) of its ``source`` value in the notebook's text."""
    decoder = json.JSONDecoder()
    at = _skip_ws(text, 1 if text.startswith("\ufeff") else 0)
    spans: dict[int, tuple[int, int]] = {}
    for key, start, _ in _members(text, at, decoder):
        if key == "cells":
            at = _skip_ws(text, start + 1)  # after "["
            number = 0
            while text[at] != "]":
                number += 1
                for cell_key, value_start, value_end in _members(text, at, decoder):
                    if cell_key == "source":
                        spans[number] = (value_start, value_end)
                _, at = decoder.raw_decode(text, at)
                at = _skip_ws(text, at)
                if text[at] == ",":
                    at = _skip_ws(text, at + 1)
            return spans
    return spans


def _members(text: str, at: int, decoder: json.JSONDecoder) -> list[tuple[str, int, int]]:
    """(key, value start, value end) of the object at ``at``."""
    members = []
    at = _skip_ws(text, at + 1)  # after "{"
    while text[at] != "}":
        key, at = decoder.raw_decode(text, at)
        at = _skip_ws(text, at)
        at = _skip_ws(text, at + 1)  # after ":"
        _, end = decoder.raw_decode(text, at)
        members.append((key, at, end))
        at = _skip_ws(text, end)
        if text[at] == ",":
            at = _skip_ws(text, at + 1)
    return members
