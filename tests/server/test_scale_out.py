"""Scale-out: two real service processes (uvicorn, subprocesses) share request ids and cancels
through a real redis-server; `serve --workers 2` does the same inside one command."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

pytest.importorskip("redis")
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(argv, env, port):
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"service exited: {process.stderr.read().decode(errors='replace')}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("service did not start")
        time.sleep(0.1)


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stderr.close()


class Hang:
    def __init__(self) -> None:
        self.started = threading.Event()
        self.released = threading.Event()
        self.released_by_test: list[bool] = []

    def __call__(self, body):
        self.started.set()
        self.released_by_test.append(self.released.wait(20))
        return "too late"


@pytest.fixture
def service_env(redis_db, llm_server):
    env = dict(os.environ)
    env["DISPATCHGUARD_REDIS_URL"] = redis_db
    env["DISPATCHGUARD_SERVE_SETTINGS"] = json.dumps({
        "base_url": llm_server.base_url, "model": "scripted",
        "registry": "dispatchguard.tools:REFERENCE_TOOLS",
    })
    return env


def chat_in_thread(url, payload, results):
    def post():
        results.append(httpx.post(url, json=payload, timeout=60))

    thread = threading.Thread(target=post)
    thread.start()
    return thread


def test_two_service_processes_cancel_through_each_other(service_env, llm_server):
    ports = [free_port(), free_port()]
    processes = [
        start([sys.executable, "-m", "uvicorn", "--factory", "dispatchguard.server.factory:app_from_environment",
               "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"], service_env, port)
        for port in ports
    ]
    try:
        one, two = (f"http://127.0.0.1:{port}" for port in ports)
        hang = Hang()
        llm_server.set_script([hang, "second run"])
        results = []
        thread = chat_in_thread(f"{one}/chat", {"message": "hi", "mode": "agent", "request_id": "shared"}, results)
        assert hang.started.wait(20)
        busy = httpx.post(f"{two}/chat", json={"message": "hi", "request_id": "shared"}, timeout=30)
        assert busy.status_code == 409
        assert httpx.post(f"{two}/chat/nothing-here/cancel", timeout=30).status_code == 404
        cancel = httpx.post(f"{two}/chat/shared/cancel", timeout=30)
        assert cancel.status_code == 202 and cancel.json() == {"request_id": "shared", "cancelled": True}
        thread.join(60)
        hang.released.set()
        (response,) = results
        assert response.status_code == 200
        assert response.json()["stop_reason"] == "cancelled"
        assert response.json()["response"] == "Cancelled: cancelled by the client"
        again = httpx.post(f"{two}/chat", json={"message": "hi", "request_id": "shared"}, timeout=30)
        assert again.status_code == 200 and again.json()["response"] == "second run"
        deadline = time.monotonic() + 20
        while not hang.released_by_test and time.monotonic() < deadline:
            time.sleep(0.01)
        assert hang.released_by_test == [True]  # cancelled while the model call still hung
    finally:
        for process in processes:
            stop(process)


def test_serve_with_workers_cancels_from_any_connection(service_env, llm_server):
    port = free_port()
    process = start([sys.executable, "-m", "dispatchguard", "serve", "--workers", "2", "--port", str(port),
                     "--base-url", llm_server.base_url, "--model", "scripted", "--log-level", "warning"],
                    service_env, port)
    try:
        base = f"http://127.0.0.1:{port}"
        hangs = [Hang() for _ in range(4)]
        llm_server.set_script(hangs)
        results: list[httpx.Response] = []
        threads = [chat_in_thread(f"{base}/chat", {"message": "hi", "request_id": f"w{i}"}, results)
                   for i in range(4)]
        for hang in hangs:
            assert hang.started.wait(20)
        for i in range(4):  # each cancel on a fresh connection: any worker may take it
            with httpx.Client() as client:
                assert client.post(f"{base}/chat/w{i}/cancel", timeout=30).status_code == 202
        for thread in threads:
            thread.join(60)
        for hang in hangs:
            hang.released.set()
        assert sorted(r.json()["stop_reason"] for r in results) == ["cancelled"] * 4
    finally:
        stop(process)
