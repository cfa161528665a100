"""Each client's share of the sync-tool threads.

A sync tool runs in one of ``execute_tool``'s threads, at most
:data:`~dispatchguard.agent.MAX_STRANDED_THREADS` (8) per process, and a thread whose call timed out
runs on (a thread cannot be killed) and keeps its slot. Without shares, one client calling a
blocking tool eight times makes every sync tool answer ``overloaded`` (or ``timeout``) to every
client until those threads end. :class:`ThreadShare` gives each client at most ``share`` of them
at once, counted from the call's start to its thread's end (not its answer): a call past its
client's share is answered ``overloaded`` at once, and the other clients keep the rest.

Over HTTP a client is its peer address (the server is stateless: there is no session to tell two
clients behind one address apart); over stdio there is one client and no share.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from dispatchguard.agent.execute import MAX_STRANDED_THREADS

__all__ = ["DEFAULT_THREAD_SHARE", "ThreadShare", "client_of"]

#: Each HTTP client's share by default: half the threads, so no one client can take them all.
DEFAULT_THREAD_SHARE = max(1, MAX_STRANDED_THREADS // 2)


class ThreadShare:
    """At most ``share`` sync-tool threads per client key, thread-safe (threads release)."""

    def __init__(self, share: int) -> None:
        if type(share) is not int or share <= 0:
            raise ValueError(f"thread_share must be a positive int, got {share!r}")
        self.share = share
        self.held: dict[Any, int] = {}
        self.lock = threading.Lock()

    def acquire(self, client: Any) -> Callable[[], None] | None:
        """A slot for ``client``: the function that frees it (idempotent), or ``None`` when the
        client holds its whole share."""
        with self.lock:
            if self.held.get(client, 0) >= self.share:
                return None
            self.held[client] = self.held.get(client, 0) + 1
        freed = threading.Event()

        def release() -> None:
            if freed.is_set():
                return
            freed.set()
            with self.lock:
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


def client_of(request: Any) -> str | None:
    """The client key of a request context's ``request``: the peer address of an HTTP request
    (a Starlette ``Request``), else ``None`` (stdio: one client)."""
    client = getattr(request, "client", None)
    host = getattr(client, "host", None)
    return host if isinstance(host, str) else None
