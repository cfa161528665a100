"""Timeouts bound every sync tool (CrewAI, LangChain, plain): the caller gets its answer while the
tool is still blocked, and concurrent timeouts never strand more than MAX_STRANDED_THREADS threads."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from crewai.tools import BaseTool as CrewBaseTool
from langchain_core.tools import StructuredTool
from langchain_core.tools import tool as lc_tool

from dispatchguard import ToolRegistry
from dispatchguard.agent import execute_tool, run_tool_loop, stranded_threads
from dispatchguard.agent.execute import MAX_STRANDED_THREADS


class Gate:
    """Tools block on ``release``; ``started``/``finished`` count what really ran."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.started = 0
        self.finished = 0

    def block(self, q: str) -> str:
        with self.lock:
            self.started += 1
        self.release.wait(10)
        with self.lock:
            self.finished += 1
        return q


def build_crewai(gate: Gate):
    class Blocking(CrewBaseTool):
        name: str = "blocking"
        description: str = "Blocks."

        def _run(self, q: str) -> str:
            return gate.block(q)

    return Blocking()


def build_lc_tool(gate: Gate):
    @lc_tool
    def blocking(q: str) -> str:
        """Blocks."""
        return gate.block(q)

    return blocking


def build_lc_structured(gate: Gate):
    return StructuredTool.from_function(gate.block, name="blocking", description="Blocks.")


def build_plain(gate: Gate):
    def blocking(q: str) -> str:
        """Blocks."""
        return gate.block(q)

    return blocking


BUILDERS = {"crewai": build_crewai, "lc_tool": build_lc_tool, "lc_structured": build_lc_structured,
            "plain": build_plain}


@pytest.fixture
def gate():
    g = Gate()
    yield g
    g.release.set()
    deadline = time.monotonic() + 10
    while stranded_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert stranded_threads() == 0


def registry_with(builder, gate: Gate) -> ToolRegistry:
    reg = ToolRegistry()
    reg.register("blocking", BUILDERS[builder](gate))
    assert not reg.spec("blocking").is_async  # a sync tool: it runs in our bounded threads
    return reg


@pytest.mark.parametrize("builder", list(BUILDERS))
def test_execute_tool_times_out_a_blocked_sync_tool(builder, gate):
    reg = registry_with(builder, gate)
    out = json.loads(asyncio.run(execute_tool({"name": "blocking", "args": {"q": "x"}}, registry=reg,
                                              timeout=0.2)))
    assert out == {"error": "tool 'blocking' timed out after 0.2s", "kind": "timeout", "tool": "blocking",
                   "timeout": 0.2}
    assert (gate.started, gate.finished) == (1, 0)  # answered while the tool is still blocked
    assert stranded_threads() == 1


@pytest.mark.parametrize("builder", list(BUILDERS))
def test_run_tool_loop_returns_while_a_sync_tool_is_blocked(builder, gate, llm, llm_server):
    reg = registry_with(builder, gate)
    llm_server.set_script([json.dumps({"name": "blocking", "args": {"q": "x"}}), "Gave up."])
    result = run_tool_loop(llm, "go", registry=reg, tool_timeout=0.3)
    assert result.stop_reason == "answer" and result.response.startswith("Gave up.")
    assert "timed out after 0.3s" in result.history[0]
    assert (gate.started, gate.finished) == (1, 0)  # asyncio.run did not wait for the tool's thread


@pytest.mark.parametrize("builder", ["plain", "lc_tool"])
def test_concurrent_timeouts_never_strand_more_than_the_cap(builder, gate):
    reg = registry_with(builder, gate)

    async def twenty():
        return await asyncio.gather(*(
            execute_tool({"name": "blocking", "args": {"q": str(i)}}, registry=reg, timeout=0.3)
            for i in range(20)))

    results = [json.loads(r) for r in asyncio.run(twenty())]
    kinds = {r["kind"] for r in results}
    assert kinds <= {"timeout", "overloaded"} and "timeout" in kinds
    assert gate.started <= MAX_STRANDED_THREADS
    assert stranded_threads() <= MAX_STRANDED_THREADS
    assert stranded_threads() == gate.started - gate.finished


def test_waiting_calls_get_a_slot_when_one_frees(gate):
    reg = registry_with("plain", gate)

    async def main():
        blocked = [asyncio.ensure_future(execute_tool({"name": "blocking", "args": {"q": str(i)}}, registry=reg,
                                                      timeout=10)) for i in range(MAX_STRANDED_THREADS + 2)]
        while gate.started < MAX_STRANDED_THREADS:
            await asyncio.sleep(0.01)
        assert gate.started == MAX_STRANDED_THREADS  # the other two wait for a slot
        gate.release.set()
        return await asyncio.gather(*blocked)

    results = asyncio.run(main())
    assert sorted(json.loads(r) for r in results) == list(range(MAX_STRANDED_THREADS + 2))  # "3" is JSON text
    assert gate.started == gate.finished == MAX_STRANDED_THREADS + 2
