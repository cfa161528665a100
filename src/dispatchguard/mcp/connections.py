"""Bounded HTTP connections for ``dispatchguard mcp --transport http``: read deadlines and caps.

A client that opens connections and drips its headers or body holds a socket (a file descriptor)
for as long as it drips; enough of them exhaust the process's descriptors and every other client
fails. So the server bounds them, from its own settings (:class:`ConnectionLimits`):

- **header deadline**: a request's headers must arrive within ``header_timeout`` seconds of the
  connection opening (or of the previous response's end, on a kept-alive connection); else
  ``408 Request Timeout`` and the connection closes;
- **body deadline**: a POST body must arrive within ``body_timeout`` seconds of its headers; else
  ``408`` (:class:`~dispatchguard.mcp.server.JsonBodyGuard`), and a body still arriving a second
  later closes the connection whatever the route (:class:`GuardedH11Protocol`);
- **connection caps**: at most ``max_connections`` open connections per worker process, and
  ``max_connections_per_peer`` per client address; a connection over a cap is answered at once,
  ``503 Service Unavailable`` (over the total) or ``429 Too Many Requests`` (over the peer's
  share), with ``Retry-After: retry_after``, and closed.

The deadlines and caps at the connection level live in :class:`Guarded`, mixed into uvicorn's
httptools protocol when httptools is installed and its h11 protocol otherwise
(:func:`http_protocol`), which ``dispatchguard mcp`` selects; it reads
the limits from the app's lifespan state (``create_http_app`` puts them there under
:data:`LIMITS_STATE`), so a worker process needs nothing else. Served by another ASGI server, the
app still applies the body deadline.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from typing import Any

__all__ = ["HTTPTOOLS_PROTOCOL", "HTTP_PROTOCOL", "LIMITS_STATE", "ConnectionLimits", "Guarded", "GuardedH11Protocol",
           "http_protocol", "plain_response"]

#: The key of the limits in the app's lifespan state (uvicorn hands that state to each connection).
LIMITS_STATE = "dispatchguard.connection_limits"
#: uvicorn's ``http=`` for :class:`GuardedH11Protocol` (an import string: worker processes import it).
HTTP_PROTOCOL = "dispatchguard.mcp.connections:GuardedH11Protocol"
#: The same for ``GuardedHttpToolsProtocol`` (when httptools is installed; see :func:`http_protocol`).
HTTPTOOLS_PROTOCOL = "dispatchguard.mcp.connections:GuardedHttpToolsProtocol"
#: How long a refused or timed-out connection stays open after its answer, so that the client reads
#: the answer rather than a reset; only while the open connections, these included, are within
#: ``max_connections`` (a burst past it is closed at once: descriptors first).
LINGER_S = 1.0

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ConnectionLimits:
    """Read deadlines (seconds) and connection caps (per worker process) of the HTTP server."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 200
    max_connections_per_peer: int = 32
    retry_after: int = 5

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout"):
            value = getattr(self, name)
            if type(value) not in (int, float) or not (value > 0 and math.isfinite(value)):
                raise ValueError(f"{name} must be positive seconds, got {value!r}")
        for name in ("max_connections", "max_connections_per_peer", "retry_after"):
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if self.max_connections_per_peer > self.max_connections:
            raise ValueError(f"max_connections_per_peer ({self.max_connections_per_peer}) must not exceed "
                             f"max_connections ({self.max_connections})")


def plain_response(status: int, reason: str, text: str, retry_after: int | None = None) -> bytes:
    """A complete HTTP/1.1 response that closes the connection (``Retry-After`` when given)."""
    body = text.encode("utf-8")
    headers = [f"HTTP/1.1 {status} {reason}", "content-type: text/plain; charset=utf-8",
               f"content-length: {len(body)}", "connection: close"]
    if retry_after is not None:
        headers.append(f"retry-after: {retry_after}")
    return ("\r\n".join(headers) + "\r\n\r\n").encode("ascii") + body


