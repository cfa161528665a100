"""Short, model-friendly summaries of tool results for the agent loop's history.

A tool's JSON text can be large; the loop feeds the model ``Tool N [name]: <summary>`` instead.
:func:`summarize_tool_result` never raises:

- an error object (``{"error": ..., "kind": ...}`` as returned by the dispatcher) becomes
  ``"<tool> failed: <reason>"``;
- a tool with a registered summariser (:func:`register_summarizer`) is summarised by it, given the
  parsed JSON value (or the raw text when it is not JSON); if it raises, the default is used;
- by default a list (or a dict holding a list under ``results``, ``items``, ``data``, ``hits``,
  ``chunks`` or ``documents``) shows its first ``items`` entries (3), each cut to ``item_chars``
  (200) characters, joined with `` | `` and followed by ``(+N more)``; any other value is shown as
  compact JSON;
- whatever the summariser produced is then cut to ``limit`` characters (900) keeping the head and
  the tail, with ``truncated`` and ``original_len`` noted in the middle.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from dispatchguard.runtime.summaries import Summarizer, register_summarizer, summarizer_of, unregister_summarizer

__all__ = [
    "Summarizer",
    "register_summarizer",
    "summarize_tool_result",
    "truncate_middle",
    "unregister_summarizer",
]

log = logging.getLogger(__name__)

LIST_KEYS = ("results", "items", "data", "hits", "chunks", "documents")


def truncate_middle(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail around a marker."""
    if len(text) <= limit:
        return text
    marker = f" ...[truncated, original_len={len(text)}]... "
    room = limit - len(marker)
    if room < 2:  # a tiny limit: no room for head and tail
        return text[: max(limit, 0)]
    head = room - room // 2
    return text[:head] + marker + text[len(text) - room // 2 :]


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _default_summary(value: Any, items: int, item_chars: int) -> str:
    if isinstance(value, dict):
        key = next((k for k in LIST_KEYS if isinstance(value.get(k), list)), None)
        if key is None:
            return _compact(value)
        value = value[key]
    if not isinstance(value, list):
        return _compact(value)
    shown = [truncate_middle(_compact(item), item_chars) for item in value[:items]]
    rest = len(value) - len(shown)
    return " | ".join(shown) + (f" (+{rest} more)" if rest > 0 else "") if shown else "(no results)"


def _error_reason(value: Any) -> str | None:
    if isinstance(value, dict) and "error" in value and ("kind" in value or len(value) == 1):
        error = value["error"]
        if isinstance(error, dict):  # OpenAI-style {"error": {"message": ...}}
            error = error.get("message", error)
        return _compact(error)
    return None


def summarize_tool_result(
    name: str,
    result_json: str,
    *,
    limit: int = 900,
    items: int = 3,
    item_chars: int = 200,
) -> str:
    """Summarise one tool result (JSON text) in at most ``limit`` characters."""
    if not isinstance(result_json, str):
        from dispatchguard import ensure_json_str

        result_json = ensure_json_str(result_json)
    try:
        value: Any = json.loads(result_json)
    except (ValueError, RecursionError):
        value = result_json
    reason = _error_reason(value)
    if reason is not None:
        return truncate_middle(f"{name} failed: {reason}", limit)
    summary: str | None = None
    custom = summarizer_of(name)
    if custom is not None:
        try:
            summary = str(custom(value))
        except Exception:  # a summariser bug must not break the loop
            log.warning("summariser for tool %r raised; using the default", name, exc_info=True)
    if summary is None:
        summary = _default_summary(value, items, item_chars)
    return truncate_middle(summary, limit)
