"""Run tool calls from async code: timeouts, cancellation, concurrency, results in call order.

:func:`execute_tool` goes through the runtime's dispatcher (validation, sanitising, JSON text, error
objects); it adds what an agent loop needs on top:

- **sync tools run in a worker thread (a daemon thread per call), async tools natively** on the
  running event loop, so a slow tool never blocks the loop;
- **a timeout** (12 s by default): the call then returns ``{"error", "kind": "timeout", "tool",
  "timeout"}``. An async tool is cancelled. *A sync tool's thread cannot be killed*: Python has no
  way to stop a thread, so it keeps running until the function returns and its result is dropped.
  Such stranded threads are counted (:func:`stranded_threads`). A sync call reserves one of
  :data:`MAX_STRANDED_THREADS` thread slots, atomically, *before* its thread starts, and the slot
  is freed when the thread ends; so however many calls time out together, at most that many
  threads are ever stranded. A call that finds every slot taken waits for one (within its
  timeout), and is refused at once with kind ``"overloaded"`` when all of them are held by
  stranded threads. Sync tools of every framework (LangChain's included) run in these threads,
  never in the event loop's default executor (which ``asyncio.run`` waits for at shutdown).
  Tools that talk to the network should carry their own timeouts (``dispatchguard.http`` does);
- ``context`` is handed to the dispatcher: the values of the tools' injected arguments;
- **cancellation** through a :class:`CancelToken`, checked before and after each tool: a call
  cancelled before it starts never runs; one cancelled while it ran has its result replaced by
  ``{"kind": "cancelled", "completed": true}`` so the caller stops;
- :func:`execute_tools` runs a list of calls, consecutive calls of tools registered with
  ``parallel_safe=True`` concurrently and the others one at a time, and returns the results in call
  order.

Like ``dispatch_tool``, these functions never raise for a bad call or a failing tool: every outcome
is JSON text.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from dispatchguard.agent.cancellable import CancelToken, RunCancelled, until_cancelled

__all__ = [
    "MAX_STRANDED_THREADS",
    "execute_tool",
    "execute_tools",
    "stranded_threads",
]

#: Sync tool threads alive at once (running, or stranded after a timeout): a bound on strays.
MAX_STRANDED_THREADS = 8
_SLOT_POLL_S = 0.005

_lock = threading.Lock()
_stranded = 0
_live = 0  # sync tool threads holding a slot (started or about to start, not finished)


def stranded_threads() -> int:
    """How many sync tools are still running after their call timed out or was abandoned."""
    return _stranded


def _error(message: str, kind: str, tool: str, **details: Any) -> str:
    from dispatchguard.runtime.dispatcher import error_json

    return error_json(message, kind, tool, details)


def _tool_name(action: Any) -> str:
    """The tool name a call asks for, without validating it (``""`` when there is none)."""
    name = getattr(action, "name", None)
    if name is None:
        if isinstance(action, (str, bytes)):
            try:
                action = json.loads(action)
            except (ValueError, RecursionError):  # the dispatcher answers it: invalid_json
                return ""
        if isinstance(action, dict):
            name = action.get("name", action.get("tool"))
    return name if isinstance(name, str) else ""


def _reserve_slot() -> bool:
    global _live
    with _lock:
        if _live >= MAX_STRANDED_THREADS:
            return False
        _live += 1
        return True


def _free_slot() -> None:
    global _live
    with _lock:
        _live -= 1


def _start_thread(action: Any, registry: Any, context: Any = None,
                  thread_ended: Callable[[], None] | None = None) -> Future[str]:
    """Dispatch in a new daemon thread holding a reserved slot: a stuck tool never holds up
    interpreter exit (a pool's workers are joined at exit) nor ``asyncio.run`` (which joins the
    loop's default executor)."""
    from dispatchguard.runtime.dispatcher import dispatch_tool

    future: Future[str] = Future()

    def work() -> None:
        try:
            if not future.set_running_or_notify_cancel():  # the wait was cancelled before we started
                return
            try:
                future.set_result(dispatch_tool(action, registry=registry, context=context))
            except BaseException as exc:
                future.set_exception(exc)
        finally:
            _free_slot()
            if thread_ended is not None:
                thread_ended()

    # the caller's context variables go with the call (its trace context: the tool's span is a child)
    context_copy = contextvars.copy_context()
    threading.Thread(target=functools.partial(context_copy.run, work), name="dispatchguard-tool",
                     daemon=True).start()
    return future


def _release(_future: Future[str]) -> None:
    global _stranded
    with _lock:
        _stranded -= 1


def _strand(future: Future[str]) -> None:
    """Account for a thread we stopped waiting for (unless it never started)."""
    global _stranded
    if future.cancelled():
        return
    with _lock:
        _stranded += 1
    future.add_done_callback(_release)


def _timed_out(name: str, timeout: float | None) -> str:
    return _error(f"tool {name!r} timed out after {timeout:g}s", "timeout", name, timeout=timeout)


def _abandoned(name: str, cancel: CancelToken) -> str:
    return _error(
        f"cancelled while tool {name!r} ran: {cancel.reason}; its result will be dropped",
        "cancelled", name, completed=False,
    )


async def _run_sync(
    action: Any, registry: Any, name: str, timeout: float | None, context: Any, cancel: CancelToken | None,
    thread_ended: Callable[[], None] | None = None,
) -> str:
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    started = False
    try:
        while not _reserve_slot():
            if _stranded >= MAX_STRANDED_THREADS:
                return _error(
                    f"{_stranded} tool threads are still running after a timeout; not starting another "
                    "sync tool until one of them ends",
                    "overloaded", name, stranded=_stranded,
                )
            if deadline is not None and loop.time() >= deadline:
                return _timed_out(name, timeout)
            await asyncio.sleep(_SLOT_POLL_S)
        try:
            future = _start_thread(action, registry, context, thread_ended)
            started = True
        except BaseException:
            _free_slot()
            raise
    finally:
        if not started and thread_ended is not None:  # no thread will call it
            thread_ended()
    remaining = None if deadline is None else max(deadline - loop.time(), 0.0)
    try:
        return await asyncio.wait_for(until_cancelled(asyncio.wrap_future(future), cancel), remaining)
    except asyncio.TimeoutError:
        _strand(future)
        return _timed_out(name, timeout)
    except (RunCancelled, asyncio.CancelledError):  # stop waiting at once: the thread runs on, stranded
        _strand(future)
        raise


async def _run_async(
    action: Any, registry: Any, name: str, timeout: float | None, context: Any, cancel: CancelToken | None
) -> str:
    from dispatchguard.runtime.dispatcher import adispatch_tool

    try:
        return await asyncio.wait_for(
            until_cancelled(adispatch_tool(action, registry=registry, context=context), cancel), timeout
        )
    except asyncio.TimeoutError:
        return _timed_out(name, timeout)


async def execute_tool(
    action: Any,
    *,
    registry: Any = None,
    timeout: float | None = 12.0,
    cancel: CancelToken | None = None,
    context: Mapping[str, Any] | None = None,
    thread_ended: Callable[[], None] | None = None,
) -> str:
    """Dispatch one call (``ToolAction``, dict or JSON text) and return the JSON text result.

    ``timeout`` is in seconds (``None``: no limit). Bad calls (unknown tool, invalid arguments) are
    answered by the dispatcher's error object without starting a thread. ``context`` supplies the
    tool's injected arguments (see ``dispatch_tool``). ``thread_ended`` is called once when a sync
    tool's call no longer holds a thread: from the thread as it ends (which may be long after a
    timeout), or at once when no thread was started; never for an async or unknown tool.
    """
    if timeout is not None and timeout <= 0:
        raise ValueError(f"timeout must be positive seconds or None, got {timeout!r}")
    from dispatchguard.runtime.dispatcher import TOOL_REGISTRY, dispatch_tool

    registry = TOOL_REGISTRY if registry is None else registry
    name = _tool_name(action)
    if cancel is not None and cancel.cancelled:
        return _error(f"cancelled before tool {name!r} ran: {cancel.reason}", "cancelled", name)
    spec = registry.resolve(name)
    if spec is None:  # unknown or malformed: the dispatcher writes the error object
        result = dispatch_tool(action, registry=registry, context=context)
    else:
        try:
            if spec.is_async:
                result = await _run_async(action, registry, name, timeout, context, cancel)
            else:
                result = await _run_sync(action, registry, name, timeout, context, cancel, thread_ended)
        except RunCancelled:  # a sync tool's thread runs on (stranded); an async tool was cancelled
            return _abandoned(name, cancel)  # type: ignore[arg-type]
    if cancel is not None and cancel.cancelled:
        return _error(
            f"cancelled while tool {name!r} ran: {cancel.reason}", "cancelled", name, completed=True
        )
    return result


async def execute_tools(
    actions: Sequence[Any],
    *,
    registry: Any = None,
    timeout: float | None = 12.0,
    cancel: CancelToken | None = None,
    context: Mapping[str, Any] | None = None,
    call_ids: Sequence[str | None] | None = None,
) -> list[str]:
    """Run several calls; results come back in call order.

    Consecutive calls of ``parallel_safe`` tools run concurrently; any other call waits for the
    calls before it and runs alone, so side effects keep the order the model asked for.
    ``call_ids`` (one per action) are the model's ids of the calls, recorded on their trace spans.
    """
    from dispatchguard.runtime.registry import TOOL_REGISTRY
    from dispatchguard.runtime.tracing import TOOL_CALL_ID

    registry = TOOL_REGISTRY if registry is None else registry
    if call_ids is not None and len(call_ids) != len(actions):
        raise ValueError(f"call_ids has {len(call_ids)} ids for {len(actions)} actions")
    ids = list(call_ids) if call_ids is not None else [None] * len(actions)
    results: list[str] = []
    batch: list[tuple[Any, str | None]] = []

    async def one(action: Any, call_id: str | None) -> str:
        token = TOOL_CALL_ID.set(call_id)
        try:
            return await execute_tool(action, registry=registry, timeout=timeout, cancel=cancel, context=context)
        finally:
            TOOL_CALL_ID.reset(token)

    async def flush() -> None:
        results.extend(await asyncio.gather(*(one(action, call_id) for action, call_id in batch)))
        batch.clear()

    for action, call_id in zip(actions, ids, strict=True):
        spec = registry.resolve(_tool_name(action))
        if spec is not None and spec.parallel_safe:
            batch.append((action, call_id))
            continue
        await flush()
        results.append(await one(action, call_id))
    await flush()
    return results