class Guarded:
    """The deadlines and caps, mixed into a uvicorn HTTP protocol (before it in the bases). The
    protocol tells :meth:`request_state` where the current request is: ``idle`` (nothing of it
    yet), ``headers`` (its headers are arriving), ``body`` (its body is arriving) or ``done``."""

    limits: ConnectionLimits | None = None
    deadline: asyncio.TimerHandle | None = None
    deadline_for: Any = None
    refused = False
    # set by uvicorn's protocol
    app_state: Any
    connections: Any
    client: Any
    transport: Any
    loop: Any

    def request_state(self) -> str:  # pragma: no cover - each protocol below says
        """``idle``, ``headers``, ``body`` or ``done`` (see the class docstring)."""
        raise NotImplementedError

    def connection_made(self, transport: Any) -> None:
        """Count the connection, refuse it over a cap, else start its header deadline."""
        super().connection_made(transport)  # type: ignore[misc]
        limits = self.app_state.get(LIMITS_STATE) if isinstance(self.app_state, dict) else None
        self.limits = limits if isinstance(limits, ConnectionLimits) else None
        if self.limits is None:
            return
        live = [conn for conn in self.connections if not getattr(conn, "refused", False)]
        peer = self.client[0] if self.client else None
        if len(live) > self.limits.max_connections:
            self.refuse(plain_response(503, "Service Unavailable", "Too many connections: retry later\n",
                                       self.limits.retry_after))
        elif peer is not None and sum(1 for conn in live if conn.client and conn.client[0] == peer) > \
                self.limits.max_connections_per_peer:
            self.refuse(plain_response(429, "Too Many Requests", "Too many connections from your address\n",
                                       self.limits.retry_after))
        else:
            self.arm(self.limits.header_timeout, self.headers_late)

    def refuse(self, answer: bytes) -> None:
        """Answer ``answer`` without reading (more of) a request, and close the connection: after
        :data:`LINGER_S`, or at once while the open connections exceed ``max_connections``."""
        self.refused = True
        self.cancel_deadline()
        self.transport.write(answer)
        try:
            self.transport.write_eof()
        except (OSError, RuntimeError, NotImplementedError):  # TLS transports cannot half-close
            pass
        if self.limits is None or len(self.connections) > self.limits.max_connections:
            self.transport.close()
        else:
            self.deadline = self.loop.call_later(LINGER_S, self.transport.close)

    def data_received(self, data: bytes) -> None:
        """Read as uvicorn does (nothing, once refused); headers complete stop their deadline and
        start the body's, a complete body stops that."""
        if self.refused:
            return
        super().data_received(data)  # type: ignore[misc]
        if self.limits is None or self.transport.is_closing():
            return
        state = self.request_state()
        if self.deadline is not None and self.deadline_for == self.headers_late and state in ("body", "done"):
            if state == "body":
                self.arm(self.limits.body_timeout + LINGER_S, self.body_late)
            else:
                self.cancel_deadline()
        elif self.deadline_for == self.body_late and state != "body":
            self.cancel_deadline()

    def on_response_complete(self) -> None:
        """After a response, a kept-alive connection's next headers have their deadline again."""
        super().on_response_complete()  # type: ignore[misc]
        if self.limits is not None and not self.transport.is_closing() and not self.refused:
            if self.request_state() == "body":  # answered before its body ended: still bounded
                self.arm(self.limits.body_timeout + LINGER_S, self.body_late)
            else:
                self.arm(self.limits.header_timeout, self.headers_late)

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the deadline, then as uvicorn does."""
        self.cancel_deadline()
        super().connection_lost(exc)  # type: ignore[misc]

    def arm(self, seconds: float, handler: Any) -> None:
        """Run ``handler`` in ``seconds`` unless cancelled first (one deadline at a time)."""
        self.cancel_deadline()
        self.deadline_for = handler
        self.deadline = self.loop.call_later(seconds, handler)

    def cancel_deadline(self) -> None:
        """Cancel the pending deadline, if any."""
        if self.deadline is not None:
            self.deadline.cancel()
        self.deadline = None
        self.deadline_for = None

    def headers_late(self) -> None:
        """The header deadline passed: 408 if a request had begun, else just close (idle)."""
        self.deadline = self.deadline_for = None
        state = self.request_state()
        if self.transport.is_closing() or state not in ("idle", "headers"):
            return
        log.info("%s: no request headers within %gs", self.peer_name(), self.limits.header_timeout)  # type: ignore[union-attr]
        if state == "headers":
            self.refuse(plain_response(408, "Request Timeout", "Request headers too slow\n"))
        else:
            self.transport.close()

    def body_late(self) -> None:
        """The body is still arriving past its deadline (and the app did not answer 408): close."""
        self.deadline = self.deadline_for = None
        if not self.transport.is_closing() and self.request_state() == "body":
            log.info("%s: request body still arriving after %gs; closing", self.peer_name(),
                     self.limits.body_timeout)  # type: ignore[union-attr]
            self.transport.close()

    def peer_name(self) -> str:
        """``host:port`` of the client, for logs."""
        return f"{self.client[0]}:{self.client[1]}" if self.client else "a client"


try:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError:  # pragma: no cover - the mcp extra brings uvicorn (and h11)
    H11Protocol = asyncio.Protocol  # type: ignore[assignment,misc]


class GuardedH11Protocol(Guarded, H11Protocol):  # type: ignore[misc,valid-type]
    """uvicorn's h11 protocol with the deadlines and caps of the app's :class:`ConnectionLimits`
    (without limits in the app's state, uvicorn's protocol unchanged)."""

    def request_state(self) -> str:
        """Where the current request is, from h11's state of the client."""
        state = self.conn.their_state
        if state is h11.IDLE:
            return "headers" if self.conn.trailing_data[0] else "idle"
        return "body" if state is h11.SEND_BODY else "done"


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is optional (uvicorn[standard] brings it)
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

if HttpToolsProtocol is not None:

    class GuardedHttpToolsProtocol(Guarded, HttpToolsProtocol):  # type: ignore[misc,valid-type]
        """uvicorn's httptools protocol (C parser, the faster one) with the same checks."""

        phase = "idle"

        def request_state(self) -> str:
            """Where the current request is, from the parser's callbacks."""
            return self.phase

        def on_message_begin(self) -> None:
            """A request begins: its headers are arriving."""
            self.phase = "headers"
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            """Its headers are complete: its body (if any) is arriving."""
            self.phase = "body"
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            """The request is complete."""
            self.phase = "done"
            super().on_message_complete()

        def on_response_complete(self) -> None:
            """The answer is sent: a request fully read leaves the connection idle."""
            if self.phase == "done":
                self.phase = "idle"
            super().on_response_complete()


def http_protocol() -> str:
    """uvicorn's ``http=`` for the guarded protocol: httptools' when it is installed, else h11's."""
    return HTTP_PROTOCOL if HttpToolsProtocol is None else HTTPTOOLS_PROTOCOL
