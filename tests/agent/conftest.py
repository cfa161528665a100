"""Fixtures for the agent tests: a scripted OpenAI-compatible model server and a tool registry."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest


class Calls:
    """What the test tools saw, in order."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.log: list[tuple[str, object]] = []
        # `gated_sync` runs until a test sets this: a sync tool that is surely still running
        self.gate = threading.Event()

    def add(self, name: str, value: object) -> None:
        with self.lock:
            self.log.append((name, value))
            self.lock.notify_all()

    def wait_for(self, name: str, timeout: float = 30) -> None:
        """Block until a tool called ``name`` has logged (the slow tools log when they start): an
        event to act on, instead of a timer that guesses how long the machine takes to get there."""
        with self.lock:
            if not self.lock.wait_for(lambda: name in self.names(), timeout):
                raise AssertionError(f"tool {name!r} did not start within {timeout} s; calls: {self.log}")

    def names(self) -> list[str]:
        return [name for name, _ in self.log]


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def registry(calls):
    from dispatchguard import ToolRegistry

    reg = ToolRegistry()

    @reg.tool(parallel_safe=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.add("add", (a, b))
        return a + b

    @reg.tool(parallel_safe=True)
    def search(query: str) -> dict:
        """Search the web."""
        calls.add("search", query)
        return {"results": [{"title": f"{query} {i}", "url": f"https://e.org/{i}"} for i in range(5)]}

    @reg.tool()
    def fail(reason: str) -> str:
        """Always fails."""
        calls.add("fail", reason)
        raise RuntimeError(reason)

    @reg.tool()
    def slow_sync(seconds: float) -> str:
        """Sleep in a thread."""
        calls.add("slow_sync", seconds)
        time.sleep(seconds)
        return "slept"

    @reg.tool()
    async def slow_async(seconds: float) -> str:
        """Sleep on the event loop."""
        calls.add("slow_async", seconds)
        await asyncio.sleep(seconds)
        return "slept"

    @reg.tool(parallel_safe=True)
    async def wait_async(seconds: float, label: str) -> str:
        """Sleep, then return the label."""
        await asyncio.sleep(seconds)
        calls.add("wait_async", label)
        return label

    @reg.tool(parallel_safe=True)
    def wait_sync(seconds: float, label: str) -> str:
        """Sleep in a thread, then return the label."""
        time.sleep(seconds)
        calls.add("wait_sync", label)
        return label

    @reg.tool()
    def gated_sync(label: str) -> str:
        """Run in a thread until the test opens the gate."""
        calls.add("gated_sync", label)
        calls.gate.wait(30)
        return label

    @reg.tool()
    def write(label: str) -> str:
        """A side effect: not parallel-safe."""
        calls.add("write", label)
        return label

    return reg


@pytest.fixture(autouse=True)
def _no_stranded_threads_left():
    """Tests that time out a sync tool wait for its thread, so the next test starts clean."""
    yield
    from dispatchguard.agent.execute import stranded_threads

    deadline = time.monotonic() + 3
    while stranded_threads() and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.fixture
def llm(llm_server):
    """The JSON-in-text protocol (models without native tools); tests/agent/test_native.py covers
    native tool calling."""
    from dispatchguard.agent import OpenAICompatibleLLM

    return OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted", native_tools=False)
