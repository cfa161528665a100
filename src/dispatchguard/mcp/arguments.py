"""Numbers JSON cannot carry, kept for the validator's message.

A client may send ``1e400`` (or ``Infinity``, which both JSON parsers on the way accept): it parses
to an infinite float. The SDK then re-reads each request through its JSON form, where an infinite
float becomes ``null``, so the dispatcher would see ``null`` and say "got null". So the two entry
points take note of such numbers before the SDK does (stdio: :func:`~dispatchguard.mcp.server.guard_stream`,
HTTP: :class:`~dispatchguard.mcp.server.JsonBodyGuard`), and the ``tools/call`` handler puts them
back (:func:`restore`) before the call is validated: the message then says "expected integer, got
a number too large for a float".
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["SCOPE_KEY", "NonFinite", "non_finite_in_body", "non_finite_in_call", "noted", "restore"]

#: Where an HTTP request's notes live in its ASGI scope: ``{request id: [(path, value), ...]}``.
SCOPE_KEY = "dispatchguard.non_finite"
#: Containers nested deeper than this are not searched (the validator refuses them anyway).
MAX_DEPTH = 64

Found = list[tuple[list[Any], float]]


class NonFinite:
    """The notes of one stdio request (the request context the SDK hands the handler)."""

    def __init__(self, found: Found) -> None:
        self.found = found


def non_finite_floats(value: Any) -> Found:
    """Every infinite or NaN float in ``value``, with its path of keys and indexes."""
    found: Found = []
    pending: list[tuple[Any, list[Any]]] = [(value, [])]
    while pending:
        item, path = pending.pop()
        if type(item) is float:
            if not math.isfinite(item):
                found.append((path, item))
        elif len(path) < MAX_DEPTH and type(item) is dict:
            pending.extend((child, [*path, key]) for key, child in item.items())
        elif len(path) < MAX_DEPTH and type(item) is list:
            pending.extend((child, [*path, index]) for index, child in enumerate(item))
    return found


def non_finite_in_call(method: Any, params: Any) -> Found:
    """The non-finite numbers in a ``tools/call``'s ``arguments`` (none for other methods)."""
    if method != "tools/call" or not isinstance(params, Mapping):
        return []
    return non_finite_floats(params.get("arguments"))


def non_finite_in_body(value: Any) -> dict[Any, Found]:
    """The notes of a decoded POST body (one message or a batch), by request id."""
    notes: dict[Any, Found] = {}
    for message in value if isinstance(value, list) else [value]:
        if isinstance(message, dict):
            found = non_finite_in_call(message.get("method"), message.get("params"))
            request_id = message.get("id")
            if found and isinstance(request_id, (str, int)):
                notes[request_id] = found
    return notes


def noted(request: Any, request_id: Any) -> Found:
    """The notes the handler's request context carries for ``request_id`` (stdio: a
    :class:`NonFinite`; HTTP: the Starlette request, whose scope holds them)."""
    if isinstance(request, NonFinite):
        return request.found
    scope = getattr(request, "scope", None)
    notes = scope.get(SCOPE_KEY) if isinstance(scope, dict) else None
    return notes.get(request_id, []) if isinstance(notes, dict) else []


def restore(arguments: Any, found: Found) -> Any:
    """``arguments`` with each noted number put back where the SDK left ``null``; a copy, and only
    where the shape still matches."""
    if not found or not isinstance(arguments, dict):
        return arguments
    arguments = copy.deepcopy(arguments)
    for path, number in found:
        if not path:
            continue
        holder: Any = arguments
        for step in path[:-1]:
            holder = step_into(holder, step)
        last = path[-1]
        present = (isinstance(holder, dict) and last in holder) or \
            (isinstance(holder, list) and isinstance(last, int) and 0 <= last < len(holder))
        if present and holder[last] is None:
            holder[last] = number
    return arguments


def step_into(holder: Any, step: Any) -> Any:
    """``holder[step]`` when it exists, else ``None``."""
    if isinstance(holder, dict):
        return holder.get(step)
    if isinstance(holder, list) and isinstance(step, int) and 0 <= step < len(holder):
        return holder[step]
    return None
