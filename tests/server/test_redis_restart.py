"""Request state across a Redis restart (kill -9, then a fresh redis-server on the same port, without
persistence): a running request keeps its id, a run whose id is taken stops, a cancel still arrives."""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dispatchguard.agent import CancelToken
from dispatchguard.server.state import LOST_REASON, RedisRequestState

redis = pytest.importorskip("redis")

pytestmark = pytest.mark.integration


class RestartableRedis:
    """A redis-server of its own, on a fixed port, that the test can kill -9 and start again."""

    def __init__(self, workdir: Path) -> None:
        beside_python = Path(sys.executable).with_name("redis-server")
        self.binary = str(beside_python) if beside_python.is_file() else shutil.which("redis-server")
        if self.binary is None:
            pytest.fail("redis-server not found: install the test extras")
        self.workdir = workdir
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.workdir),
             "--save", "", "--appendonly", "no"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def restart(self) -> None:
        self.kill()
        self.start()


@pytest.fixture
def redis_server(tmp_path):
    server = RestartableRedis(tmp_path)
    server.start()
    yield server
    server.kill()


async def eventually(predicate, seconds=8.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.05)


def test_a_running_request_keeps_its_id_across_a_redis_restart(redis_server):
    async def scenario():
        first, second = RedisRequestState(redis_server.url, lease_seconds=1), RedisRequestState(redis_server.url)
        await first.start()
        await second.start()
        try:
            token = CancelToken()
            assert await first.claim("r1", token)
            redis_server.restart()
            # the lease renewal (every 1/3 s) re-claims the key the restart lost: wait until it has
            probe = redis.Redis.from_url(redis_server.url)
            await eventually(lambda: probe.get(f"{first.prefix}request:r1") == first.owner.encode())
            probe.close()
            assert not await second.claim("r1", CancelToken())  # 409: still running in the first
            assert not token.cancelled
            assert await second.cancel("r1", "stop it")  # a cancel sent elsewhere still arrives
            await eventually(lambda: token.cancelled)
            assert token.reason == "stop it"
        finally:
            await first.close()
            await second.close()

    asyncio.run(scenario())


def test_a_run_whose_id_was_taken_after_a_restart_stops(redis_server):
    async def scenario():
        first, second = RedisRequestState(redis_server.url, lease_seconds=30), RedisRequestState(redis_server.url)
        await first.start()
        await second.start()
        try:
            token = CancelToken()
            assert await first.claim("r2", token)
            redis_server.restart()
            for _ in range(50):  # the second's client reconnects to the new server
                try:
                    taken = await second.claim("r2", CancelToken())
                    break
                except Exception:
                    await asyncio.sleep(0.1)
            assert taken  # the key was lost with the restart
            for _ in range(50):  # a round that meets the dropped connection is retried by the next one
                await first.renew_once()
                if token.cancelled:
                    break
                await asyncio.sleep(0.1)
            assert token.cancelled and token.reason == LOST_REASON
        finally:
            await first.close()
            await second.close()

    asyncio.run(scenario())
