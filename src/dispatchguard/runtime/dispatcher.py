"""``dispatch_tool``: the only function that executes a tool. Never raises; always JSON text.

Every failure is a JSON object ``{"error": "<message>", "kind": "<kind>", "tool": "<name>", ...}``
and is logged on the ``dispatchguard.runtime`` logger. Kinds:

``invalid_json``       the payload text is not strict JSON (the message gives line/column)
``invalid_action``     JSON, but not exactly ``{"name"|"tool": str, "args": {...}}``
``unknown_tool``       no tool of that name (the message lists the available ones)
``invalid_args``       an argument is missing, of the wrong type, or unknown under ``reject``
``payload_too_large``  JSON text or ``args`` larger than the limit (1 MiB by default)
``clarification``      name ``"None"``: the model asks a question (``"question"`` field); not run
``async_tool``         an async-only tool dispatched synchronously inside a running event loop
``invalid_call``       a bad dispatcher option (``registry`` not a ``ToolRegistry``, ``unknown_args``
                       not ``"drop"``/``"reject"``, ``max_bytes`` not a positive int)
``internal_error``     a bug in dispatchguard itself (defence in depth; never expected)
``tool_error``         the tool raised (or the exception's ``error_kind``, with its
                       ``error_details`` merged into the object)

``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit`` and ``asyncio.CancelledError`` propagate
(cancellation must reach the caller's timeout logic).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dispatchguard.runtime.json_text import ensure_json_str, safe_text, to_jsonable
from dispatchguard.runtime.registry import TOOL_REGISTRY, ToolRegistry, ToolSpec
from dispatchguard.runtime.validation import ValidationResult, _check, display_name

__all__ = [
    "DispatchResult",
    "adispatch_tool",
    "adispatch_tool_result",
    "dispatch_tool",
    "dispatch_tool_result",
    "error_json",
]

log = logging.getLogger("dispatchguard.runtime")
_PROPAGATE = (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError)
_RESERVED = ("error", "kind", "tool")
_PLAIN = frozenset({str, int, float, bool, type(None), dict, list})
_ERR_DUMPS = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False).encode


@dataclass(frozen=True)
class DispatchResult:
    """Structured outcome of a dispatch, for metrics: the JSON ``text`` plus facts outside it."""

    text: str
    status: str  # "ok" or "error"
    kind: str | None  # None when ok
    tool: str | None
    duration_s: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def error_json(message: str, kind: str, tool: Any = None, details: Any = None) -> str:
    """The error object as JSON text. ``details`` never overwrite ``error``/``kind``/``tool``."""
    obj: dict[str, Any] = {"error": message, "kind": kind, "tool": tool if isinstance(tool, str) or tool is None
                           else safe_text(tool)}
    if details:
        try:
            items = list(details.items()) if isinstance(details, Mapping) else []
        except Exception:  # noqa: BLE001 - hostile mapping
            items = []
        for k, v in items:
            key = k if isinstance(k, str) else safe_text(k)
            if key not in _RESERVED:
                obj[key] = v
    try:
        return ensure_json_str(to_jsonable(obj))
    except Exception:  # noqa: BLE001  # pragma: no cover - to_jsonable only fails on hostile details
        base = {"error": safe_text(message), "kind": safe_text(kind), "tool": obj["tool"]}
        return ensure_json_str(base)


def _exc_error(exc: BaseException, spec: ToolSpec) -> tuple[str, str, Any]:
    kind = getattr(exc, "error_kind", None)
    if not isinstance(kind, str) or not kind:
        kind = "tool_error"
    details = getattr(exc, "error_details", None)
    text = safe_text(exc)
    try:
        ename = type(exc).__name__
    except Exception:  # noqa: BLE001  # pragma: no cover
        ename = "Exception"
    message = f"tool {spec.name!r} failed: {ename}: {text}" if text else f"tool {spec.name!r} failed: {ename}"
    return message, kind, details if isinstance(details, Mapping) else None


_Out = tuple  # (text, kind or None, tool name or None, error message or None)


def _invalid(v: ValidationResult) -> _Out:
    if v.kind == "clarification":
        log.info("dispatch: clarification requested: %s", display_name(v.question or "", 200))
        text = error_json(v.error or "clarification requested", "clarification", "None",
                          {"question": v.question or ""})
        return text, "clarification", "None", v.error
    log.warning("dispatch rejected (%s): %s", v.kind, v.error)
    kind = v.kind or "invalid_action"
    return error_json(v.error or "invalid tool call", kind, v.tool_name), kind, v.tool_name, v.error


def _options(registry: ToolRegistry | None, unknown_args: str | None,
             max_bytes: int | None) -> tuple[ToolRegistry, bool, int] | _Out:
    reg = TOOL_REGISTRY if registry is None else registry
    if type(reg) is not ToolRegistry and not isinstance(reg, ToolRegistry):
        return _bad_call(f"registry must be a ToolRegistry, got {type(reg).__name__}")
    policy = reg.unknown_args if unknown_args is None else unknown_args
    if policy not in ("drop", "reject"):
        return _bad_call(f"unknown_args must be 'drop' or 'reject', got {display_name(policy)!r}")
    if max_bytes is None:
        return reg, policy == "reject", reg.max_bytes
    if type(max_bytes) is not int or max_bytes <= 0:
        return _bad_call(f"max_bytes must be a positive int, got {display_name(max_bytes)!r}")
    return reg, policy == "reject", max_bytes


def _bad_call(msg: str) -> _Out:
    log.warning("dispatch: %s", msg)
    return error_json(msg, "invalid_call"), "invalid_call", None, msg


def _tool_failed(exc: BaseException, spec: ToolSpec) -> _Out:
    message, kind, details = _exc_error(exc, spec)
    log.warning("dispatch: %s", message, exc_info=exc if log.isEnabledFor(logging.DEBUG) else None)
    return error_json(message, kind, spec.name, details), kind, spec.name, message


class _AsyncInRunningLoop(Exception):
    error_kind = "async_tool"


def _await_in_sync(spec: ToolSpec, awaitable: Any) -> Any:
    """A sync tool returned an awaitable: run it when no loop is running here, else refuse."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        async def _wait() -> Any:
            return await awaitable

        return asyncio.run(_wait())
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
    raise _AsyncInRunningLoop("it returned an awaitable and an event loop is running in this thread; "
                              "use adispatch_tool")


