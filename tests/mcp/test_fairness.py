"""One client's blocking sync calls take at most its share of the tool threads: the others are
still served (over HTTP, a client is its peer address)."""

from __future__ import annotations

import asyncio
import json
import threading

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.integration]

HEADERS = {"Accept": "application/json", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}


def call(request_id: int, tool: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def result_of(response: httpx.Response) -> dict | str:
    text = response.json()["result"]["content"][0]["text"]
    return json.loads(text)


def test_a_clients_blocking_calls_leave_the_others_served(serve_registry, served):
    from dispatchguard.agent.execute import MAX_STRANDED_THREADS

    url = serve_registry(json_response=True, tool_timeout=30)
    served.HOLD_GATE.clear()
    served.HELD = threading.Semaphore(0)  # counts this test's holds only

    async def scenario():
        greedy = httpx.AsyncClient(timeout=40, transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2"))
        async with greedy, httpx.AsyncClient(timeout=10) as other:
            holds = [asyncio.ensure_future(greedy.post(url, json=call(n, "hold", {}), headers=HEADERS))
                     for n in range(MAX_STRANDED_THREADS)]
            for _ in range(4):  # its share is running
                assert await asyncio.to_thread(served.HELD.acquire, True, 10)
            added = await other.post(url, json=call(99, "add", {"a": 40, "b": 2}), headers=HEADERS)
            assert result_of(added) == 42  # another client's sync tool runs meanwhile
            assert not served.HELD.acquire(False)  # the greedy client's other calls wait for its own slots
            served.HOLD_GATE.set()
            return [result_of(await hold) for hold in holds]

    try:
        answers = asyncio.run(scenario())
    finally:
        served.HOLD_GATE.set()
    assert answers == ["held"] * MAX_STRANDED_THREADS  # the waiting ones ran as the first ones ended


def test_a_call_past_its_clients_share_answers_overloaded_after_the_tool_timeout(serve_registry, served):
    url = serve_registry(json_response=True, tool_timeout=0.5, thread_share=1)
    served.HOLD_GATE.clear()
    served.HELD = threading.Semaphore(0)

    async def scenario():
        async with httpx.AsyncClient(timeout=10) as client:
            first = asyncio.ensure_future(client.post(url, json=call(1, "hold", {}), headers=HEADERS))
            assert await asyncio.to_thread(served.HELD.acquire, True, 10)
            second = await client.post(url, json=call(2, "add", {"a": 1}), headers=HEADERS)
            served.HOLD_GATE.set()
            return result_of(await first), result_of(second)

    try:
        first, second = asyncio.run(scenario())
    finally:
        served.HOLD_GATE.set()
    assert first["kind"] == "timeout"  # the hold outlived the tool timeout; its thread kept the share
    assert second == {"error": "this client's 1 sync tool threads (its share of the server's 8) stayed busy for "
                               "0.5s; retry when one of its calls ends", "kind": "overloaded", "tool": "add",
                      "share": 1}

def test_a_share_is_held_until_the_thread_ends_not_until_the_timeout(served):
    from dispatchguard.agent import execute_tool

    served.HOLD_GATE.clear()
    ended = threading.Event()
    try:
        text = asyncio.run(execute_tool({"name": "hold", "args": {}}, registry=served.TOOLS, timeout=0.2,
                                        thread_ended=ended.set))
        assert json.loads(text)["kind"] == "timeout"
        assert not ended.is_set()  # the stranded thread still runs, and still counts
    finally:
        served.HOLD_GATE.set()
    assert ended.wait(10)
    ended_too = threading.Event()
    asyncio.run(execute_tool({"name": "add", "args": {"a": "x"}}, registry=served.TOOLS, thread_ended=ended_too.set))
    assert ended_too.wait(10)  # an invalid call's thread (the validator runs in it) ends too
