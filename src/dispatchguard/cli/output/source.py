"""The source lines some formats show or measure (``full``'s code frames, ``rdjson``'s byte
columns): read once per file, from the buffer the run checked when it was not a file on disk."""

from __future__ import annotations

import io
import os
import tokenize
from pathlib import Path

from dispatchguard.cli.output import Context


class Sources:
    """The lines of the files a format shows or measures, each file read at most once.

    ``full`` and ``rdjson`` make one per ``render`` call from its :class:`Context`: a path in
    ``context.sources`` (a buffer such as stdin) is read from there, any other under
    ``context.cwd``.
    """

    def __init__(self, context: Context) -> None:
        self.context = context
        self.cache: dict[tuple[str, int | None], list[str] | None] = {}

    def lines(self, path: str, cell: int | None = None) -> list[str] | None:
        """The file's lines without their endings (a notebook's: those of its ``cell``), or None
        when it cannot be read or decoded."""
        if (path, cell) not in self.cache:
            self.cache[path, cell] = self.read(path) if cell is None else self.read_cell(path, cell)
        return self.cache[path, cell]

    def read_cell(self, path: str, cell: int) -> list[str] | None:
        """Return a notebook cell's lines, endings stripped; None if unreadable or no such cell."""
        from dispatchguard.lint.notebook import NotebookError, read_notebook

        try:
            notebook = read_notebook(Path(self.context.cwd, path))
        except (OSError, NotebookError):
            return None
        for code_cell in notebook.cells:
            if code_cell.number == cell:
                return [line.rstrip("\r\n") for line in code_cell.lines]
        return None

    def read(self, path: str) -> list[str] | None:
        """Return the file's lines: the buffer in ``context.sources`` if the path is one, else the
        file under ``context.cwd``, decoded per its coding cookie; None if it cannot be decoded."""
        if path in self.context.sources:
            return self.context.sources[path].splitlines()
        try:
            with open(os.path.join(self.context.cwd, path), "rb") as handle:
                data = handle.read()
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            return data.decode(encoding).splitlines()
        except (OSError, SyntaxError, LookupError, UnicodeDecodeError):
            return None

    def byte_column(self, path: str, line: int, col: int, cell: int | None = None) -> int:
        """``col`` (1-based, in characters) as a 1-based column in UTF-8 bytes (in a notebook's
        ``cell``); ``col`` itself when the line is unknown."""
        lines = self.lines(path, cell)
        if lines is None or not 0 < line <= len(lines):
            return col
        return len(lines[line - 1][: col - 1].encode("utf-8")) + 1
