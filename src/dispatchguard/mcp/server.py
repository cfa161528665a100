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
import json
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import mcp.types as types
from mcp.server.lowlevel import Server

from dispatchguard.agent import execute_tool
from dispatchguard.mcp import DEFAULT_PATH, DEFAULT_TOOL_TIMEOUT, LOOPBACK_HOSTS, SETTINGS_ENV
from dispatchguard.mcp.results import tool_result
from dispatchguard.runtime import ToolRegistry

__all__ = [
    "HttpSettings",
    "app_from_environment",
    "build_server",
    "create_http_app",
    "load_tool_registry",
    "serve_stdio",
]

def build_server(
    registry: ToolRegistry,
    *,
    name: str = "dispatchguard",
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    context: Mapping[str, Any] | None = None,
) -> Server:
    """The MCP server of ``registry``. ``tool_timeout`` bounds each call (seconds, ``None``: no
    limit); ``context`` supplies the tools' injected arguments (the same values to every caller:
    MCP carries no caller identity the registry could map to them)."""
    if not isinstance(registry, ToolRegistry):
        raise TypeError(f"registry must be a ToolRegistry, got {type(registry).__name__}")
    if tool_timeout is not None and not tool_timeout > 0:
        raise ValueError(f"tool_timeout must be positive seconds or None, got {tool_timeout!r}")
    from dispatchguard import __version__

    server: Server = Server(name, version=__version__)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool.model_validate(entry) for entry in registry.export("mcp")]

    # The SDK's own check of the arguments is off: the dispatcher's validator is stricter and its
    # error names the argument, the expected and the actual value.
    @server.call_tool(validate_input=False)
    async def call_tool(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        text = await execute_tool({"name": tool, "args": arguments}, registry=registry,
                                  timeout=tool_timeout, context=context)
        return tool_result(text)

    return server


async def serve_stdio(registry: ToolRegistry, **options: Any) -> None:
    """Serve ``registry`` on this process's stdin/stdout until stdin closes (``build_server``'s
    options). Nothing else may write to stdout meanwhile: it carries the protocol."""
    from mcp.server.stdio import stdio_server

    server = build_server(registry, **options)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


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
    **options: Any,
) -> Any:
    """A Starlette app serving ``registry`` at ``path`` over streamable HTTP, stateless, plus
    ``GET /healthz``. ``allowed_hosts`` are the accepted ``Host`` headers (``host:*`` for any
    port; DNS rebinding protection, with matching ``Origin``s); ``json_response`` answers each POST
    with one JSON body instead of an SSE stream (an SSE stream notices a client that disconnects
    and cancels its call; a JSON answer runs the call to its end or its timeout);
    ``max_body_bytes`` caps request bodies (413; the SDK's 4 MiB by default). Other options go to
    :func:`build_server`."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    if not path.startswith("/"):
        raise ValueError(f"path must start with '/', got {path!r}")
    server = build_server(registry, **options)
    hosts = list(allowed_hosts)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")],
    )
    limits = {} if max_body_bytes is None else {"max_request_body_size": max_body_bytes}
    manager = StreamableHTTPSessionManager(app=server, stateless=True, json_response=json_response,
                                           security_settings=security, **limits)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    async def healthz(_request: Any) -> Any:
        return JSONResponse({"status": "ok", "tools": len(registry)})

    return Starlette(
        routes=[Route(path, endpoint=StatelessMcpEndpoint(manager), methods=["GET", "POST", "DELETE"]),
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

    def to_json(self) -> str:
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
                               tool_timeout=self.tool_timeout)


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
