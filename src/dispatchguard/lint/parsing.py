"""Per-file work: stat and parse a file, and map ast's byte columns to character columns."""

from __future__ import annotations

import ast
import contextlib
import gc
import io
import sys
import tokenize
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dispatchguard.lint.newer_syntax import parse_newer_syntax


def file_stat(path: Path) -> list[int] | None:
    """(mtime_ns, size) of a file, or None when it cannot be stat'ed."""
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def readable_source(data: bytes) -> bool:
    """Whether Python could decode ``data`` as source (its declared encoding, no null byte): the
    part of a parse that a file the checker does not need to parse is still held to."""
    if b"\0" in data:
        return False
    encoding = "utf-8"
    if b"coding" in data[:400]:  # a PEP 263 cookie can only be on the first two lines
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:
            return False
    try:
        data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return False
    return True


def parse_bytes(data: bytes) -> tuple[ast.Module | None, list[Any] | None]:
    """A file's tree and None, or None and its DG001 error ``[line, col, message]`` (1-based).

    PEP 695 syntax is rewritten for an older interpreter; a PEP 701 f-string's error names the
    Python to use; undecodable or too deeply nested files give an error, never an exception.
    """
    try:
        return ast.parse(data), None
    except SyntaxError as exc:
        newer = parse_newer_syntax(data)  # PEP 695 under an older interpreter
        if newer is not None:
            return newer, None
        msg = exc.msg or "invalid syntax"
        kind = "cannot decode the file" if "unicode error" in msg or "codec" in msg else "syntax error"
        if msg.startswith("f-string") and sys.version_info < (3, 12):
            # quotes reused inside a replacement field: valid since 3.12 (PEP 701), unparsable
            # here; the tokens of such a string cannot be rewritten to 3.11's at the same length
            msg += (
                f" (an f-string in Python 3.12 syntax, PEP 701? this checker runs on Python "
                f"{sys.version_info[0]}.{sys.version_info[1]}: run it on 3.12 or newer to check this file)"
            )
        return None, [max(exc.lineno or 1, 1), max(exc.offset or 1, 1), f"{kind}: {msg}"]
    except (ValueError, UnicodeDecodeError) as exc:
        return None, [1, 1, f"cannot decode the file: {exc}"]
    except (RecursionError, MemoryError):
        return None, [1, 1, "the file is too deeply nested to parse"]


@contextlib.contextmanager
def quiet_parsing() -> Iterator[None]:
    """No cyclic GC and no SyntaxWarnings while parsing many files.

    Parsing allocates millions of acyclic objects; the cyclic GC would rescan the trees kept
    between the phases over and over (measured: 3x the parse time on the standard library), and
    nothing here makes cycles. SyntaxWarnings (``1()``) are the compiler's business, not ours.
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            yield
    finally:
        if gc_was_enabled:
            gc.enable()


def decode_lines(data: bytes) -> list[str]:
    """A file's lines as text (coding cookie or BOM honoured, bad bytes replaced), for ``# noqa``."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding, errors="replace")
    except (SyntaxError, LookupError):
        text = data.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff").splitlines()


def char_col(lines: list[str], line: int, byte_col: int) -> int:
    """1-based character column of a UTF-8 byte offset (ast's col_offset) in a line."""
    if 0 < line <= len(lines):
        text = lines[line - 1]
        if text.isascii():
            return byte_col + 1
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1
    return byte_col + 1


def parses(text: str) -> bool:
    """Whether ``text`` is Python this interpreter parses."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True
