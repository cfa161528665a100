"""Serve a ToolRegistry as an MCP server (needs the extra: pip install 'dispatchguard[mcp]').

--transport stdio (the default) speaks MCP on stdin/stdout, for a host that starts the command
(Claude Desktop, an IDE, an agent framework); stdout then carries nothing but the protocol and logs
go to stderr. --transport http serves streamable HTTP at --path, stateless, so that --workers N
(uvicorn processes) can each answer any request. Tool failures, unknown tools and invalid arguments
are tool results with isError true carrying the error JSON; --tool-timeout bounds each call.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from dispatchguard.cli.common import UsageError, positive, run_guarded
from dispatchguard.mcp import DEFAULT_PATH, DEFAULT_TOOL_TIMEOUT, LOOPBACK_HOSTS, SETTINGS_ENV

HELP = "serve a ToolRegistry as an MCP server over stdio or HTTP (needs dispatchguard[mcp])"

FACTORY = "dispatchguard.mcp.server:app_from_environment"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --registry (required), the transport, its HTTP options, timeout and log level."""
    parser.add_argument("--registry", required=True, metavar="MODULE:NAME",
                        help="the ToolRegistry to serve, e.g. dispatchguard.tools:REFERENCE_TOOLS")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                        help="stdio (default) or streamable HTTP")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: interface to bind (default: %(default)s)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP: port (default: %(default)s)")
    parser.add_argument("--path", default=DEFAULT_PATH, help="HTTP: the MCP endpoint (default: %(default)s)")
    parser.add_argument("--workers", type=positive(int), default=1, help="HTTP: worker processes (default: 1)")
    parser.add_argument("--allow-host", action="append", default=None, metavar="HOST[:PORT|:*]",
                        help="HTTP: a Host header to accept, repeatable (default: loopback names only; "
                        "DNS rebinding protection)")
    parser.add_argument("--json-response", action="store_true",
                        help="HTTP: answer each POST with one JSON body rather than an SSE stream (a "
                        "client that disconnects then no longer cancels its call)")
    parser.add_argument("--max-body-bytes", type=positive(int), default=None,
                        help="HTTP: largest accepted request body (default: the SDK's 4 MiB)")
    parser.add_argument("--header-timeout", type=positive(float), default=10.0,
                        help="HTTP: seconds for a request's headers to arrive, else 408 (default: %(default)s)")
    parser.add_argument("--body-timeout", type=positive(float), default=30.0,
                        help="HTTP: seconds for a request's body to arrive after its headers, else 408 "
                        "(default: %(default)s)")
    parser.add_argument("--max-connections", type=positive(int), default=200,
                        help="HTTP: open connections per worker; more are answered 503 with Retry-After "
                        "(default: %(default)s)")
    parser.add_argument("--max-connections-per-peer", type=positive(int), default=32,
                        help="HTTP: open connections per client address and worker; more are answered 429 "
                        "with Retry-After (default: %(default)s)")
    parser.add_argument("--thread-share", type=positive(int), default=4,
                        help="HTTP: sync-tool threads one client address may hold at once, of the 8 per "
                        "worker; past it a call waits for one of its own, at most --tool-timeout, then "
                        "answers overloaded (default: %(default)s)")
    parser.add_argument("--tool-timeout", type=positive(float), default=DEFAULT_TOOL_TIMEOUT,
                        help="seconds per tool call (default: %(default)s)")
    parser.add_argument("--log-level", default="warning",
                        choices=["critical", "error", "warning", "info", "debug"],
                        help="logging on stderr (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    """Serve the registry over MCP until the server stops, then return 0; 2 (one line on stderr)
    when the mcp SDK is missing, the registry or HTTP settings are invalid or --workers is given
    with stdio. With --workers > 1 the settings reach the workers through the environment."""
    return run_guarded(_run, args)


def _run(args: argparse.Namespace) -> int:
    try:
        import mcp.server.lowlevel  # noqa: F401
    except ImportError as exc:
        raise UsageError(f"{exc.name or 'the mcp SDK'} is not installed; install the mcp extra: "
                         "pip install 'dispatchguard[mcp]'") from None
    if args.transport == "stdio" and args.workers != 1:
        raise UsageError("--workers needs --transport http (a stdio server is one process)")
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from dispatchguard.mcp.server import HttpSettings, load_tool_registry, serve_stdio

    if args.transport == "stdio":
        import anyio

        from dispatchguard.mcp.stdio import protocol_stdout

        # stdout is the protocol's from here: a registry module that prints at import, and every
        # tool, write to stderr
        with protocol_stdout() as protocol:
            try:
                registry = load_tool_registry(args.registry)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            anyio.run(lambda: serve_stdio(registry, protocol=protocol, tool_timeout=args.tool_timeout))
        return 0
    import uvicorn

    settings = HttpSettings(
        registry=args.registry, path=args.path, tool_timeout=args.tool_timeout,
        allowed_hosts=tuple(args.allow_host) if args.allow_host else LOOPBACK_HOSTS,
        json_response=args.json_response, max_body_bytes=args.max_body_bytes,
        header_timeout=args.header_timeout, body_timeout=args.body_timeout,
        max_connections=args.max_connections, max_connections_per_peer=args.max_connections_per_peer,
        thread_share=args.thread_share,
    )
    try:
        app = settings.app()  # also checks the settings before any worker starts
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    from dispatchguard.mcp.connections import http_protocol

    if args.workers == 1:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, http=http_protocol())
        return 0
    os.environ[SETTINGS_ENV] = settings.to_json()
    uvicorn.run(FACTORY, factory=True, workers=args.workers, host=args.host, port=args.port,
                log_level=args.log_level, http=http_protocol())
    return 0
