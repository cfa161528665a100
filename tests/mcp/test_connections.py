"""HTTP read deadlines and connection caps: 408 for slow headers and bodies, 429 over a peer's
share, 503 over the total, both with Retry-After; and a slowloris against a real uvicorn with a
low file-descriptor limit, during which a normal client is served."""

from __future__ import annotations

import asyncio
import json
import resource
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.integration]

CALL = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}).encode()
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2025-06-18"}


PROTOCOLS = ["dispatchguard.mcp.connections:GuardedH11Protocol"]
try:
    import httptools  # noqa: F401

    PROTOCOLS.append("dispatchguard.mcp.connections:GuardedHttpToolsProtocol")
except ImportError:  # pragma: no cover - uvicorn[standard] brings it
    pass


@pytest.fixture
def guarded(served):
    """Serve ``served_tools.TOOLS`` on a real uvicorn with one of dispatchguard's HTTP protocols
    and the given ``ConnectionLimits``; returns the port."""
    import uvicorn

    from dispatchguard.mcp import create_http_app

    servers = []

    def start(limits, protocol: str) -> int:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(create_http_app(served.TOOLS, limits=limits), log_level="warning",
                                               lifespan="on", http=protocol))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        servers.append((server, thread, sock))
        deadline = time.monotonic() + 10
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        return sock.getsockname()[1]

    yield start
    for server, thread, sock in servers:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def answer(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_caps_and_deadlines_answer_429_503_408(guarded, protocol):
    from dispatchguard.mcp.connections import ConnectionLimits

    port = guarded(ConnectionLimits(header_timeout=0.5, body_timeout=0.5, max_connections=4,
                                    max_connections_per_peer=2, retry_after=7), protocol)
    silent = connect(port)  # says nothing: closed at the header deadline, without an answer
    slow_headers = connect(port)
    slow_headers.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    over_peer = answer(connect(port))  # the third from 127.0.0.1
    assert over_peer.startswith(b"HTTP/1.1 429 Too Many Requests\r\n") and b"retry-after: 7\r\n" in over_peer
    slow_body = connect(port, "127.0.0.2")
    slow_body.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{")
    other = connect(port, "127.0.0.3")  # the fourth: within the total
    over_total = answer(connect(port, "127.0.0.4"))
    assert over_total.startswith(b"HTTP/1.1 503 Service Unavailable\r\n") and b"retry-after: 7\r\n" in over_total
    assert answer(silent) == b""
    assert answer(slow_headers).startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    late = answer(slow_body)
    assert late.startswith(b"HTTP/1.1 408 Request Timeout\r\n") and b"Request body not received within 0.5s" in late
    other.close()
    # the slots are free again: an ordinary call is served
    reply = httpx.post(f"http://127.0.0.1:{port}/mcp", content=CALL, headers=HEADERS, timeout=5)
    assert reply.status_code == 200 and '"text":"3"' in reply.text.replace(" ", "")


@pytest.mark.parametrize(("options", "message"), [
    ({"header_timeout": 0}, "header_timeout must be positive seconds, got 0"),
    ({"body_timeout": float("inf")}, "body_timeout must be positive seconds, got inf"),
    ({"max_connections": 1.5}, "max_connections must be a positive int, got 1.5"),
    ({"max_connections": 10, "max_connections_per_peer": 11},
     "max_connections_per_peer (11) must not exceed max_connections (10)"),
])
def test_limits_are_checked(options, message):
    from dispatchguard.mcp.connections import ConnectionLimits

    with pytest.raises(ValueError) as raised:
        ConnectionLimits(**options)
    assert str(raised.value) == message


def test_cli_refuses_bad_limits(served, capsys):
    from dispatchguard.cli.main import main

    assert main(["mcp", "--registry", "served_tools:TOOLS", "--transport", "http", "--max-connections", "4"]) == 2
    assert "max_connections_per_peer (32) must not exceed max_connections (4)" in capsys.readouterr().err


class Dripper:
    """A slowloris connection from 127.0.0.2: a byte at a time until the server answers or closes,
    or ``stop`` is set. ``held`` while connected and unanswered; ``answer``: what the server sent."""

    def __init__(self) -> None:
        self.held = False
        self.answer = b""
        self.settled = asyncio.Event()  # answered, or still dripping after three bytes

    async def run(self, port: int, headers_only: bool, stop: asyncio.Event) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
        except OSError:
            self.settled.set()
            raise
        self.held = True
        head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 9999\r\n"
        pending = head if headers_only else b"x" * 9999
        if not headers_only:
            writer.write(head + b"\r\n")
        answered = asyncio.ensure_future(reader.read(65536))
        stopped = asyncio.ensure_future(stop.wait())
        try:
            dripped = 0
            while not answered.done() and not stop.is_set() and pending:
                writer.write(pending[:1])
                pending = pending[1:]
                await asyncio.wait([answered, stopped], timeout=0.2)  # the drip's pace; an answer or stop ends it
                dripped += 1
                if dripped == 3:
                    self.settled.set()
            if answered.done():
                self.answer = answered.result()
                self.held = False
        except OSError:
            self.answer = b"reset"
        finally:
            self.held = False
            self.settled.set()
            answered.cancel()
            stopped.cancel()
            writer.close()


def test_slowloris_against_a_low_descriptor_limit_leaves_normal_clients_served(server_env):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        number = probe.getsockname()[1]

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    command = [sys.executable, "-m", "dispatchguard", "mcp", "--registry", "served_tools:TOOLS", "--transport",
               "http", "--port", str(number)]  # the default deadlines and caps
    server = subprocess.Popen(command, env=server_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              preexec_fn=limit)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, server.stderr.read().decode(errors="replace")
            try:
                if httpx.get(f"http://127.0.0.1:{number}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)

        async def scenario():
            stop = asyncio.Event()
            drippers = [Dripper() for _ in range(260)]
            attacks = [asyncio.ensure_future(d.run(number, n % 10 == 9, stop)) for n, d in enumerate(drippers)]
            latencies = []
            try:
                await asyncio.wait_for(asyncio.gather(*(d.settled.wait() for d in drippers)), 20)
                async with httpx.AsyncClient(timeout=5, limits=httpx.Limits(max_keepalive_connections=0)) as client:
                    for _ in range(10):
                        started = time.perf_counter()
                        reply = await client.post(f"http://127.0.0.1:{number}/mcp", content=CALL, headers=HEADERS)
                        latencies.append(time.perf_counter() - started)
                        assert reply.status_code == 200 and '"text":"3"' in reply.text.replace(" ", "")
                held = sum(d.held for d in drippers)
            finally:
                stop.set()
                await asyncio.gather(*attacks, return_exceptions=True)
            return latencies, held, [d.answer for d in drippers]

        latencies, held, answers = asyncio.run(scenario())
    finally:
        server.terminate()
        server.wait(timeout=20)
        server.stderr.close()
    assert max(latencies) < 5
    assert held <= 32  # a peer's share, no more
    assert sum(a.startswith(b"HTTP/1.1 429 Too Many Requests") for a in answers) >= 100


def test_the_command_picks_the_fastest_guarded_protocol_installed():
    from dispatchguard.mcp.connections import http_protocol

    assert http_protocol() == PROTOCOLS[-1]
