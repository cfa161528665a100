"""The registry speaks MCP (extra ``dispatchguard[mcp]``, the official ``mcp`` SDK).

- :func:`build_server`, :func:`serve_stdio`, :func:`create_http_app`: serve a ``ToolRegistry`` as an
  MCP server over stdio or streamable HTTP (stateless); ``dispatchguard mcp`` runs them;
- :class:`McpClient`: connect to an MCP server (a command over stdio, or an HTTP URL) and register
  its tools in a ``ToolRegistry``, each validated against its ``inputSchema`` and dispatched like
  any other tool.

This package is named like the SDK (``mcp``): its modules import the SDK by absolute name. The
names below are loaded on first use (PEP 562), so that the ``dispatchguard`` command can read the
subcommand's options without loading the SDK.
"""

from __future__ import annotations

from dispatchguard.lazy import lazy_exports

__all__ = [
    "DEFAULT_PATH",
    "DEFAULT_TOOL_TIMEOUT",
    "LOOPBACK_HOSTS",
    "SETTINGS_ENV",
    "McpCallError",
    "McpClient",
    "McpLimits",
    "build_server",
    "create_http_app",
    "serve_stdio",
]

DEFAULT_TOOL_TIMEOUT = 12.0
DEFAULT_PATH = "/mcp"
#: The environment variable through which ``dispatchguard mcp --workers N`` hands its settings to
#: each uvicorn worker process.
SETTINGS_ENV = "DISPATCHGUARD_MCP_SETTINGS"
#: The Host headers the HTTP server accepts unless told otherwise (DNS rebinding protection).
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")

_HOMES = {
    "McpCallError": "dispatchguard.mcp.client",
    "McpClient": "dispatchguard.mcp.client",
    "McpLimits": "dispatchguard.mcp.results",
    "build_server": "dispatchguard.mcp.server",
    "create_http_app": "dispatchguard.mcp.server",
    "serve_stdio": "dispatchguard.mcp.server",
}


__getattr__, __dir__ = lazy_exports(globals(), _HOMES)
