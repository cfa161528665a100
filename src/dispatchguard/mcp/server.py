"""Serve a :class:`~dispatchguard.runtime.ToolRegistry` as an MCP server, on the official SDK's
low-level ``Server`` (extra ``dispatchguard[mcp]``).

- ``tools/list`` is the registry's MCP export (``registry.export("mcp")``): the validator's JSON
  Schema of each tool, injected arguments left out;
- ``tools/call`` runs the call through :func:`dispatchguard.agent.execute_tool` (the dispatcher's
  validation; sync tools in their bounded threads, async tools on the loop; the tool timeout).
  Every outcome is a ``CallToolResult``: the JSON text as one text block, ``structuredContent`` when
  it is a JSON object, ``isError`` when it is the dispatcher's error object. An unknown tool,
  invalid arguments, a failing tool or a timeout are tool results with ``isError: true``, never
  JSON-RPC errors (a model sees them and can correct itself);
- a client's ``notifications/cancelled`` cancels the handler (the SDK's cancel scope): an async tool
  is cancelled, a sync tool's thread is abandoned and counted as stranded, like any timeout.

Over HTTP the server runs the SDK's streamable HTTP transport **stateless** (a fresh transport per
POST, no ``Mcp-Session-Id``), so any worker can answer any request.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import logging
import os
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, BinaryIO

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.shared.message import ServerMessageMetadata, SessionMessage

from dispatchguard.agent import execute_tool
from dispatchguard.agent.execute import MAX_STRANDED_THREADS
from dispatchguard.mcp import DEFAULT_PATH, DEFAULT_TOOL_TIMEOUT, LOOPBACK_HOSTS, SETTINGS_ENV
from dispatchguard.mcp.arguments import SCOPE_KEY, NonFinite, non_finite_in_body, non_finite_in_call, noted, restore
from dispatchguard.mcp.connections import LIMITS_STATE, ConnectionLimits
from dispatchguard.mcp.fairness import DEFAULT_THREAD_SHARE, ThreadShare, client_of
from dispatchguard.mcp.results import tool_result
from dispatchguard.mcp.stdio import protocol_stdout
from dispatchguard.runtime import ToolRegistry
from dispatchguard.runtime.dispatcher import error_json
from dispatchguard.runtime.tracing import mcp_server_span

__all__ = [
    "MAX_BODY_NESTING",
    "CancelRouter",
    "HttpSettings",
    "JsonBodyGuard",
    "app_from_environment",
    "build_server",
    "create_http_app",
    "guard_stream",
    "json_body_problem",
    "load_tool_registry",
    "serve_stdio",
]

log = logging.getLogger(__name__)


class CancelRouter:
    """Cancels calls by request id, in place of the SDK's own handling of ``notifications/cancelled``.

    The SDK (1.x) answers a cancelled request itself and then lets the handler answer too: a cancel
    that arrives between a handler's end and its answer fails the assertion "Request already
    responded to", which ends the whole server (and a second cancel of the request answers it twice). Over
    stdio the cancels are taken off the stream before the SDK sees them (:func:`guard_stream`) and
    routed here: the call's own cancel scope is cancelled and the call answers once, with the
    error object of kind ``cancelled``. A cancel for a request that is not running is ignored."""

    def __init__(self) -> None:
        self.scopes: dict[Any, anyio.CancelScope] = {}

    @contextlib.contextmanager
    def scope(self, request_id: Any) -> Iterator[anyio.CancelScope]:
        """Run the block in a cancel scope that :meth:`cancel` reaches by ``request_id``.

        The id is registered only while the block runs; a later call reusing the id takes it over.
        """
        scope = anyio.CancelScope()
        self.scopes[request_id] = scope
        try:
            with scope:
                yield scope
        finally:
            if self.scopes.get(request_id) is scope:
                del self.scopes[request_id]

    def cancel(self, request_id: Any) -> None:
        """Cancel the running call of ``request_id``; unknown or unhashable ids are ignored."""
        try:
            scope = self.scopes.get(request_id)
        except TypeError:  # an unhashable id from a hostile client
            return
        if scope is not None:
            scope.cancel()


def build_server(
    registry: ToolRegistry,
    *,
    name: str = "dispatchguard",
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    context: Mapping[str, Any] | None = None,
    cancels: CancelRouter | None = None,
    thread_share: int | None = None,
) -> Server:
    """The MCP server of ``registry``. ``tool_timeout`` bounds each call (seconds, ``None``: no
    limit); ``context`` supplies the tools' injected arguments (the same values to every caller:
    MCP carries no caller identity the registry could map to them); ``cancels`` routes the
    client's cancels to the calls (see :class:`CancelRouter`; without it the SDK handles them);
    ``thread_share`` is how many sync-tool threads one client (an HTTP peer address) may hold at
    once (:mod:`dispatchguard.mcp.fairness`; ``None``: no share)."""
    if not isinstance(registry, ToolRegistry):
        raise TypeError(f"registry must be a ToolRegistry, got {type(registry).__name__}")
    if tool_timeout is not None and not tool_timeout > 0:
        raise ValueError(f"tool_timeout must be positive seconds or None, got {tool_timeout!r}")
    from dispatchguard import __version__

    server: Server = Server(name, version=__version__)
    shares = None if thread_share is None else ThreadShare(thread_share)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool.model_validate(entry) for entry in registry.export("mcp")]

    async def run(tool: str, arguments: dict[str, Any]) -> str:
        request = server.request_context
        arguments = restore(arguments, noted(request.request, request.request_id))  # 1e400 is not null
        release = None
        client = client_of(request.request) if shares is not None else None
        if shares is not None and client is not None and (spec := registry.resolve(tool)) is not None \
                and not spec.is_async:
            release = await shares.acquire(client, tool_timeout)
            if release is None:
                return error_json(f"this client's {shares.share} sync tool threads (its share of the server's "
                                  f"{MAX_STRANDED_THREADS}) stayed busy for {tool_timeout or 0:g}s; retry when one of "
                                  "its calls ends", "overloaded", tool, {"share": shares.share})
        return await execute_tool({"name": tool, "args": arguments}, registry=registry,
                                  timeout=tool_timeout, context=context, thread_ended=release)

    # The SDK's own check of the arguments is off: the dispatcher's validator is stricter and its
    # error names the argument, the expected and the actual value.
    @server.call_tool(validate_input=False)
    async def call_tool(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        request = server.request_context
        with mcp_server_span(tool, request.meta.model_extra if request.meta else None, request.request_id):
            if cancels is None:
                return tool_result(await run(tool, arguments))
            text = None
            with cancels.scope(request.request_id):
                text = await run(tool, arguments)
        if text is None:
            text = error_json(f"the client cancelled the call of tool {tool!r}", "cancelled", tool)
        return tool_result(text)

    return server


async def guard_stream(source: Any, sink: Any, cancels: CancelRouter) -> None:
    """Forward the client's messages from ``source`` to ``sink`` (the server's read stream), but
    route cancels to ``cancels``, and drop lines that are not JSON-RPC messages and responses
    (this server never sends the client a request, so any response is unsolicited). Both are
    logged here: the SDK would answer them with a log notification the client did not ask for,
    and crash if the client is gone by then."""
    async with source, sink:
        async for item in source:
            if isinstance(item, Exception):
                log.warning("ignored input that is not a JSON-RPC message: %s", str(item).splitlines()[0])
                continue
            root = item.message.root
            if isinstance(root, (types.JSONRPCResponse, types.JSONRPCError)):
                log.warning("ignored a response to request %r, which this server never sent", root.id)
                continue
            if isinstance(root, types.JSONRPCNotification) and root.method == "notifications/cancelled":
                params = root.params if isinstance(root.params, dict) else {}
                cancels.cancel(params.get("requestId"))
                continue
            if isinstance(root, types.JSONRPCRequest) and (found := non_finite_in_call(root.method, root.params)):
                item = SessionMessage(item.message, metadata=ServerMessageMetadata(request_context=NonFinite(found)))
            await sink.send(item)


async def serve_stdio(registry: ToolRegistry, *, protocol: BinaryIO | None = None, **options: Any) -> None:
    """Serve ``registry`` on this process's stdin/stdout until stdin closes (``build_server``'s
    options). The protocol owns stdout at the descriptor level: ``protocol`` is the stream from
    :func:`dispatchguard.mcp.stdio.protocol_stdout` (taken here when not given), and whatever a
    tool writes to stdout (``print``, a subprocess, a C extension) goes to stderr."""
    if protocol is None:
        with protocol_stdout() as owned:
            await serve_stdio(registry, protocol=owned, **options)
        return
    from mcp.server.stdio import stdio_server

    cancels = CancelRouter()
    server = build_server(registry, cancels=cancels, **options)
    stdout = anyio.wrap_file(io.TextIOWrapper(protocol, encoding="utf-8", newline="\n"))
    async with stdio_server(stdout=stdout) as (read_stream, write_stream), anyio.create_task_group() as group:
        sink, guarded = anyio.create_memory_object_stream[Any](0)
        group.start_soon(guard_stream, read_stream, sink, cancels)
        await server.run(guarded, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()


#: The deepest JSON a POST body may nest (tool arguments nest at most 64 levels).
MAX_BODY_NESTING = 256


def json_body_problem(body: bytes) -> str | None:
    """Why ``body`` is not JSON the SDK's transport can read without failing (it answers 500 for
    bytes that are not UTF-8 and for nesting deep enough to exhaust the stack), or ``None``."""
    return read_json_body(body)[1]


def read_json_body(body: bytes) -> tuple[Any, str | None]:
    """``body`` decoded, and :func:`json_body_problem`'s verdict (the value is ``None`` with a problem)."""
    try:
        value = json.loads(body)
    except UnicodeDecodeError:
        return None, "Parse error: the body is not UTF-8"
    except RecursionError:
        return None, "Parse error: JSON nested too deeply"
    except ValueError as exc:
        return None, f"Parse error: {exc}"
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_BODY_NESTING:
            return None, f"Parse error: JSON nested deeper than {MAX_BODY_NESTING} levels"
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return value, None


