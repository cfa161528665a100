"""Reading a file to fix: its bytes (encoding and newline style untouched) and permission bits."""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourceFile:
    """A file read for fixing by :func:`read_source`: its path, raw bytes and permission bits.

    The fix engine keeps ``data`` as the original (for the diff) and writes the fixed bytes back
    with ``mode``, so a fix changes neither the file's encoding and newlines nor its permissions.
    Immutable.
    """

    path: Path
    data: bytes
    mode: int


def read_source(path: Path) -> SourceFile:
    """Return the file's raw bytes and permission bits; OSError propagates."""
    data = path.read_bytes()
    return SourceFile(path, data, stat.S_IMODE(path.stat().st_mode))
