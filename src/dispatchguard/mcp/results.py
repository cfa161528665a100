"""Tool results across the protocol, both ways: the dispatcher's JSON text as a ``CallToolResult``
(the server), and a ``CallToolResult`` as JSON text or an :class:`McpCallError` (the client)."""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types

from dispatchguard.runtime import ensure_json_str

__all__ = ["MAX_ERROR_CHARS", "McpCallError", "is_error_object", "result_text", "tool_result"]

#: How much of a remote error's text an error object carries.
MAX_ERROR_CHARS = 4000


class McpCallError(Exception):
    """A call to an MCP server's tool did not give a result. ``error_kind`` is its place in the
    dispatcher's taxonomy (the error object's ``kind``), ``error_details`` the fields added to the
    object:

    - ``tool_error``, or the remote dispatcher's own kind: the tool answered ``isError: true``;
    - ``mcp_error``: the server answered the request with a JSON-RPC error (``code``), or a result
      the SDK refused;
    - ``mcp_disconnected``: the connection ended before the answer (the server exited, the HTTP
      exchange failed);
    - ``mcp_unavailable``: no connection could be made (the command cannot start, nothing listens,
      no answer to ``initialize`` in time);
    - ``timeout``: no answer within the client's timeout (the server was sent
      ``notifications/cancelled``).
    """

    display_name = "MCP"

    def __init__(self, message: str, kind: str, **details: Any) -> None:
        super().__init__(message)
        self.error_kind = kind
        self.error_details = details


def is_error_object(value: Any) -> bool:
    """Whether a decoded tool result is the dispatcher's error object ``{"error", "kind", "tool"}``.

    ``execute_tool`` returns text only, so the status is read back from its shape, as the agent
    loop does; the three keys together (two of them strings) make a tool's own data unlikely to
    pass for an error."""
    return (isinstance(value, dict) and isinstance(value.get("error"), str)
            and isinstance(value.get("kind"), str) and "tool" in value)


def tool_result(text: str) -> types.CallToolResult:
    """The ``CallToolResult`` of one dispatched call's JSON text: one text block,
    ``structuredContent`` when the text is a JSON object, ``isError`` for an error object."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # ensure_json_str's output always parses; defence in depth
        value = None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structuredContent=value if isinstance(value, dict) else None,
        isError=is_error_object(value),
    )


def result_text(result: types.CallToolResult, tool: str, server: str) -> str:
    """The JSON text of a remote tool's result (``structuredContent`` when given; else one text
    block's text as JSON, several text blocks as an array of strings, other blocks as their JSON
    objects); an ``isError`` result raises :class:`McpCallError`."""
    if result.isError:
        raise remote_error(result, tool, server)
    if result.structuredContent is not None:
        return ensure_json_str(result.structuredContent)
    blocks = result.content
    if all(isinstance(block, types.TextContent) for block in blocks):
        texts = [block.text for block in blocks]  # type: ignore[union-attr]
        return ensure_json_str(texts[0] if len(texts) == 1 else texts or None)
    return ensure_json_str([block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in blocks])


def remote_error(result: types.CallToolResult, tool: str, server: str) -> McpCallError:
    """The error of an ``isError`` result: a remote dispatcher's error object keeps its kind,
    message and details; any other text is a ``tool_error``."""
    text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
    value = result.structuredContent
    if value is None:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
    if is_error_object(value):
        details = {k: v for k, v in value.items() if k not in ("error", "kind", "tool")}
        return McpCallError(value["error"], value["kind"], **{**details, "server": server, "mcp_tool": tool})
    message = text[:MAX_ERROR_CHARS] or "the tool reported an error without a message"
    return McpCallError(message, "tool_error", server=server, mcp_tool=tool)
