"""Fixtures for the HTTP tests: a real threaded server on 127.0.0.1 and fast retry settings."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from werkzeug import Request, Response

from dispatchguard import http

FAST = {
    "backoff_base": 0.01,
    "backoff_max": 0.05,
    "backoff_jitter": 0.01,
    "max_attempts": 3,
    "max_total_time": 10.0,
    "retry_after_cap": 5.0,
    "read_timeout": 2.0,
}


@pytest.fixture(autouse=True)
def fresh_http(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test starts from default settings (no DISPATCHGUARD_HTTP_* leaking in) plus FAST."""
    import os

    for name in list(os.environ):
        if name.startswith("DISPATCHGUARD_HTTP_"):
            monkeypatch.delenv(name)
    http.reset_clients(reset_settings=True)
    http.configure(**FAST)
    yield
    http.reset_clients(reset_settings=True)


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: connecting to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class SlowCounter:
    """A handler that counts requests and answers after a delay (to line concurrent callers up)."""

    def __init__(self, body: str = '{"ok": true}', delay: float = 0.3, status: int = 200) -> None:
        self.body, self.delay, self.status = body, delay, status
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Response:
        with self._lock:
            self.count += 1
        time.sleep(self.delay)
        return Response(self.body, status=self.status, content_type="application/json")


@pytest.fixture
def slow_counter() -> type[SlowCounter]:
    return SlowCounter
