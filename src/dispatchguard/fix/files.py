"""Reading a file to fix: its bytes (encoding and newline style untouched) and permission bits."""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourceFile:
    path: Path
    data: bytes
    mode: int


def read_source(path: Path) -> SourceFile:
    """Return the file's raw bytes and permission bits; OSError propagates."""
    data = path.read_bytes()
    return SourceFile(path, data, stat.S_IMODE(path.stat().st_mode))
