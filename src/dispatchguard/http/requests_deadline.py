"""The call deadline for :func:`~dispatchguard.http.requests_session`: urllib3 connections whose
socket gives every read and write ``min(its own timeout, time left)`` before the deadline that
:func:`~dispatchguard.http.deadline.deadline_scope` set for the request, so a server that drips a
byte at a time (in the headers or in the body) cannot hold a request past ``max_total_time``.

urllib3 reads through ``http.client``, which reads through ``socket.makefile("rb")``: the socket of
a connection is wrapped once it is connected (after TLS), and its ``makefile`` reads through the
wrapper. Needs the ``requests`` extra (urllib3), imported only by ``requests_session``.
"""

from __future__ import annotations

import io
import socket
from typing import Any

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from .deadline import bounded


class DeadlineSocket:
    """A connected socket whose reads and writes end by the current deadline; anything else is the
    socket's own (``fileno``, ``getpeercert``, ``close``...)."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._timeout = sock.gettimeout()

    def settimeout(self, timeout: float | None) -> None:
        """Set the socket's own timeout, which each later read or write cuts to the time left."""
        self._timeout = timeout
        self._sock.settimeout(timeout)

    def gettimeout(self) -> float | None:
        """The timeout the caller last set, not the deadline-cut one armed for the last call."""
        return self._timeout

    def _arm(self) -> None:
        self._sock.settimeout(bounded(self._timeout, socket.timeout))

    def recv(self, *args: Any) -> bytes:
        """``socket.recv`` bounded by the deadline; ``socket.timeout`` once it has passed."""
        self._arm()
        return self._sock.recv(*args)

    def recv_into(self, *args: Any) -> int:
        """``socket.recv_into`` bounded by the deadline; ``socket.timeout`` once it has passed."""
        self._arm()
        return self._sock.recv_into(*args)

    def send(self, *args: Any) -> int:
        """``socket.send`` bounded by the deadline; ``socket.timeout`` once it has passed."""
        self._arm()
        return self._sock.send(*args)

    def sendall(self, *args: Any) -> None:
        """``socket.sendall`` whose whole send must end by the deadline, else ``socket.timeout``."""
        self._arm()
        self._sock.sendall(*args)

    def makefile(self, mode: str = "r", buffering: int | None = None, **kwargs: Any) -> Any:
        """As ``socket.makefile`` for reading (what ``http.client`` asks for), through this wrapper;
        the socket's own for anything else."""
        if mode not in ("r", "rb") or kwargs:
            return self._sock.makefile(mode, buffering, **kwargs)
        raw = socket.SocketIO(self, "rb")  # type: ignore[arg-type]
        self._sock._io_refs += 1  # the file keeps the socket open, as socket.makefile does
        if buffering == 0:
            return raw
        return io.BufferedReader(raw, buffering if buffering and buffering > 0 else io.DEFAULT_BUFFER_SIZE)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class DeadlineHTTPConnection(HTTPConnection):
    """An HTTP connection whose socket honours the request's deadline."""

    def connect(self) -> None:
        """Connect (a numeric timeout cut to the time left), then wrap the socket for the deadline.

        Raises ``socket.timeout`` at once when the deadline has passed.
        """
        if isinstance(self.timeout, (int, float)):
            self.timeout = bounded(self.timeout, socket.timeout)
        super().connect()
        self.sock = DeadlineSocket(self.sock)  # type: ignore[assignment]


class DeadlineHTTPSConnection(HTTPSConnection):
    """An HTTPS connection whose socket (after TLS) honours the request's deadline."""

    def connect(self) -> None:
        """Connect and shake hands for TLS (a numeric timeout cut to the time left), then wrap.

        Raises ``socket.timeout`` at once when the deadline has passed.
        """
        if isinstance(self.timeout, (int, float)):
            self.timeout = bounded(self.timeout, socket.timeout)
        super().connect()
        self.sock = DeadlineSocket(self.sock)  # type: ignore[assignment]


class DeadlineHTTPConnectionPool(HTTPConnectionPool):
    """A pool of :class:`DeadlineHTTPConnection`."""

    ConnectionCls = DeadlineHTTPConnection


class DeadlineHTTPSConnectionPool(HTTPSConnectionPool):
    """A pool of :class:`DeadlineHTTPSConnection`."""

    ConnectionCls = DeadlineHTTPSConnection


#: The pool classes a ``PoolManager`` uses by scheme (``pool_classes_by_scheme``).
DEADLINE_POOLS = {"http": DeadlineHTTPConnectionPool, "https": DeadlineHTTPSConnectionPool}
