"""An MCP server's tools in a :class:`~dispatchguard.runtime.ToolRegistry` (extra ``dispatchguard[mcp]``).

**Whose loop the session lives on.** The SDK's ``ClientSession`` and its transport (a subprocess
for stdio, an ``httpx.AsyncClient`` for HTTP) belong to the event loop that opened them, inside
anyio task groups that must be left by the task that entered them. A registry's tools, though, are
called from everywhere: ``dispatch_tool`` with no loop (which runs async tools under a fresh
``asyncio.run`` each call), ``adispatch_tool`` on the caller's loop, ``execute_tool``'s worker
threads. So :class:`McpClient` owns **one background thread running one event loop** for its
connection; every call crosses over to it (``run_coroutine_threadsafe``) and back, from sync code
(blocking) or from any event loop (awaiting). The connection lives from :meth:`McpClient.start` to
:meth:`McpClient.close` (or the ``with``/``async with`` block); the thread is a daemon and an
``atexit`` hook closes a client left open, so a stdio server gets its stdin closed (then SIGTERM) at
exit.

**Failures.** Every failure of a call raises :class:`McpCallError`, whose ``error_kind`` the
dispatcher puts in the error object (see there). A call that passes ``timeout``, or whose caller is
cancelled (``execute_tool``'s own timeout), sends the server ``notifications/cancelled`` for its
request id. A connection that dies fails its calls in flight with ``mcp_disconnected``; the next
call opens a new one (``reconnect=True``), never replaying a call: a tool may have side effects.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import json
import logging
import threading
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.shared.exceptions import McpError

from dispatchguard.mcp.results import McpCallError, McpLimits, capped, result_text
from dispatchguard.runtime import RegistryError, ToolRegistry
from dispatchguard.runtime.tracing import current_context, mcp_client_span

__all__ = ["DEFAULT_CALL_TIMEOUT", "DEFAULT_CONNECT_TIMEOUT", "McpCallError", "McpClient", "McpLimits", "McpTool"]

DEFAULT_CALL_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 30.0
CLOSE_TIMEOUT = 10.0

log = logging.getLogger(__name__)

#: The ids of the ``tools/call`` requests the current task sent (its own list): how a call knows
#: which request id to cancel, without reading the SDK's private request counter.
sent_request_ids: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "dispatchguard_mcp_sent_request_ids", default=None)


class RecordingWriteStream:
    """The transport's write stream, noting the id of each ``tools/call`` request as it is sent
    (``ClientSession`` sends from the calling task, so the task's context holds the list)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    async def send(self, message: Any) -> None:
        """Forward ``message``, first noting a ``tools/call`` id in ``sent_request_ids``."""
        ids = sent_request_ids.get()
        root = getattr(message.message, "root", None)
        if ids is not None and isinstance(root, types.JSONRPCRequest) and root.method == "tools/call":
            ids.append(root.id)
        await self.stream.send(message)

    async def __aenter__(self) -> RecordingWriteStream:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.stream.aclose()


def first_cause(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio's task groups wrap transport failures)."""
    while isinstance(getattr(exc, "exceptions", None), tuple) and exc.exceptions:  # type: ignore[attr-defined]
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def describe(exc: BaseException) -> str:
    """``Type: message`` of the first leaf of ``exc`` (just the type when the message is empty)."""
    cause = first_cause(exc)
    return f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__


class Connection:
    """One live session: the task holding the transport open, and the event set when it ends."""

    def __init__(self) -> None:
        self.session: ClientSession | None = None
        self.closing = asyncio.Event()
        self.ended = asyncio.Event()
        self.broken = False
        self.failure: BaseException | None = None
        self.runner: asyncio.Task[None] | None = None

    @property
    def usable(self) -> bool:
        """Whether calls may still use this session: not broken off, and its runner not ended."""
        return not (self.broken or self.ended.is_set())

    def break_off(self) -> None:
        """A call saw the session's streams closed (a stdio server that exited leaves the
        transport's context open): no call may use it again, and its runner unwinds."""
        self.broken = True
        self.closing.set()


class McpTool:
    """One tool of an MCP server, as a registry calls it: ``run(**args)`` from sync code and
    ``arun(**args)`` from async code, both through the client's connection."""

    def __init__(self, client: McpClient, name: str, description: str) -> None:
        self.client = client
        self.name = name
        self.description = description

    def run(self, **arguments: Any) -> str:
        """Call this tool on the server and block for its result, as JSON text.

        Raises :class:`McpCallError` on any failure of the call, ``RuntimeError`` when called from
        the client's own loop thread (use :meth:`arun` there).
        """
        return self.client.call(self.name, arguments)

    async def arun(self, **arguments: Any) -> str:
        """As :meth:`run`, from any event loop; cancelling the caller cancels the server call."""
        return await self.client.acall(self.name, arguments)

    def __repr__(self) -> str:
        return f"McpTool({self.name!r} on {self.client.server_name!r})"


def check_server(command: Sequence[str] | None, url: str | None) -> None:
    """``ValueError`` unless exactly one of ``command`` (a non-empty argv) and ``url`` (http or
    https) names the server."""
    if (command is None) == (url is None):
        raise ValueError("give exactly one of command (a stdio server) or url (streamable HTTP)")
    if command is not None:
        if isinstance(command, str) or not command or not all(isinstance(a, str) for a in command):
            raise ValueError("command must be a non-empty sequence of strings (the server's argv)")
    elif not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")


def check_bounds(timeout: float | None, connect_timeout: float, limits: McpLimits | None) -> None:
    """``ValueError`` for a timeout that is not positive seconds, or ``limits`` not an :class:`McpLimits`."""
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be positive seconds or None, got {timeout!r}")
    if not connect_timeout > 0:
        raise ValueError(f"connect_timeout must be positive seconds, got {connect_timeout!r}")
    if limits is not None and not isinstance(limits, McpLimits):
        raise ValueError(f"limits must be an McpLimits, got {type(limits).__name__}")


class McpClient:
    """A connection to one MCP server: ``command`` (argv of a stdio server) or ``url`` (streamable
    HTTP), exactly one of them.

    ``env``/``cwd`` are the stdio server's (the SDK passes a minimal environment plus ``env``);
    ``headers`` go with every HTTP request. ``timeout`` bounds each call (seconds, ``None``: no
    limit), ``connect_timeout`` the connection and ``initialize``. ``reconnect`` opens a new
    connection for the next call after one died. ``name`` names the server in messages and error
    objects (default: the URL or the command line).
    """

    def __init__(
        self,
        *,
        command: Sequence[str] | None = None,
        url: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = DEFAULT_CALL_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        reconnect: bool = True,
        name: str | None = None,
        limits: McpLimits | None = None,
    ) -> None:
        check_server(command, url)
        check_bounds(timeout, connect_timeout, limits)
        self.limits = limits or McpLimits()
        self.command = list(command) if command is not None else None
        self.url = url
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.headers = dict(headers) if headers is not None else None
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.reconnect = reconnect
        self.server_name = name or (url if url is not None else " ".join(self.command or []))
        self.tools: list[types.Tool] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._connection: Connection | None = None
        self._connecting: asyncio.Lock | None = None

    def __repr__(self) -> str:
        return f"McpClient({self.server_name!r})"

    # lifetime ---------------------------------------------------------------------------------
    def start(self) -> McpClient:
        """Connect (from sync code), list the server's tools into ``tools``; raises
        :class:`McpCallError` (``mcp_unavailable``) when no connection can be made."""
        asyncio.run_coroutine_threadsafe(self._connect(), self._background_loop()).result()
        return self

    async def astart(self) -> McpClient:
        """:meth:`start` from async code (the caller's loop is not blocked meanwhile)."""
        future = asyncio.run_coroutine_threadsafe(self._connect(), self._background_loop())
        await asyncio.wrap_future(future)
        return self

    def close(self) -> None:
        """End the connection (a stdio server's stdin is closed, then it is terminated) and the
        background thread. Idempotent."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        atexit.unregister(self.close)
        if threading.current_thread() is thread:  # from a tool run on our own loop: no join
            loop.call_soon(loop.stop)
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._disconnect(), loop).result(CLOSE_TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(CLOSE_TIMEOUT)
        if not thread.is_alive():
            loop.close()

    async def aclose(self) -> None:
        """:meth:`close` from async code."""
        await asyncio.to_thread(self.close)

    def __enter__(self) -> McpClient:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    async def __aenter__(self) -> McpClient:
        return await self.astart()

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    def _background_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=f"dispatchguard-mcp {self.server_name}",
                                          daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
                atexit.register(self.close)
            return self._loop

    # registration -----------------------------------------------------------------------------
    def register(
        self,
        registry: ToolRegistry,
        *,
        prefix: str = "",
        names: Sequence[str] | None = None,
        parallel_safe: bool = False,
    ) -> list[str]:
        """Register the server's tools (those in ``names``, else all) in ``registry`` as
        ``prefix + name``, validated against their ``inputSchema``; returns the registered names.
        All or nothing: a name or schema the registry refuses raises :class:`RegistryError` and
        registers none. Connects first if needed."""
        if not self.tools:
            self.start()
        listed = {tool.name: tool for tool in self.tools}
        wanted = list(listed) if names is None else list(names)
        missing = [name for name in wanted if name not in listed]
        if missing:
            raise RegistryError(f"MCP server {self.server_name!r} has no tool {missing[0]!r}; "
                                f"it lists {', '.join(map(repr, listed)) or 'none'}")
        done: list[str] = []
        try:
            for name in wanted:
                tool = listed[name]
                schema_bytes = len(json.dumps(tool.inputSchema, ensure_ascii=False).encode("utf-8", "surrogatepass"))
                if schema_bytes > self.limits.max_schema_bytes:
                    raise RegistryError(f"tool {name!r}: its inputSchema is {schema_bytes} bytes of JSON, over the "
                                        f"limit of {self.limits.max_schema_bytes} (McpLimits.max_schema_bytes)")
                description = capped(tool.description or tool.title or f"the {name} tool of MCP server "
                                     f"{self.server_name}", self.limits.max_description_chars)
                registry.register(prefix + name, McpTool(self, name, description), schema=tool.inputSchema,
                                  description=description, parallel_safe=parallel_safe)
                done.append(prefix + name)
        except RegistryError as exc:
            for registered in done:
                registry.unregister(registered)
            raise RegistryError(f"MCP server {self.server_name!r}: {exc}") from None
        return done

    # calls ------------------------------------------------------------------------------------
    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Call the server's tool ``name`` from sync code: its result as JSON text, or
        :class:`McpCallError`."""
        loop = self._running_loop()
        if threading.current_thread() is self._thread:
            raise RuntimeError("McpClient.call from the client's own loop would wait for itself; use acall")
        return asyncio.run_coroutine_threadsafe(self._call(name, dict(arguments), current_context()), loop).result()

    async def acall(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Call the server's tool ``name`` from any event loop; cancelling the caller cancels the
        call (and the server is told)."""
        loop = self._running_loop()
        future = asyncio.run_coroutine_threadsafe(self._call(name, dict(arguments), current_context()), loop)
        return await asyncio.wrap_future(future)

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            raise McpCallError(f"the client of MCP server {self.server_name!r} is closed (or was never started)",
                               "mcp_unavailable", server=self.server_name)
        return loop

    # on the background loop -------------------------------------------------------------------
    async def _connect(self) -> Connection:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            live = self._connection
            if live is not None and live.usable:
                return live
            if live is not None and not self.reconnect:
                raise McpCallError(f"the connection to MCP server {self.server_name!r} ended "
                                   f"({describe(live.failure) if live.failure else 'closed'})",
                                   "mcp_disconnected", server=self.server_name)
            connection = Connection()
            ready: asyncio.Future[list[types.Tool]] = asyncio.get_running_loop().create_future()
            connection.runner = asyncio.create_task(self._hold(connection, ready))
            try:
                self.tools = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
            except asyncio.TimeoutError:
                connection.runner.cancel()
                raise McpCallError(f"MCP server {self.server_name!r} did not answer initialize within "
                                   f"{self.connect_timeout:g}s", "mcp_unavailable", server=self.server_name) from None
            except McpCallError:
                raise
            except Exception as exc:
                raise McpCallError(f"cannot connect to MCP server {self.server_name!r}: {describe(exc)}",
                                   "mcp_unavailable", server=self.server_name) from None
            self._connection = connection
            return connection

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        if self.command is not None:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            params = StdioServerParameters(command=self.command[0], args=self.command[1:], env=self.env,
                                           cwd=self.cwd)
            async with stdio_client(params) as (read, write):
                yield read, write
        else:
            import httpx
            from mcp.client.streamable_http import streamable_http_client

            timeout = httpx.Timeout(30.0, read=None if self.timeout is None else self.timeout + 5)
            async with httpx.AsyncClient(headers=self.headers, timeout=timeout) as http, \
                    streamable_http_client(self.url, http_client=http) as (read, write, _session_id):  # type: ignore[arg-type]
                yield read, write

    async def _hold(self, connection: Connection, ready: asyncio.Future[list[types.Tool]]) -> None:
        """Open the transport and the session, list the tools, and keep them open until closing."""
        try:
            async with self._transport() as (read, write), \
                    ClientSession(read, RecordingWriteStream(write)) as session:  # type: ignore[arg-type]
                await session.initialize()
                tools = await list_all_tools(session)
                connection.session = session
                ready.set_result(tools)
                await connection.closing.wait()
        except BaseException as exc:  # the transport's task groups end in exception groups
            connection.failure = exc
            if not ready.done():
                if isinstance(exc, Exception):
                    ready.set_exception(exc)
                else:  # cancelled: whoever waited has given up already
                    ready.cancel()
            elif not connection.closing.is_set():  # a failure while closing only ends it sooner
                log.warning("connection to MCP server %r ended: %s", self.server_name, describe(exc))
            if not isinstance(exc, Exception):
                raise
        finally:
            connection.session = None
            connection.ended.set()

    async def _disconnect(self) -> None:
        connection = self._connection
        if connection is None or connection.runner is None:
            return
        connection.closing.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(connection.runner, CLOSE_TIMEOUT)

    async def _call(self, name: str, arguments: dict[str, Any], trace_parent: Any = None) -> str:
        # the caller's trace context (another thread's) is the parent of the call's CLIENT span
        with mcp_client_span(name, trace_parent, self.server_name) as span:
            return await self._call_traced(name, arguments, span.meta())

    async def _call_traced(self, name: str, arguments: dict[str, Any], meta: dict[str, Any] | None) -> str:
        connection = await self._connect()
        session = connection.session
        if session is None:
            raise self._disconnected(connection)
        ids: list[Any] = []
        token = sent_request_ids.set(ids)
        try:
            # the task copies the context now
            call = asyncio.ensure_future(session.call_tool(name, arguments, meta=meta))
        finally:
            sent_request_ids.reset(token)
        ended = asyncio.ensure_future(connection.ended.wait())
        try:
            done, _ = await asyncio.wait({call, ended}, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            await self._abandon(session, call, ids, "the caller cancelled the call")
            raise
        finally:
            ended.cancel()
        if call in done:
            return self._outcome(call, name, connection)
        if ended in done:
            call.cancel()
            raise self._disconnected(connection)
        await self._abandon(session, call, ids, f"no answer within {self.timeout:g}s")
        raise McpCallError(f"MCP server {self.server_name!r} did not answer tool {name!r} within {self.timeout:g}s",
                           "timeout", server=self.server_name, mcp_tool=name, timeout=self.timeout)

    def _outcome(self, call: asyncio.Future[types.CallToolResult], name: str, connection: Connection) -> str:
        try:
            result = call.result()
        except McpError as exc:
            code = exc.error.code
            if code == types.CONNECTION_CLOSED:
                connection.break_off()
                raise self._disconnected(connection) from None
            raise McpCallError(f"MCP server {self.server_name!r} refused tool {name!r}: {exc.error.message}",
                               "mcp_error", server=self.server_name, mcp_tool=name, code=code) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            connection.break_off()
            raise self._disconnected(connection) from None
        except Exception as exc:
            if not connection.usable:
                raise self._disconnected(connection) from None
            raise McpCallError(f"MCP server {self.server_name!r}, tool {name!r}: {describe(exc)}",
                               "mcp_error", server=self.server_name, mcp_tool=name) from None
        return result_text(result, name, self.server_name, self.limits)

    def _disconnected(self, connection: Connection) -> McpCallError:
        why = describe(connection.failure) if connection.failure is not None else "the connection closed"
        return McpCallError(f"lost the connection to MCP server {self.server_name!r} ({why})",
                            "mcp_disconnected", server=self.server_name)

    async def _abandon(self, session: ClientSession, call: asyncio.Future[Any], ids: list[Any], reason: str) -> None:
        """Stop waiting for ``call`` and tell the server (the protocol's cancellation)."""
        call.cancel()
        if not ids:
            return
        notice = types.CancelledNotification(params=types.CancelledNotificationParams(requestId=ids[0], reason=reason))
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.send_notification(types.ClientNotification(notice)), 5)


async def list_all_tools(session: ClientSession) -> list[types.Tool]:
    """Every tool the server lists, following ``nextCursor``."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor or cursor in seen:  # a server repeating a cursor would page forever
            return tools
        seen.add(cursor)
