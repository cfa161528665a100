"""The registry the MCP tests serve, in-process and from subprocesses (``served_tools:TOOLS``, with
this folder on PYTHONPATH). ``DG_MCP_MARKS`` names a folder where tools leave marks the tests read:
``cancelled-<tag>`` when a call was cancelled, ``finished-<tag>`` when it ran to its end."""

from __future__ import annotations

import asyncio
import ctypes
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Annotated

from dispatchguard import InjectedArg, ToolRegistry

TOOLS = ToolRegistry()
NOT_A_REGISTRY = {"add": "a dict, not a ToolRegistry"}


def mark(name: str) -> None:
    folder = os.environ.get("DG_MCP_MARKS")
    if folder:
        Path(folder, name).write_text("", encoding="utf-8")


@TOOLS.tool
def add(a: int, b: int = 0) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


@TOOLS.tool
def profile(name: str, tags: list[str] | None = None) -> dict:
    """A JSON object, so the result carries structuredContent."""
    return {"name": name, "tags": tags or []}


@TOOLS.tool
def fail(reason: str) -> str:
    """Always raises."""
    raise RuntimeError(reason)


@TOOLS.tool
async def nap(seconds: float, tag: str = "nap") -> str:
    """Sleep asynchronously; leaves a mark when it starts, and when cancelled or finished."""
    mark(f"started-{tag}")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        mark(f"cancelled-{tag}")
        raise
    mark(f"finished-{tag}")
    return "rested"


@TOOLS.tool
def block(seconds: float) -> str:
    """Sleep in a sync tool (its thread cannot be cancelled)."""
    time.sleep(seconds)
    return "blocked"


@TOOLS.tool
def owner(item: str, user_id: Annotated[str, InjectedArg()]) -> str:
    """Needs the caller's user id (an injected argument, hidden from tools/list)."""
    return f"{item} belongs to {user_id}"


@TOOLS.tool
def crash() -> str:
    """Ends the server process at once (a server dying mid-call)."""
    os._exit(3)


@TOOLS.tool(parallel_safe=True)
def pid(pause: float = 0.0) -> int:
    """The serving process's id (which worker answered), after a pause."""
    time.sleep(pause)
    return os.getpid()


#: The ways a tool can reach standard output, from Python's print down to the descriptor.
WRITERS = ("print", "write", "subprocess", "os.write", "libc")


@TOOLS.tool
def noisy(writer: str, newline: bool = False) -> str:
    """Write ``noise-<writer>`` to standard output the way ``writer`` names (see ``WRITERS``),
    with or without a newline, then answer the writer's name."""
    text = f"noise-{writer}" + ("\n" if newline else "")
    if writer == "print":
        print(text, end="")
    elif writer == "write":
        sys.stdout.write(text)
    elif writer == "subprocess":
        subprocess.run([sys.executable, "-c", f"import sys; sys.stdout.write({text!r})"], check=True)
    elif writer == "os.write":
        os.write(1, text.encode())
    elif writer == "libc":  # what a C extension does: C's stdio, flushed
        libc = ctypes.CDLL(None)
        libc.printf(b"%s", text.encode())
        libc.fflush(None)
    else:
        raise ValueError(f"unknown writer {writer!r}")
    return writer


#: ``hold`` calls wait for this (the tests set it when done); each releases ``HELD`` as it starts.
HOLD_GATE = threading.Event()
HELD = threading.Semaphore(0)


@TOOLS.tool
def hold() -> str:
    """A sync tool that blocks until the test opens ``HOLD_GATE`` (at most 30 s)."""
    HELD.release()
    HOLD_GATE.wait(30)
    return "held"
