"""Per-file work: reading, digesting and parsing a file, and mapping ast's byte columns to
character columns."""

from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import io
import tokenize
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatchguard.lint.index import summarise


@dataclass
class Parsed:
    """Phase-1 result of one file."""

    digest: str
    stat: tuple[int, int]
    summary: dict[str, Any] | None
    error: list[Any] | None  # [line, col, reason] when the file cannot be checked


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def read_and_parse(path: Path) -> tuple[bytes | None, ast.Module | None, Parsed]:
    stat = _stat(path) or (0, 0)
    try:
        data = path.read_bytes()
    except OSError as exc:
        reason = f"cannot read the file: {exc.strerror or exc}"
        return None, None, Parsed("", stat, None, [1, 1, reason])
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    tree, error = parse_bytes(data)
    summary = summarise(tree) if tree is not None else None
    return data, tree, Parsed(digest, stat, summary, error)


def parse_bytes(data: bytes) -> tuple[ast.Module | None, list[Any] | None]:
    try:
        return ast.parse(data), None
    except SyntaxError as exc:
        msg = exc.msg or "invalid syntax"
        kind = "cannot decode the file" if "unicode error" in msg or "codec" in msg else "syntax error"
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


def _decode_lines(data: bytes) -> list[str]:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding, errors="replace")
    except (SyntaxError, LookupError):
        text = data.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff").splitlines()


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    """1-based character column of a UTF-8 byte offset (ast's col_offset) in a line."""
    if 0 < line <= len(lines):
        text = lines[line - 1]
        if text.isascii():
            return byte_col + 1
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1
    return byte_col + 1
