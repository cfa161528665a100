"""The call deadline at the socket: every read, write and connect of a sync request is bounded by it.

httpcore reads a response with one timeout per read, so a server that sends one byte every 0.3 s,
in the headers or in the body, is never late for any single read. :func:`deadline_scope` sets the
deadline of the current call (a :func:`time.monotonic` instant, in a context variable, so it
belongs to the thread or task that set it), and the network backend under the shared sync client
gives each socket operation ``min(its own timeout, time left)``, failing with a timeout once no
time is left. The async client does not need it: each attempt runs under ``asyncio.wait_for``.

httpx has no public way to give its default transport a network backend (encode/httpx#3749 adds
one), so :func:`bounded_transport` replaces the connection pool that ``httpx.HTTPTransport``
builds with the same pool plus the backend (the header-drip tests fail if an httpx release
changes that).
"""

from __future__ import annotations

import contextlib
import contextvars
import ssl
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx

__all__ = ["DeadlineBackend", "bounded", "bounded_transport", "deadline_scope", "time_left"]

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("dispatchguard_http_deadline", default=None)


@contextlib.contextmanager
def deadline_scope(deadline: float) -> Iterator[None]:
    """Socket operations of this thread or task end by ``deadline`` (``time.monotonic()``)."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def time_left() -> float | None:
    """Seconds left before the current deadline (negative once passed); None outside a scope."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def bounded(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` cut to the time left before the current deadline (none: ``timeout``); raises
    ``error`` once no time is left."""
    deadline = _deadline.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the call's total deadline has passed")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self.stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Read up to ``max_bytes`` within ``timeout`` cut to the time left.

        Raises ``httpcore.ReadTimeout`` at once when the deadline has passed.
        """
        return self.stream.read(max_bytes, bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Write ``buffer`` within ``timeout`` cut to the time left.

        Raises ``httpcore.WriteTimeout`` at once when the deadline has passed.
        """
        self.stream.write(buffer, bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        """Close the wrapped stream (no deadline applies)."""
        self.stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        """Run the TLS handshake within the time left; the TLS stream is wrapped too.

        Raises ``httpcore.ConnectTimeout`` at once when the deadline has passed.
        """
        tls = self.stream.start_tls(ssl_context, server_hostname, bounded(timeout, httpcore.ConnectTimeout))
        return DeadlineStream(tls)

    def get_extra_info(self, info: str) -> Any:
        """The wrapped stream's extra info (``ssl_object``, ``server_addr``...), unchanged."""
        return self.stream.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """A network backend whose TCP streams honour the deadline of :func:`deadline_scope` (the shared
    transport uses no Unix sockets; ``sleep`` is the base class's ``time.sleep``)."""

    def __init__(self, backend: httpcore.NetworkBackend | None = None) -> None:
        self.backend = backend or httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        """Connect within ``timeout`` cut to the time left; the stream keeps honouring the deadline.

        Raises ``httpcore.ConnectTimeout`` at once when the deadline has passed.
        """
        timeout = bounded(timeout, httpcore.ConnectTimeout)
        return DeadlineStream(self.backend.connect_tcp(host, port, timeout, local_address, socket_options))


def bounded_transport(limits: httpx.Limits, *, http1: bool = True, http2: bool = False) -> httpx.HTTPTransport:
    """``httpx.HTTPTransport(limits=..., http1=..., http2=...)`` whose pool uses :class:`DeadlineBackend`."""
    transport = httpx.HTTPTransport(limits=limits, http1=http1, http2=http2)
    if isinstance(getattr(transport, "_pool", None), httpcore.ConnectionPool):
        transport._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=http1,
            http2=http2,
            network_backend=DeadlineBackend(),
        )
    return transport