class JsonBodyGuard:
    """ASGI middleware before the MCP endpoint: a POST body larger than ``max_body_bytes`` is 413
    before it is buffered, one that is not readable JSON is a JSON-RPC parse error (400, ``id``
    null) rather than the SDK's 500; a good body is replayed to the endpoint, whose later
    ``receive`` calls still see the client disconnect."""

    def __init__(self, app: Any, max_body_bytes: int, body_timeout: float | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Buffer and check a POST body, answering 413 or a parse error itself; replay a good one.

        Other methods and scopes pass straight through; a client gone mid-body gets no answer.
        """
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        from starlette.datastructures import Headers
        from starlette.responses import JSONResponse, PlainTextResponse

        declared = Headers(scope=scope).get("content-length", "")
        too_large = PlainTextResponse("Request body too large", status_code=413)
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self.body_timeout) as deadline:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body_bytes:
                    await too_large(scope, receive, send)
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        if deadline.cancelled_caught:  # a body dripped slower than the deadline: the socket is freed
            late = PlainTextResponse(f"Request body not received within {self.body_timeout:g}s",
                                     status_code=408, headers={"Connection": "close"})
            await late(scope, receive, send)
            return
        body = b"".join(chunks)
        value, problem = read_json_body(body)
        if problem is not None:
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": types.PARSE_ERROR, "message": problem}}
            await JSONResponse(error, status_code=400)(scope, receive, send)
            return
        notes = non_finite_in_body(value)
        if notes:  # for the handler, which sees them as null after the SDK (see mcp.arguments)
            scope[SCOPE_KEY] = notes
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


class StatelessMcpEndpoint:
    """The ASGI endpoint handing each request to the session manager (a class, not a function,
    so that Starlette's ``Route`` passes it the raw ASGI call rather than a ``Request``)."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.manager.handle_request(scope, receive, send)


def create_http_app(
    registry: ToolRegistry,
    *,
    path: str = DEFAULT_PATH,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    json_response: bool = False,
    max_body_bytes: int | None = None,
    limits: ConnectionLimits | None = None,
    **options: Any,
) -> Any:
    """A Starlette app serving ``registry`` at ``path`` over streamable HTTP, stateless, plus
    ``GET /healthz``. ``allowed_hosts`` are the accepted ``Host`` headers (``host:*`` for any
    port; DNS rebinding protection, with matching ``Origin``s); ``json_response`` answers each POST
    with one JSON body instead of an SSE stream (an SSE stream notices a client that disconnects
    and cancels its call; a JSON answer runs the call to its end or its timeout);
    ``max_body_bytes`` caps request bodies (413; the SDK's 4 MiB by default); ``limits`` are the
    read deadlines and connection caps (:class:`~dispatchguard.mcp.connections.ConnectionLimits`,
    its defaults when not given: the body deadline is the app's, the rest applies when uvicorn
    serves it with ``http=http_protocol()``, as ``dispatchguard mcp`` does). Other options go to
    :func:`build_server` (``thread_share`` defaults to :data:`DEFAULT_THREAD_SHARE` here)."""
    from mcp.server.streamable_http_manager import DEFAULT_MAX_REQUEST_BODY_SIZE, StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    if not path.startswith("/"):
        raise ValueError(f"path must start with '/', got {path!r}")
    options.setdefault("thread_share", DEFAULT_THREAD_SHARE)
    server = build_server(registry, **options)
    hosts = list(allowed_hosts)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")],
    )
    limit = DEFAULT_MAX_REQUEST_BODY_SIZE if max_body_bytes is None else max_body_bytes
    limits = ConnectionLimits() if limits is None else limits
    if not isinstance(limits, ConnectionLimits):
        raise TypeError(f"limits must be a ConnectionLimits, got {type(limits).__name__}")
    manager = StreamableHTTPSessionManager(app=server, stateless=True, json_response=json_response,
                                           security_settings=security, max_request_body_size=limit)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[dict[str, Any]]:
        async with manager.run():
            yield {LIMITS_STATE: limits}  # uvicorn hands it to each connection (mcp.connections)

    async def healthz(_request: Any) -> Any:
        return JSONResponse({"status": "ok", "tools": len(registry)})

    return Starlette(
        # POST only: a stateless server has no session for a GET stream to follow (the SDK would
        # hold each GET open forever, silent) nor for a DELETE to end; both are 405.
        routes=[Route(path, endpoint=JsonBodyGuard(StatelessMcpEndpoint(manager), limit,
                                                               limits.body_timeout), methods=["POST"]),
                Route("/healthz", endpoint=healthz, methods=["GET"])],
        lifespan=lifespan,
    )


@dataclasses.dataclass(frozen=True)
class HttpSettings:
    """What ``dispatchguard mcp --transport http`` configures, handed to worker processes as JSON."""

    registry: str
    path: str = DEFAULT_PATH
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    json_response: bool = False
    max_body_bytes: int | None = None
    header_timeout: float = ConnectionLimits.header_timeout
    body_timeout: float = ConnectionLimits.body_timeout
    max_connections: int = ConnectionLimits.max_connections
    max_connections_per_peer: int = ConnectionLimits.max_connections_per_peer
    thread_share: int = DEFAULT_THREAD_SHARE

    def limits(self) -> ConnectionLimits:
        """The read deadlines and connection caps; ``ValueError`` naming a bad one."""
        return ConnectionLimits(header_timeout=self.header_timeout, body_timeout=self.body_timeout,
                                max_connections=self.max_connections,
                                max_connections_per_peer=self.max_connections_per_peer)

    def to_json(self) -> str:
        """The settings as a JSON object, which :meth:`from_json` reads back in worker processes."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> HttpSettings:
        """The settings in ``text``; ``ValueError`` naming what is wrong otherwise."""
        from pydantic import TypeAdapter, ValidationError

        try:
            return TypeAdapter(cls).validate_json(text)
        except ValidationError as exc:
            raise ValueError(str(exc)) from None

    def app(self) -> Any:
        """The app for these settings; ``ValueError`` for a registry that cannot be loaded."""
        registry = load_tool_registry(self.registry)
        return create_http_app(registry, path=self.path, allowed_hosts=self.allowed_hosts,
                               json_response=self.json_response, max_body_bytes=self.max_body_bytes,
                               tool_timeout=self.tool_timeout, limits=self.limits(),
                               thread_share=self.thread_share)


def load_tool_registry(spec: str) -> ToolRegistry:
    """Import ``module:NAME`` and return it if it is a ``ToolRegistry``; ``ValueError`` otherwise."""
    from dispatchguard.server.factory import load_registry

    registry = load_registry(spec)
    if not isinstance(registry, ToolRegistry):
        raise ValueError(f"--registry {spec}: expected a ToolRegistry, got {type(registry).__name__}")
    return registry


def app_from_environment() -> Any:
    """The HTTP app for the settings in ``DISPATCHGUARD_MCP_SETTINGS`` (uvicorn ``--factory``)."""
    text = os.environ.get(SETTINGS_ENV)
    if not text:
        raise ValueError(f"{SETTINGS_ENV} is not set: it names the registry to serve")
    try:
        settings = HttpSettings.from_json(text)
    except ValueError as exc:
        raise ValueError(f"{SETTINGS_ENV} is not valid: {exc}") from None
    return settings.app()
