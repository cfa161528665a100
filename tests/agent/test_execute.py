"""execute_tool / execute_tools: threads for sync tools, timeouts, cancellation, call order."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Annotated

import pytest

from dispatchguard import InjectedArg, ToolRegistry
from dispatchguard.agent import execute as execute_module
from dispatchguard.agent.execute import (
    CancelToken,
    execute_tool,
    execute_tools,
    stranded_threads,
)


def run(coro):
    return asyncio.run(coro)


def call(name, **args):
    return {"name": name, "args": args}


def until_no_stranded_threads(seconds=10):
    """Wait (polling, bounded) until the stranded threads have returned; True if they have."""
    deadline = time.monotonic() + seconds
    while stranded_threads() and time.monotonic() < deadline:
        time.sleep(0.02)
    return stranded_threads() == 0


def test_sync_and_async_tools_return_json_text(registry):
    assert run(execute_tool(call("add", a=2, b=3), registry=registry)) == "5"
    assert run(execute_tool('{"name": "slow_async", "args": {"seconds": 0}}', registry=registry)) == (
        '"slept"'
    )


def test_the_dispatcher_answers_bad_calls(registry, calls):
    unknown = json.loads(run(execute_tool(call("nope"), registry=registry)))
    assert unknown["kind"] == "unknown_tool" and unknown["tool"] == "nope"
    invalid = json.loads(run(execute_tool(call("add", a="2", b=3), registry=registry)))
    assert invalid["kind"] == "invalid_args"
    garbage = json.loads(run(execute_tool("{not json", registry=registry)))
    assert garbage["kind"] == "invalid_json"
    assert calls.log == []


def test_tool_errors_are_error_objects(registry):
    failed = json.loads(run(execute_tool(call("fail", reason="boom"), registry=registry)))
    assert failed["kind"] == "tool_error" and "boom" in failed["error"]


def test_sync_tool_timeout_returns_a_timeout_error_and_strands_one_thread(registry):
    started = time.perf_counter()
    result = json.loads(run(execute_tool(call("slow_sync", seconds=0.4), registry=registry,
                                         timeout=0.1)))
    assert time.perf_counter() - started < 0.35
    assert result == {"error": "tool 'slow_sync' timed out after 0.1s", "kind": "timeout",
                      "tool": "slow_sync", "timeout": 0.1}
    assert stranded_threads() == 1
    deadline = time.monotonic() + 2
    while stranded_threads() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert stranded_threads() == 0


def test_async_tool_timeout_cancels_the_coroutine(registry):
    started = time.perf_counter()
    result = json.loads(run(execute_tool(call("slow_async", seconds=5), registry=registry,
                                         timeout=0.2)))
    assert time.perf_counter() - started < 1
    assert result["kind"] == "timeout" and result["tool"] == "slow_async"
    assert stranded_threads() == 0


def test_too_many_stranded_threads_refuse_new_sync_calls(registry, monkeypatch, calls):
    monkeypatch.setattr(execute_module, "MAX_STRANDED_THREADS", 1)
    first = json.loads(run(execute_tool(call("slow_sync", seconds=0.3), registry=registry,
                                        timeout=0.05)))
    assert first["kind"] == "timeout"
    refused = json.loads(run(execute_tool(call("add", a=1, b=2), registry=registry)))
    assert refused["kind"] == "overloaded" and refused["stranded"] == 1
    # async tools do not need a thread: still served
    assert run(execute_tool(call("slow_async", seconds=0), registry=registry)) == '"slept"'
    assert until_no_stranded_threads()
    assert run(execute_tool(call("add", a=1, b=2), registry=registry)) == "3"
    assert calls.names() == ["slow_sync", "slow_async", "add"]


def test_abandoned_waits_count_as_stranded(registry, calls):
    async def abandon():
        task = asyncio.ensure_future(execute_tool(call("gated_sync", label="x"), registry=registry))
        await asyncio.to_thread(calls.wait_for, "gated_sync")  # the tool runs in its thread now
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return stranded_threads()

    assert run(abandon()) == 1
    calls.gate.set()
    assert until_no_stranded_threads()


def test_cancel_before_the_tool_never_runs_it(registry, calls):
    token = CancelToken()
    token.cancel("user left")
    result = json.loads(run(execute_tool(call("add", a=1, b=2), registry=registry, cancel=token)))
    assert result["kind"] == "cancelled" and "user left" in result["error"]
    assert calls.log == []
    assert repr(token) == "CancelToken(cancelled=True)"


@pytest.mark.parametrize("tool", ["slow_async", "slow_sync"])
def test_a_cancel_stops_waiting_for_a_running_tool_at_once(registry, calls, tool):
    token = CancelToken()

    async def scenario():
        # the cancel comes when the tool has started (an event, not a timer)
        loop = asyncio.get_running_loop()
        loop.run_in_executor(None, lambda: (calls.wait_for(tool), loop.call_soon_threadsafe(token.cancel)))
        started = time.monotonic()
        text = await execute_tool(call(tool, seconds=3), registry=registry, cancel=token, timeout=12)
        return text, time.monotonic() - started

    text, waited = run(scenario())
    result = json.loads(text)
    assert result["kind"] == "cancelled" and result["completed"] is False, result
    assert waited < 2.5  # neither the tool's 3 s nor the 12 s timeout: the wait stopped at the cancel
    assert calls.names() == [tool]
    if tool == "slow_sync":  # the thread cannot be stopped: it runs on, counted, until it returns
        assert stranded_threads() == 1
        deadline = time.monotonic() + 6
        while stranded_threads() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stranded_threads() == 0
    token.cancel("again")  # a second cancel keeps the first reason
    assert token.reason == "cancelled"


def test_a_cancel_that_arrives_as_the_tool_returns_reports_it_completed():
    token = CancelToken()
    reg = ToolRegistry()

    @reg.tool()
    def side_effect() -> str:
        """Does its work, then the user cancels."""
        token.cancel("too late")
        return "done"

    result = json.loads(run(execute_tool(call("side_effect"), registry=reg, cancel=token)))
    assert result["kind"] == "cancelled" and result["completed"] is True


def test_timeout_must_be_positive(registry):
    with pytest.raises(ValueError, match="timeout"):
        run(execute_tool(call("add", a=1, b=2), registry=registry, timeout=0))
    assert run(execute_tool(call("add", a=1, b=2), registry=registry, timeout=None)) == "3"


def test_parallel_safe_calls_run_concurrently_and_return_in_call_order(registry, calls):
    actions = [
        call("wait_async", seconds=0.3, label="first"),
        call("wait_sync", seconds=0.2, label="second"),
        call("wait_async", seconds=0.1, label="third"),
        call("wait_sync", seconds=0.0, label="fourth"),
    ]
    started = time.perf_counter()
    results = run(execute_tools(actions, registry=registry))
    elapsed = time.perf_counter() - started
    assert results == ['"first"', '"second"', '"third"', '"fourth"']
    assert elapsed < 0.5  # not 0.6: they overlapped
    # they finished in the order of their durations, not the order of the calls
    assert [label for _, label in calls.log] == ["fourth", "third", "second", "first"]


def test_calls_that_are_not_parallel_safe_keep_their_order(registry, calls):
    actions = [
        call("wait_async", seconds=0.1, label="a"),
        call("write", label="b"),
        call("wait_async", seconds=0.05, label="c"),
        call("nope"),
        call("write", label="d"),
    ]
    results = run(execute_tools(actions, registry=registry))
    assert results[:3] == ['"a"', '"b"', '"c"'] and results[4] == '"d"'
    assert json.loads(results[3])["kind"] == "unknown_tool"
    # "b" waited for "a"; "c" ran after "b"
    assert [label for _, label in calls.log] == ["a", "b", "c", "d"]


def test_every_call_shape_reaches_its_tool(registry, calls):
    from dispatchguard.runtime.models import ToolAction

    shapes = [ToolAction(name="add", args={"a": 1, "b": 1}), {"tool": "add", "args": {"a": 1, "b": 2}},
              b'{"name": "add", "args": {"a": 1, "b": 3}}', '{"name": "add", "args": {"a": 1, "b": 4}}']
    assert [run(execute_tool(s, registry=registry)) for s in shapes] == ["2", "3", "4", "5"]
    for bad in ("[1]", {"name": 3, "args": {}}, None):
        assert json.loads(run(execute_tool(bad, registry=registry)))["kind"] == "invalid_action"
    assert calls.names() == ["add"] * 4


def test_context_reaches_injected_arguments():
    reg = ToolRegistry()

    def whoami(user: Annotated[str, InjectedArg("user_id")]) -> str:
        return user

    reg.register("whoami", whoami)
    call_ = {"name": "whoami", "args": {"user": "admin"}}
    assert run(execute_tool(call_, registry=reg, context={"user_id": "u1"})) == '"u1"'
    assert run(execute_tools([call_, call_], registry=reg, context={"user_id": "u2"})) == ['"u2"', '"u2"']
    assert json.loads(run(execute_tool(call_, registry=reg)))["kind"] == "missing_context"


def test_a_call_that_never_started_is_not_stranded():
    from concurrent.futures import Future

    from dispatchguard.agent.execute import _strand

    future = Future()
    future.cancel()  # still queued when its wait timed out: cancelled, no thread used
    _strand(future)
    assert stranded_threads() == 0


def test_a_thread_whose_wait_was_cancelled_before_it_started_does_nothing(registry, calls,
                                                                           monkeypatch):
    pending = []

    class NotYetStarted:
        def __init__(self, target, **kwargs):
            self.target = target

        def start(self):
            pending.append(self.target)

    monkeypatch.setattr(execute_module.threading, "Thread", NotYetStarted)
    assert execute_module._reserve_slot()  # the caller holds a slot; the thread frees it
    future = execute_module._start_thread(call("add", a=1, b=2), registry)
    monkeypatch.undo()
    assert future.cancel()
    pending[0]()  # the thread finally runs
    assert calls.log == []


def test_system_exit_in_a_sync_tool_reaches_the_caller():
    reg = ToolRegistry()

    @reg.tool()
    def leave() -> str:
        """Exit."""
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        run(execute_tool(call("leave"), registry=reg))


def test_action_text_nested_too_deep_is_invalid_json_not_a_crash():
    """Red-team finding (issue 23): execute_tool and execute_tools raised RecursionError."""
    import asyncio
    import json

    from dispatchguard import ToolRegistry
    from dispatchguard.agent import execute_tool, execute_tools

    reg = ToolRegistry()
    reg.register("echo", lambda q: q)
    deep = '{"name": "echo", "args": {"q": ' + "[" * 1200 + "]" * 1200 + "}}"
    assert json.loads(asyncio.run(execute_tool(deep, registry=reg)))["kind"] == "invalid_json"
    [answer] = asyncio.run(execute_tools([deep], registry=reg))
    assert json.loads(answer)["kind"] == "invalid_json"
