"""Atomic file replacement, shared by everything that writes the user's files or our own state
(fixes, baselines, the result cache, the file_writer tool). Standard library only: the linter core
uses it on its hot path.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

DEFAULT_MODE = 0o644
# Bytes of the target's name kept in the temporary name: ".<name>.<8 random>.tmp" must fit in
# NAME_MAX (255 on the common filesystems) even when the target's own name uses all of it.
TEMP_NAME_BYTES = 200


def atomic_write(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, never half
    of one: a temporary sibling is written, flushed and fsynced, given the permission bits
    (``mode``; by default those of the file it replaces, or 0o644 for a new file), then renamed
    over ``path`` with ``os.replace`` (atomic on POSIX and Windows). On any failure the temporary
    file is removed, ``path`` is untouched and the exception propagates."""
    target = Path(path)
    if mode is None:
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = DEFAULT_MODE
    stem = os.fsdecode(os.fsencode(target.name)[:TEMP_NAME_BYTES])
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
