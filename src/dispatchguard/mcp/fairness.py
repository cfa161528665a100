"""Each client's share of the sync-tool threads.

A sync tool runs in one of ``execute_tool``'s threads, at most
:data:`~dispatchguard.agent.MAX_STRANDED_THREADS` (8) per process, and a thread whose call timed out
runs on (a thread cannot be killed) and keeps its slot. Without shares, one client calling a
blocking tool eight times makes every sync tool answer ``overloaded`` (or ``timeout``) to every
client until those threads end. :class:`ThreadShare` gives each client at most ``share`` of them
at once, counted from the call's start to its thread's end (not its answer): a call past its
client's share waits for one of that client's own slots (at most the tool timeout, then it
answers ``overloaded``), and the other clients keep the rest.

Over HTTP a client is its peer address (the server is stateless: there is no session to tell two
clients behind one address apart); over stdio there is one client and no share.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Callable
from typing import Any

from dispatchguard.agent.execute import MAX_STRANDED_THREADS

__all__ = ["DEFAULT_THREAD_SHARE", "ThreadShare", "client_of"]

#: Each HTTP client's share by default: half the threads, so no one client can take them all.
DEFAULT_THREAD_SHARE = max(1, MAX_STRANDED_THREADS // 2)


class Waiter:
    """A call waiting for its client's slot: ``granted`` (set under the share's lock) when a
    release hands it one; ``wake`` wakes its loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.granted = False
        self.wake: asyncio.Future[None] = loop.create_future()


class ThreadShare:
    """At most ``share`` sync-tool threads per client key. A call past its client's share waits
    for one of the client's own slots (first come, first served), so a client's burst queues
    behind itself only; releases come from any thread."""

    def __init__(self, share: int) -> None:
        if type(share) is not int or share <= 0:
            raise ValueError(f"thread_share must be a positive int, got {share!r}")
        self.share = share
        self.held: dict[Any, int] = {}
        self.waiting: dict[Any, collections.deque[Waiter]] = {}
        self.lock = threading.Lock()

    async def acquire(self, client: Any, timeout: float | None) -> Callable[[], None] | None:
        """A slot for ``client``, waiting at most ``timeout`` seconds (``None``: no limit) while
        the client holds its whole share: the function that frees it (call it once the thread
        ends; idempotent), or ``None`` when none came in time."""
        with self.lock:
            if self.held.get(client, 0) < self.share:
                self.held[client] = self.held.get(client, 0) + 1
                return self.releaser(client)
            waiter = Waiter(asyncio.get_running_loop())
            self.waiting.setdefault(client, collections.deque()).append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter.wake), timeout)
        except asyncio.TimeoutError:
            return self.give_up(client, waiter)
        except asyncio.CancelledError:
            release = self.give_up(client, waiter)
            if release is not None:  # handed a slot as the caller went away: pass it on
                release()
            raise
        return self.releaser(client)

    def give_up(self, client: Any, waiter: Waiter) -> Callable[[], None] | None:
        """End ``waiter``'s wait: the slot it was handed meanwhile, else ``None`` (no longer queued)."""
        with self.lock:
            if waiter.granted:
                return self.releaser(client)
            queue = self.waiting[client]
            queue.remove(waiter)
            if not queue:
                del self.waiting[client]
            return None

    def releaser(self, client: Any) -> Callable[[], None]:
        """The idempotent function that frees one of ``client``'s slots (handing it to the
        client's first waiter, if any)."""
        freed = threading.Event()

        def release() -> None:
            if freed.is_set():
                return
            freed.set()
            with self.lock:
                queue = self.waiting.get(client)
                if queue:  # the slot passes to the next waiting call: held stays the same
                    waiter = queue.popleft()
                    if not queue:
                        del self.waiting[client]
                    waiter.granted = True
                    waiter.loop.call_soon_threadsafe(set_result, waiter.wake)
                    return
                left = self.held.get(client, 1) - 1
                if left > 0:
                    self.held[client] = left
                else:
                    self.held.pop(client, None)

        return release

    def holding(self, client: Any) -> int:
        """How many threads ``client`` holds now."""
        with self.lock:
            return self.held.get(client, 0)


def set_result(future: asyncio.Future[None]) -> None:
    """Wake a waiter (unless its wait was given up meanwhile)."""
    if not future.done():
        future.set_result(None)


def client_of(request: Any) -> str | None:
    """The client key of a request context's ``request``: the peer address of an HTTP request
    (a Starlette ``Request``), else ``None`` (stdio: one client)."""
    client = getattr(request, "client", None)
    host = getattr(client, "host", None)
    return host if isinstance(host, str) else None
