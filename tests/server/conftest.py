"""Fixtures for the /chat service tests: the scripted model server, a registry, a real uvicorn."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")



@pytest.fixture
def registry():
    from dispatchguard import ToolRegistry

    reg = ToolRegistry()

    @reg.tool(parallel_safe=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @reg.tool()
    def slow(seconds: float) -> str:
        """Sleep, then answer."""
        time.sleep(seconds)
        return "slept"

    return reg


