"""The source lines some formats show or measure (``full``'s code frames, ``rdjson``'s byte
columns): read once per file, from the buffer the run checked when it was not a file on disk."""

from __future__ import annotations

import io
import os
import tokenize

from dispatchguard.cli.output import Context


class Sources:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.cache: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        """The file's lines without their endings, or None when it cannot be read or decoded."""
        if path not in self.cache:
            self.cache[path] = self.read(path)
        return self.cache[path]

    def read(self, path: str) -> list[str] | None:
        if path in self.context.sources:
            return self.context.sources[path].splitlines()
        try:
            with open(os.path.join(self.context.cwd, path), "rb") as handle:
                data = handle.read()
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            return data.decode(encoding).splitlines()
        except (OSError, SyntaxError, LookupError, UnicodeDecodeError):
            return None

    def byte_column(self, path: str, line: int, col: int) -> int:
        """``col`` (1-based, in characters) as a 1-based column in UTF-8 bytes; ``col`` itself when
        the line is unknown."""
        lines = self.lines(path)
        if lines is None or not 0 < line <= len(lines):
            return col
        return len(lines[line - 1][: col - 1].encode("utf-8")) + 1
