"""The registry ``dispatchguard mcp --registry traced_tools:TOOLS`` serves in the end-to-end test;
importing it sets up tracing in the server's process (the place an application would do it)."""

from __future__ import annotations

from otel_setup import setup

from dispatchguard import ToolRegistry

setup("dispatchguard-mcp")
TOOLS = ToolRegistry()


@TOOLS.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
