"""Fixtures for the /chat service tests: the scripted model server, a registry, a real uvicorn."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi")


@pytest.fixture
def tool_started() -> threading.Event:
    """Set when the registry's ``slow`` tool starts: what a test that cancels a running tool waits for."""
    return threading.Event()


@pytest.fixture
def registry(tool_started):
    from dispatchguard import ToolRegistry

    reg = ToolRegistry()

    @reg.tool(parallel_safe=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @reg.tool()
    def slow(seconds: float) -> str:
        """Sleep, then answer."""
        tool_started.set()
        time.sleep(seconds)
        return "slept"

    return reg


