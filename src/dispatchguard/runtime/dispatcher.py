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
``missing_context``    the tool has an injected argument and ``context`` does not supply it
``invalid_call``       a bad dispatcher option (``registry`` not a ``ToolRegistry``, ``unknown_args``
                       not ``"drop"``/``"reject"``, ``max_bytes`` not a positive int)
``internal_error``     a bug in dispatchguard itself (defence in depth; never expected)
``tool_error``         the tool raised, or reported an error (a LangChain ``ToolMessage`` with
                       status "error"), or the exception's ``error_kind``, with its
                       ``error_details`` merged into the object
``tool_failure``       a CrewAI tool returned a ``ToolFailure`` (``max_usage_count`` spent, or the
                       tool's own report); ``reason``, ``code`` and ``retryable`` are merged in

``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit`` and ``asyncio.CancelledError`` propagate
(cancellation must reach the caller's timeout logic).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dispatchguard.runtime.json_text import MAX_ITEMS, ensure_json_str, safe_text, to_jsonable
from dispatchguard.runtime.registry import TOOL_REGISTRY, ToolRegistry, ToolSpec  # noqa: F401 (agent.execute reads TOOL_REGISTRY here)
from dispatchguard.runtime.tracing import STATE as _TRACING
from dispatchguard.runtime.tracing import tool_abort, tool_end, tool_start
from dispatchguard.runtime.validation import ValidationResult, call_options, check_call, display_name

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
_BIG = 1 << 64
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
        """Whether ``text`` is the tool's result rather than an error object."""
        return self.status == "ok"


def error_json(message: str, kind: str, tool: Any = None, details: Any = None) -> str:
    """The error object as JSON text. ``details`` never overwrite ``error``/``kind``/``tool``."""
    obj: dict[str, Any] = {"error": message, "kind": kind, "tool": tool if isinstance(tool, str) or tool is None
                           else safe_text(tool)}
    if details:
        try:
            items = list(details.items()) if isinstance(details, Mapping) else []
        except _PROPAGATE:
            raise
        except BaseException:  # a hostile mapping: the error object goes without its details
            items = []
        for k, v in items:
            key = k if isinstance(k, str) else safe_text(k)
            if key not in _RESERVED:
                obj[key] = v
    try:
        return ensure_json_str(to_jsonable(obj))
    except _PROPAGATE:
        raise
    except BaseException:  # hostile details (a value whose conversion raises)
        base = {"error": safe_text(message), "kind": safe_text(kind), "tool": obj["tool"]}
        return ensure_json_str(base)


class ToolReportedError(Exception):
    """A tool's result that reports a failure (CrewAI ``ToolFailure``, LangChain error ``ToolMessage``)."""

    def __init__(self, message: str, display_name: str, kind: str = "tool_error",
                 details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.display_name = display_name
        self.error_kind = kind
        self.error_details = dict(details or {})


class MissingContextError(Exception):
    error_kind = "missing_context"
    display_name = "MissingContext"


def _attribute(exc: BaseException, name: str) -> Any:
    """An attribute of a tool's exception, or None when reading it raises (a hostile property)."""
    try:
        return getattr(exc, name, None)
    except _PROPAGATE:
        raise
    except BaseException:
        return None


def _exc_error(exc: BaseException, spec: ToolSpec) -> tuple[str, str, Any]:
    kind = _attribute(exc, "error_kind")
    if not isinstance(kind, str) or not kind:
        kind = "tool_error"
    details = _attribute(exc, "error_details")
    text = safe_text(exc)
    ename = _attribute(exc, "display_name")
    if not isinstance(ename, str):
        ename = type(exc).__name__
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


def _framework_result(result: Any) -> Any:
    """A LangChain ``ToolMessage`` reduced to its content (its error status raised); a CrewAI
    ``ToolFailure`` raised as an error with its reason."""
    cls = type(result)
    module = getattr(cls, "__module__", "") or ""
    if cls.__name__ == "ToolMessage" and module.startswith("langchain_core."):
        if getattr(result, "status", None) == "error":
            raise ToolReportedError(safe_text(result.content), "ToolMessage(status='error')")
        return result.content
    if cls.__name__ == "ToolFailure" and module.startswith("crewai."):
        reason = getattr(result, "reason", None)
        details = {"reason": getattr(reason, "value", reason), "code": getattr(result, "code", None),
                   "retryable": getattr(result, "retryable", None)}
        raise ToolReportedError(safe_text(getattr(result, "message", result)), "ToolFailure", "tool_failure",
                                details)
    if inspect.isgenerator(result):
        # converted here, inside the tool's error handling: nested generators share one budget,
        # and going over it is the tool's error, not a repr of what was left
        return to_jsonable(result)
    if inspect.isasyncgen(result):
        raise TypeError("the tool returned an async generator: return a list, or dispatch it with "
                        "adispatch_tool")
    return result


async def _adrain(agen: Any) -> list:
    items: list = []
    async for item in agen:
        if len(items) >= MAX_ITEMS:
            await agen.aclose()
            raise ValueError(f"the tool's async generator yielded more than {MAX_ITEMS} items")
        items.append(item)
    return items


def _with_context(spec: ToolSpec, args: dict, context: Mapping[str, Any] | None) -> tuple[dict, str | None]:
    """The tool's arguments with its injected ones added from ``context``, and the tool-call id
    (the caller's ``context["tool_call_id"]``, else a fresh one) when the tool takes one."""
    call_id = None
    if spec.needs_call_id:
        found = context.get("tool_call_id") if context is not None else None
        call_id = found if isinstance(found, str) and found else f"call_{uuid.uuid4().hex[:24]}"
    for p in spec.injected:
        if p.is_call_id:
            if not spec.takes_dict:  # LangChain fills its own InjectedToolCallId from the call id
                args[p.name] = call_id
        elif context is not None and p.key in context:
            args[p.name] = context[p.key]
        elif p.required:
            raise MissingContextError(f"argument {p.name!r} is supplied by the caller: pass "
                                      f"context={{{p.key!r}: ...}} to the dispatcher")
    return args, call_id


def _run_sync(spec: ToolSpec, args: dict, context: Mapping[str, Any] | None = None) -> _Out:
    try:
        if spec.needs_context:
            args, call_id = _with_context(spec, args, context)
        else:
            call_id = None
        if spec.call is not None:
            result = spec.call(args, call_id) if spec.takes_dict else spec.call(**args)
            if type(result) is int and -_BIG < result < _BIG:
                return str(result), None, spec.name, None
            if type(result) not in _PLAIN:
                if inspect.isawaitable(result):
                    result = _await_in_sync(spec, result)
                result = _framework_result(result)
        else:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                coro = spec.acall(args, call_id) if spec.takes_dict else spec.acall(**args)  # type: ignore[misc]
                result = _framework_result(asyncio.run(_await(coro)))
            else:
                msg = (f"tool {spec.name!r} is async and an event loop is running in this thread; "
                       "use adispatch_tool")
                log.warning("dispatch: %s", msg)
                return error_json(msg, "async_tool", spec.name), "async_tool", spec.name, msg
    except _PROPAGATE:
        raise
    except BaseException as exc:
        return _tool_failed(exc, spec)
    return ensure_json_str(result), None, spec.name, None


async def _await(awaitable: Any) -> Any:
    result = await awaitable
    return await _adrain(result) if inspect.isasyncgen(result) else result


async def _run_async(spec: ToolSpec, args: dict, context: Mapping[str, Any] | None = None) -> _Out:
    try:
        if spec.needs_context:
            args, call_id = _with_context(spec, args, context)
        else:
            call_id = None
        if spec.acall is not None:
            result = await (spec.acall(args, call_id) if spec.takes_dict else spec.acall(**args))
        else:
            result = spec.call(args, call_id) if spec.takes_dict else spec.call(**args)  # type: ignore[misc]
            if type(result) not in _PLAIN and inspect.isawaitable(result):
                result = await result
        if type(result) not in _PLAIN:
            result = await _adrain(result) if inspect.isasyncgen(result) else _framework_result(result)
    except _PROPAGATE:
        raise
    except BaseException as exc:
        return _tool_failed(exc, spec)
    return ensure_json_str(result), None, spec.name, None


def _internal(exc: BaseException) -> _Out:  # pragma: no cover - defence in depth
    log.error("dispatch: internal error", exc_info=True)
    msg = f"internal dispatcher error: {safe_text(exc)}"
    return error_json(msg, "internal_error"), "internal_error", None, msg


def _check(action: Any, registry: ToolRegistry | None, unknown_args: str | None,
           max_bytes: int | None) -> tuple[ToolSpec, dict] | ValidationResult:
    """The call's one validation: ``(spec, args)``, or the failed result (bad options included)."""
    if type(registry) is ToolRegistry and unknown_args is None and max_bytes is None:
        return check_call(action, registry, registry.reject_unknown, registry.max_bytes)
    opts = call_options(registry, unknown_args, max_bytes)
    return check_call(action, *opts) if type(opts) is tuple else opts


def _dispatch(action: Any, registry: ToolRegistry | None, unknown_args: str | None,
              max_bytes: int | None, context: Mapping[str, Any] | None = None) -> _Out:
    try:
        r = _check(action, registry, unknown_args, max_bytes)
        return _run_sync(r[0], r[1], context) if type(r) is tuple else _invalid(r)
    except _PROPAGATE:
        raise
    except BaseException as exc:  # pragma: no cover - defence in depth
        return _internal(exc)


def _traced(action: Any, registry: ToolRegistry | None, unknown_args: str | None,
            max_bytes: int | None, context: Mapping[str, Any] | None = None) -> _Out:
    """``_dispatch`` inside its ``execute_tool`` span (tracing on)."""
    handle = tool_start(action, context)
    try:
        out = _dispatch(action, registry, unknown_args, max_bytes, context)
    except BaseException as exc:  # only what the dispatcher lets through: cancellation, interrupts
        tool_abort(handle, exc)
        raise
    tool_end(handle, out)
    return out


async def _atraced(action: Any, registry: ToolRegistry | None, unknown_args: str | None,
                   max_bytes: int | None, context: Mapping[str, Any] | None = None) -> _Out:
    handle = tool_start(action, context)
    try:
        out = await _adispatch(action, registry, unknown_args, max_bytes, context)
    except BaseException as exc:
        tool_abort(handle, exc)
        raise
    tool_end(handle, out)
    return out


async def _adispatch(action: Any, registry: ToolRegistry | None, unknown_args: str | None,
                     max_bytes: int | None, context: Mapping[str, Any] | None = None) -> _Out:
    try:
        r = _check(action, registry, unknown_args, max_bytes)
        return await _run_async(r[0], r[1], context) if type(r) is tuple else _invalid(r)
    except _PROPAGATE:
        raise
    except BaseException as exc:  # pragma: no cover - defence in depth
        return _internal(exc)


def dispatch_tool(
    action: Any,
    *,
    registry: ToolRegistry | None = None,
    unknown_args: str | None = None,
    max_bytes: int | None = None,
    context: Mapping[str, Any] | None = None,
) -> str:
    """Validate ``action`` (a :class:`ToolAction`, a dict or JSON text), run the tool, and return
    ``ensure_json_str(result)``. Never raises: failures are returned as an error JSON object (see the
    module docstring for the kinds). Async tools run under ``asyncio.run`` when no event loop is
    running in this thread (use :func:`adispatch_tool` inside one). ``unknown_args`` and
    ``max_bytes`` override the registry's defaults. ``context`` supplies the tool's injected
    arguments (by parameter name, or ``InjectedArg(key)``; ``"tool_call_id"`` for LangChain's
    ``InjectedToolCallId``): the caller's values, never the model's. After
    ``dispatchguard.instrument()`` each call is an ``execute_tool`` span (see ``runtime.tracing``).
    """
    if _TRACING.tracer is not None:
        return _traced(action, registry, unknown_args, max_bytes, context)[0]
    if type(registry) is ToolRegistry and unknown_args is None and max_bytes is None:  # the hot path
        r = check_call(action, registry, registry.reject_unknown, registry.max_bytes)
        return _run_sync(r[0], r[1], context)[0] if type(r) is tuple else _invalid(r)[0]
    return _dispatch(action, registry, unknown_args, max_bytes, context)[0]


async def adispatch_tool(
    action: Any,
    *,
    registry: ToolRegistry | None = None,
    unknown_args: str | None = None,
    max_bytes: int | None = None,
    context: Mapping[str, Any] | None = None,
) -> str:
    """Async twin of :func:`dispatch_tool`: awaits async tools natively, calls sync tools inline
    (run those in a thread yourself if they block, or use ``dispatchguard.agent.execute_tool``).
    Never raises except for cancellation."""
    if _TRACING.tracer is not None:
        return (await _atraced(action, registry, unknown_args, max_bytes, context))[0]
    return (await _adispatch(action, registry, unknown_args, max_bytes, context))[0]


def _result(out: _Out, t0: int) -> DispatchResult:
    duration = (time.perf_counter_ns() - t0) / 1e9
    text, kind, tool, error = out
    return DispatchResult(text, "ok" if kind is None else "error", kind, tool, duration, error)


def dispatch_tool_result(action: Any, *, registry: ToolRegistry | None = None,
                         unknown_args: str | None = None, max_bytes: int | None = None,
                         context: Mapping[str, Any] | None = None) -> DispatchResult:
    """Like :func:`dispatch_tool`, with status (``"ok"``/``"error"``), kind, tool and duration
    (seconds) returned outside the text. Never raises."""
    t0 = time.perf_counter_ns()
    if _TRACING.tracer is not None:
        return _result(_traced(action, registry, unknown_args, max_bytes, context), t0)
    return _result(_dispatch(action, registry, unknown_args, max_bytes, context), t0)


async def adispatch_tool_result(action: Any, *, registry: ToolRegistry | None = None,
                                unknown_args: str | None = None, max_bytes: int | None = None,
                                context: Mapping[str, Any] | None = None) -> DispatchResult:
    """Async twin of :func:`dispatch_tool_result`."""
    t0 = time.perf_counter_ns()
    if _TRACING.tracer is not None:
        return _result(await _atraced(action, registry, unknown_args, max_bytes, context), t0)
    return _result(await _adispatch(action, registry, unknown_args, max_bytes, context), t0)
