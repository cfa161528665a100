"""The total deadline: a server that drips one byte every 0.3 s cannot keep a call past max_total_time."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from dispatchguard import http
from dispatchguard.http import HttpTimeoutError

pytestmark = pytest.mark.integration


class DripServer:
    """A real TCP server on 127.0.0.1: answers 200 with a long body, one byte every `interval` s."""

    def __init__(self, interval: float = 0.3, limit: float = 20.0) -> None:
        self.interval, self.limit = interval, limit
        self.in_headers = False  # drip a header line instead of the body
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/drip"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            conn.recv(65536)
            if self.in_headers:
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            else:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
            started = time.monotonic()
            try:
                while not self._stop.is_set() and time.monotonic() - started < self.limit:
                    conn.sendall(b"a" if self.in_headers else b" ")
                    time.sleep(self.interval)
            except OSError:
                return  # the client gave up: what the test wants

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.listener.close()


@pytest.fixture
def drip() -> Iterator[DripServer]:
    server = DripServer()
    yield server
    server.close()


def test_a_dripping_body_ends_at_the_total_deadline(drip):
    http.configure(max_total_time=2.0, read_timeout=1.0, max_attempts=3)
    started = time.monotonic()
    with pytest.raises(HttpTimeoutError) as info:
        http.get_json(drip.url, cache=False)
    elapsed = time.monotonic() - started
    assert "max_total_time" in str(info.value) and info.value.attempts == 1
    # per read the server is never late (0.3 s < read_timeout): only the total deadline stops it
    assert 2.0 <= elapsed < 2.0 + 0.5, elapsed
    assert drip.connections == 1  # a spent deadline is not retried


def test_async_dripping_body_ends_at_the_total_deadline(drip):
    http.configure(max_total_time=1.5, read_timeout=1.0, max_attempts=3)

    async def fetch() -> float:
        started = time.monotonic()
        with pytest.raises(HttpTimeoutError) as info:
            await http.aget_json(drip.url, cache=False)
        assert "max_total_time" in str(info.value)
        await http.aclose_loop_client()
        return time.monotonic() - started

    elapsed = asyncio.run(fetch())
    assert 1.5 <= elapsed < 1.5 + 0.5, elapsed


def test_dripping_headers_end_at_the_total_deadline(drip):
    """httpcore reads headers with one timeout per read: only the socket-level deadline stops this."""
    drip.in_headers = True
    http.configure(max_total_time=1.5, read_timeout=1.0, max_attempts=3)
    started = time.monotonic()
    with pytest.raises(HttpTimeoutError, match="max_total_time"):
        http.request("GET", drip.url)
    assert 1.5 <= time.monotonic() - started < 1.5 + 0.5
    assert drip.connections == 1

    async def fetch() -> float:
        started = time.monotonic()
        with pytest.raises(HttpTimeoutError, match="max_total_time"):
            await http.arequest("GET", drip.url)
        await http.aclose_loop_client()
        return time.monotonic() - started

    assert 1.5 <= asyncio.run(fetch()) < 1.5 + 0.5


def test_a_silent_server_is_cut_at_the_deadline_not_after_read_timeout(drip):
    drip.interval = 60.0  # headers, one byte, then silence
    http.configure(max_total_time=0.8, read_timeout=30.0, max_attempts=5)
    started = time.monotonic()
    with pytest.raises(HttpTimeoutError):
        http.request("GET", drip.url)
    assert time.monotonic() - started < 0.8 + 0.5


def test_the_caller_keeps_its_own_extensions(server):
    server.expect_request("/x").respond_with_json({"ok": True})
    response = http.request("GET", server.url_for("/x"), extensions={"example.tag": "kept"})
    assert response.json() == {"ok": True}


def test_no_socket_operation_starts_after_the_deadline(server):
    import httpcore

    from dispatchguard.http.deadline import DeadlineBackend, deadline_scope

    backend = DeadlineBackend()
    with deadline_scope(time.monotonic() + 5):
        stream = backend.connect_tcp("127.0.0.1", server.port, timeout=1.0)
    try:
        assert stream.get_extra_info("socket") is not None
        with deadline_scope(time.monotonic() - 0.001):
            with pytest.raises(httpcore.ConnectTimeout, match="total deadline"):
                backend.connect_tcp("127.0.0.1", server.port, timeout=1.0)
            with pytest.raises(httpcore.WriteTimeout):
                stream.write(b"GET / HTTP/1.1\r\n\r\n", timeout=1.0)
            with pytest.raises(httpcore.ReadTimeout):
                stream.read(10, timeout=1.0)
        stream.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", timeout=1.0)  # no deadline outside a scope
        assert stream.read(4, timeout=2.0).startswith(b"HTTP")
    finally:
        stream.close()


@pytest.mark.parametrize("in_headers", [False, True])
def test_a_requests_session_ends_a_dripping_response_at_the_total_deadline(drip, tmp_path, in_headers):
    """requests_session(): urllib3 reads with one timeout per read, too; the socket-level deadline
    stops a drip in the body or in the headers, retries included."""
    requests = pytest.importorskip("requests")
    drip.in_headers = in_headers
    settings = http.HttpSettings(max_total_time=1.5, read_timeout=1.0, max_attempts=3)
    session = http.requests_session(settings=settings, cache_path=str(tmp_path / "c"))
    started = time.monotonic()
    try:
        with pytest.raises(requests.exceptions.RequestException):
            session.get(drip.url)
    finally:
        session.close()
    elapsed = time.monotonic() - started
    # per read the server is never late (0.3 s < read_timeout): only the total deadline stops it
    assert 1.5 <= elapsed < 1.5 + 1.0, elapsed


def test_a_requests_session_still_reads_ordinary_responses(server, tmp_path):
    server.expect_request("/close").respond_with_data('{"ok": 1}', headers={"Connection": "close"})
    server.expect_request("/keep").respond_with_json([1, 2])
    session = http.requests_session(settings=http.HttpSettings(max_total_time=5.0), cache_path=str(tmp_path / "c"))
    try:
        assert session.get(server.url_for("/close")).json() == {"ok": 1}  # the body outlives the connection
        assert session.get(server.url_for("/keep")).json() == [1, 2]
        assert session.get(server.url_for("/keep")).json() == [1, 2]
    finally:
        session.close()