def _run_sync(spec: ToolSpec, args: dict) -> _Out:
    try:
        if spec.call is not None:
            result = spec.call(**args)
            if type(result) not in _PLAIN and inspect.isawaitable(result):
                result = _await_in_sync(spec, result)
        else:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                result = asyncio.run(spec.acall(**args))  # type: ignore[misc]
            else:
                msg = (f"tool {spec.name!r} is async and an event loop is running in this thread; "
                       "use adispatch_tool")
                log.warning("dispatch: %s", msg)
                return error_json(msg, "async_tool", spec.name), "async_tool", spec.name, msg
    except _PROPAGATE:
        raise
    except BaseException as exc:  # noqa: BLE001 - the contract is "never raises"
        return _tool_failed(exc, spec)
    return ensure_json_str(result), None, spec.name, None


async def _run_async(spec: ToolSpec, args: dict) -> _Out:
    try:
        if spec.acall is not None:
            result = await spec.acall(**args)
        else:
            result = spec.call(**args)  # type: ignore[misc]
            if type(result) not in _PLAIN and inspect.isawaitable(result):
                result = await result
    except _PROPAGATE:
        raise
    except BaseException as exc:  # noqa: BLE001
        return _tool_failed(exc, spec)
    return ensure_json_str(result), None, spec.name, None


def _internal(exc: BaseException) -> _Out:  # pragma: no cover - defence in depth
    log.error("dispatch: internal error", exc_info=True)  # noqa: LOG014 - called from the except block
    msg = f"internal dispatcher error: {safe_text(exc)}"
    return error_json(msg, "internal_error"), "internal_error", None, msg


def _dispatch(action: Any, registry: ToolRegistry | None, unknown_args: str | None,
              max_bytes: int | None) -> _Out:
    try:
        if type(registry) is ToolRegistry and unknown_args is None and max_bytes is None:
            r = _check(action, registry, registry.unknown_args == "reject", registry.max_bytes)
        else:
            opts = _options(registry, unknown_args, max_bytes)
            if len(opts) == 4:
                return opts
            r = _check(action, *opts)
        if type(r) is not tuple:
            return _invalid(r)
        return _run_sync(*r)
    except _PROPAGATE:
        raise
    except BaseException as exc:  # noqa: BLE001  # pragma: no cover - defence in depth
        return _internal(exc)


async def _adispatch(action: Any, registry: ToolRegistry | None, unknown_args: str | None,
                     max_bytes: int | None) -> _Out:
    try:
        opts = _options(registry, unknown_args, max_bytes)
        if len(opts) == 4:
            return opts
        reg, reject, limit = opts
        r = _check(action, reg, reject, limit)
        if type(r) is not tuple:
            return _invalid(r)
        return await _run_async(*r)
    except _PROPAGATE:
        raise
    except BaseException as exc:  # noqa: BLE001  # pragma: no cover - defence in depth
        return _internal(exc)


def dispatch_tool(
    action: Any,
    *,
    registry: ToolRegistry | None = None,
    unknown_args: str | None = None,
    max_bytes: int | None = None,
) -> str:
    """Validate ``action`` (a :class:`ToolAction`, a dict or JSON text), run the tool, and return
    ``ensure_json_str(result)``. Never raises: failures are returned as an error JSON object (see the
    module docstring for the kinds). Async tools run under ``asyncio.run`` when no event loop is
    running in this thread (use :func:`adispatch_tool` inside one). ``unknown_args`` and
    ``max_bytes`` override the registry's defaults.
    """
    return _dispatch(action, registry, unknown_args, max_bytes)[0]


async def adispatch_tool(
    action: Any,
    *,
    registry: ToolRegistry | None = None,
    unknown_args: str | None = None,
    max_bytes: int | None = None,
) -> str:
    """Async twin of :func:`dispatch_tool`: awaits async tools natively, calls sync tools inline
    (run those in a thread yourself if they block). Never raises except for cancellation."""
    return (await _adispatch(action, registry, unknown_args, max_bytes))[0]


def _result(out: _Out, t0: int) -> DispatchResult:
    duration = (time.perf_counter_ns() - t0) / 1e9
    text, kind, tool, error = out
    return DispatchResult(text, "ok" if kind is None else "error", kind, tool, duration, error)


def dispatch_tool_result(action: Any, *, registry: ToolRegistry | None = None,
                         unknown_args: str | None = None, max_bytes: int | None = None) -> DispatchResult:
    """Like :func:`dispatch_tool`, with status (``"ok"``/``"error"``), kind, tool and duration
    (seconds) returned outside the text. Never raises."""
    t0 = time.perf_counter_ns()
    return _result(_dispatch(action, registry, unknown_args, max_bytes), t0)


async def adispatch_tool_result(action: Any, *, registry: ToolRegistry | None = None,
                                unknown_args: str | None = None, max_bytes: int | None = None) -> DispatchResult:
    """Async twin of :func:`dispatch_tool_result`."""
    t0 = time.perf_counter_ns()
    return _result(await _adispatch(action, registry, unknown_args, max_bytes), t0)
