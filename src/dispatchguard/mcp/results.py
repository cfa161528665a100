"""Tool results across the protocol, both ways: the dispatcher's JSON text as a ``CallToolResult``
(the server), and a ``CallToolResult`` as JSON text or an :class:`McpCallError` (the client)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import mcp.types as types

from dispatchguard.runtime import ensure_json_str

__all__ = ["KNOWN_DETAILS", "KNOWN_KINDS", "MAX_ERROR_CHARS", "McpCallError", "McpLimits", "capped",
           "is_error_object", "result_text", "tool_result"]

#: How much of a remote error's text an error object carries (``McpLimits.max_error_chars``).
MAX_ERROR_CHARS = 4000

#: The kinds a remote error object keeps: dispatchguard's own taxonomy (the dispatcher's, the
#: agent's, ``dispatchguard.http``'s, the reference tools', MCP's). Any other kind a remote server
#: sends is reported as ``tool_error``: a hostile server cannot invent what the model is told.
KNOWN_KINDS = frozenset({
    "invalid_json", "invalid_action", "unknown_tool", "invalid_args", "payload_too_large", "clarification",
    "async_tool", "missing_context", "invalid_call", "tool_error", "tool_failure", "internal_error",
    "timeout", "cancelled", "overloaded", "http_error", "blocked_url", "not_configured", "unsafe_path",
    "too_large", "invalid_feed", "invalid_response", "mcp_error", "mcp_disconnected", "mcp_unavailable",
})
#: The detail fields a remote error object keeps (the documented ones; scalar values only).
KNOWN_DETAILS = frozenset({"timeout", "url", "status", "attempts", "reason", "code", "retryable", "question",
                           "completed", "stranded"})


@dataclasses.dataclass(frozen=True)
class McpLimits:
    """What an MCP server may hand the model through :class:`~dispatchguard.mcp.McpClient`:

    - ``max_error_chars``: a remote error's message (longer is cut, ``...`` marks the cut);
    - ``max_detail_chars``: each kept detail string of a remote error object;
    - ``max_description_chars``: a tool's description as registered (cut likewise);
    - ``max_schema_bytes``: a tool's ``inputSchema`` as JSON; a larger one is refused at
      registration (``RegistryError`` naming the tool and its size).
    """

    max_error_chars: int = MAX_ERROR_CHARS
    max_detail_chars: int = 500
    max_description_chars: int = 4000
    max_schema_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if type(value) is not int or value <= 0:
                raise ValueError(f"McpLimits.{field.name} must be a positive int, got {value!r}")


def capped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked by ``...`` (within the limit)."""
    return text if len(text) <= limit else text[:max(limit - 3, 0)] + "..."


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


def result_text(result: types.CallToolResult, tool: str, server: str, limits: McpLimits | None = None) -> str:
    """The JSON text of a remote tool's result (``structuredContent`` when given; else one text
    block's text as JSON, several text blocks as an array of strings, other blocks as their JSON
    objects); an ``isError`` result raises :class:`McpCallError`, bounded by ``limits``."""
    if result.isError:
        raise remote_error(result, tool, server, limits or McpLimits())
    if result.structuredContent is not None:
        return ensure_json_str(result.structuredContent)
    blocks = result.content
    if all(isinstance(block, types.TextContent) for block in blocks):
        texts = [block.text for block in blocks]  # type: ignore[union-attr]
        return ensure_json_str(texts[0] if len(texts) == 1 else texts or None)
    return ensure_json_str([block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in blocks])


def remote_error(result: types.CallToolResult, tool: str, server: str, limits: McpLimits) -> McpCallError:
    """The error of an ``isError`` result. A remote dispatcher's error object is reduced to what
    the model may see: its message (capped), its kind if dispatchguard's taxonomy has it (else
    ``tool_error``), and the documented detail fields whose values are scalars (strings capped);
    any other text is a ``tool_error`` with that text (capped)."""
    text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
    value = result.structuredContent
    if value is None:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
    if is_error_object(value):
        kind = value["kind"] if value["kind"] in KNOWN_KINDS else "tool_error"
        details = {key: kept for key, item in value.items()
                   if key in KNOWN_DETAILS and (kept := scalar(item, limits.max_detail_chars)) is not DROPPED}
        message = capped(value["error"], limits.max_error_chars) or "the tool reported an error without a message"
        return McpCallError(message, kind, **{**details, "server": server, "mcp_tool": tool})
    message = capped(text, limits.max_error_chars) or "the tool reported an error without a message"
    return McpCallError(message, "tool_error", server=server, mcp_tool=tool)


DROPPED = object()


def scalar(value: Any, limit: int) -> Any:
    """A detail value as kept: a JSON scalar (a string capped to ``limit``), else ``DROPPED``."""
    if value is None or isinstance(value, (bool, int)):
        return value if not isinstance(value, int) or value.bit_length() <= 64 else DROPPED
    if isinstance(value, float):
        return value if math.isfinite(value) else DROPPED
    if isinstance(value, str):
        return capped(value, limit)
    return DROPPED
