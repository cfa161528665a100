"""The stdio server owns its protocol stream at the file-descriptor level.

Over stdio, standard output carries JSON-RPC, one message per line. A tool that prints (a progress
bar, a library's banner, a framework's verbose output), a subprocess it starts, or a C extension
writing to file descriptor 1 would put its bytes into that stream: text without a newline glues
itself to the next reply, which the client then cannot parse. So before any tool runs (and before
the registry's module is imported, which may print too) :func:`protocol_stdout`:

1. flushes Python's ``sys.stdout``;
2. duplicates descriptor 1 (the real stdout) into a new descriptor that only the protocol writer
   uses; it is not inherited by subprocesses;
3. points descriptor 1 at descriptor 2 (stderr; ``/dev/null`` when there is no stderr).

After that ``print``, ``sys.stdout.write``, ``os.write(1, ...)``, C's ``printf`` and every
subprocess that inherits descriptor 1 write to stderr, where a host shows or logs them; the
protocol's descriptor is written by the server alone. On exit descriptor 1 is restored.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO

__all__ = ["protocol_stdout"]


def flush_stdout() -> None:
    """Flush Python's ``sys.stdout`` (if any), ignoring a stream that is closed or broken."""
    stream = sys.stdout
    if stream is not None:
        with contextlib.suppress(Exception):
            stream.flush()


@contextlib.contextmanager
def protocol_stdout() -> Iterator[BinaryIO]:
    """Take descriptor 1 for the protocol: yields a buffered binary file on a duplicate of the real
    stdout (closing it leaves the descriptor open), while descriptor 1 itself points at stderr
    (see the module docstring). Restores descriptor 1 on exit. ``OSError`` when there is no
    descriptor 1 to take."""
    flush_stdout()
    protocol_fd = os.dup(1)  # non-inheritable (PEP 446): a tool's subprocess never gets it
    try:
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr: what tools write is dropped
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, 1)
            finally:
                os.close(null)
    except BaseException:
        os.close(protocol_fd)
        raise
    stream = open(protocol_fd, "wb", closefd=False)  # closed below, the descriptor after it
    try:
        yield stream
    finally:
        flush_stdout()
        stream.close()
        os.dup2(protocol_fd, 1)
        os.close(protocol_fd)
