"""Fixtures for the /chat service tests: the scripted model server, a registry, a real uvicorn."""

from __future__ import annotations

import socket
import threading
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


@pytest.fixture
def serve():
    """Start an app on a real uvicorn bound to 127.0.0.1:<free port>; returns its base URL."""
    import uvicorn

    servers = []

    def start(app) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        servers.append((server, thread, sock))
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    yield start
    for server, thread, sock in servers:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()
