"""The registry the MCP tests serve, in-process and from subprocesses (``served_tools:TOOLS``, with
this folder on PYTHONPATH). ``DG_MCP_MARKS`` names a folder where tools leave marks the tests read:
``cancelled-<tag>`` when a call was cancelled, ``finished-<tag>`` when it ran to its end."""

from __future__ import annotations

import asyncio
import os
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
