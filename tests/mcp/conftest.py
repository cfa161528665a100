"""Fixtures for the MCP tests: the served registry, the SDK client over stdio and HTTP, a marks folder."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.lowlevel")

HERE = Path(__file__).parent
DISPATCHGUARD = str(Path(sys.executable).with_name("dispatchguard"))


@pytest.fixture
def served(monkeypatch):
    """The ``served_tools`` module (this folder put on sys.path for ``served_tools:TOOLS``)."""
    monkeypatch.syspath_prepend(str(HERE))
    import served_tools

    return served_tools


@pytest.fixture
def marks(tmp_path, monkeypatch):
    """The folder where the served tools leave their marks (set for subprocesses and this process)."""
    folder = tmp_path / "marks"
    folder.mkdir()
    monkeypatch.setenv("DG_MCP_MARKS", str(folder))
    return folder


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key.startswith(("COVERAGE", "DG_MCP")) or key in ("PATH", "HOME", "SYSTEMROOT")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    return env


@pytest.fixture
def server_env(marks):
    """The environment of a ``dispatchguard mcp`` subprocess: ``served_tools`` importable, the
    marks folder, coverage's variables."""
    return environment()


@pytest.fixture
def stdio_command():
    """``dispatchguard mcp --registry served_tools:TOOLS`` plus the options given."""

    def command(*options: str) -> list[str]:
        return [DISPATCHGUARD, "mcp", "--registry", "served_tools:TOOLS", *options]

    return command


@pytest.fixture
def sdk_stdio(stdio_command, server_env):
    """Open the official SDK's client session with ``dispatchguard mcp`` over stdio, initialized."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    @contextlib.asynccontextmanager
    async def open_session(*options: str):
        command = stdio_command(*options)
        params = StdioServerParameters(command=command[0], args=command[1:], env=server_env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session

    return open_session


@pytest.fixture
def sdk_http():
    """Open the official SDK's client session with a streamable HTTP server, initialized; yields
    the session and the transport's session-id getter."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    @contextlib.asynccontextmanager
    async def open_session(url: str):
        async with streamable_http_client(url) as (read, write, session_id), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session, session_id

    return open_session


@pytest.fixture
def serve_registry(serve, served):
    """Serve a registry (default: ``served_tools.TOOLS``) over HTTP on a real uvicorn; returns
    the MCP endpoint's URL. Options go to ``create_http_app``."""
    from dispatchguard.mcp import create_http_app

    def start(registry=None, **options) -> str:
        return serve(create_http_app(registry if registry is not None else served.TOOLS, **options)) + "/mcp"

    return start
