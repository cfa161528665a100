"""The cancel flag of a run, and awaiting something until it fires.

A :class:`CancelToken` is a thread-safe flag (it can be set from any thread or process listener), so
an in-flight model call cannot be woken by it directly: :func:`until_cancelled` runs the awaitable
as a task and looks at the token every ``poll`` seconds; when it is set the task is cancelled (an
HTTP request to a model server is aborted, its connection closed) and :class:`RunCancelled` raised.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["POLL_SECONDS", "CancelToken", "RunCancelled", "until_cancelled"]

T = TypeVar("T")

#: How often a pending call looks at its token: the longest a cancel waits to take effect.
POLL_SECONDS = 0.05


class CancelToken:
    """A thread-safe flag: ``cancel()`` from anywhere, checked by the executor and the loop."""

    __slots__ = ("_event", "reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def cancel(self, reason: str = "cancelled") -> None:
        """Cancel with ``reason``, from any thread; calls after the first change nothing."""
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` has been called (it never resets)."""
        return self._event.is_set()

    def __repr__(self) -> str:
        return f"CancelToken(cancelled={self.cancelled})"



class RunCancelled(Exception):
    """The token was cancelled while the awaited call was in flight; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def until_cancelled(awaitable: Awaitable[T], cancel: CancelToken | None, *,
                          poll: float = POLL_SECONDS) -> T:
    """Return what ``awaitable`` returns, or raise :class:`RunCancelled` as soon as ``cancel`` is set."""
    if cancel is None:
        return await awaitable
    if cancel.cancelled and not (asyncio.isfuture(awaitable) and awaitable.done()):  # a result wins
        if asyncio.iscoroutine(awaitable):
            awaitable.close()  # never started: no "never awaited" warning
        raise RunCancelled(cancel.reason)
    task = asyncio.ensure_future(awaitable)
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=poll)
            if not task.done() and cancel.cancelled:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                raise RunCancelled(cancel.reason)
    except asyncio.CancelledError:
        task.cancel()
        raise
    return task.result()
