"""OpenTelemetry traces and metrics of tool calls, model calls, agent runs and MCP calls (extra ``otel``).

Off until :func:`instrument` is called (``dispatchguard.instrument()``); it uses the global tracer
and meter providers, so spans go wherever the application's OpenTelemetry SDK sends them. Only
``opentelemetry-api`` is needed, and it is imported by :func:`instrument` alone: while tracing is
off (or the package is absent) the dispatcher pays one attribute check per call.

Spans follow the OpenTelemetry GenAI and MCP semantic conventions:

``execute_tool {tool}``   each ``dispatch_tool``/``adispatch_tool`` (and their ``_result`` twins):
                          ``gen_ai.operation.name``, ``gen_ai.tool.name``, ``gen_ai.tool.call.id``
                          (the caller's ``context["tool_call_id"]`` or the agent loop's call id),
                          ``error.type`` (the error kind of the dispatcher's taxonomy) with status
                          ERROR; ``gen_ai.tool.call.arguments``/``gen_ai.tool.call.result`` only
                          with ``capture_content=True``, cut to ``max_content_chars``
``chat {model}``          each model call of the agent loop: ``gen_ai.request.model``,
                          ``gen_ai.provider.name``, ``gen_ai.response.model``,
                          ``gen_ai.usage.input_tokens``/``output_tokens`` and
                          ``gen_ai.response.finish_reasons`` when the API reports them
``invoke_agent``          one run of the agent loop (``dispatchguard.agent.stop_reason``, ``.steps``)
``POST /chat``            the service's request (a SERVER span; a W3C ``traceparent`` header is its parent)
``tools/call {tool}``     an MCP call, CLIENT side in ``McpClient`` and SERVER side in
                          ``dispatchguard mcp``; the W3C trace context travels in the request's
                          ``params._meta`` (``traceparent``, ``tracestate``)

Metric: the histogram ``dispatchguard.tool.duration`` (seconds) per dispatch, with
``gen_ai.tool.name`` (``_OTHER`` for a name the registry does not know) and ``error.type``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

__all__ = [
    "DEFAULT_MAX_CONTENT_CHARS",
    "STATE",
    "TOOL_CALL_ID",
    "TOOL_DURATION_METRIC",
    "TracingState",
    "agent_span",
    "chat_span",
    "current_context",
    "instrument",
    "is_instrumented",
    "mcp_client_span",
    "mcp_server_span",
    "server_span",
    "tool_abort",
    "tool_end",
    "tool_start",
    "uninstrument",
]

SCOPE = "dispatchguard"
DEFAULT_MAX_CONTENT_CHARS = 4096
TOOL_DURATION_METRIC = "dispatchguard.tool.duration"
#: Error kinds answered before a tool was found: the name is the model's, not a registered tool's,
#: so the metric does not take it as an attribute value (unbounded cardinality).
UNRESOLVED_KINDS = frozenset({"invalid_json", "invalid_action", "unknown_tool", "invalid_call",
                              "payload_too_large", "internal_error"})

#: The model's id of the tool call being dispatched (set by the agent loop for its native calls).
TOOL_CALL_ID: ContextVar[str | None] = ContextVar("dispatchguard_tool_call_id", default=None)


class TracingState:
    """What :func:`instrument` turned on. ``tracer`` is ``None`` while tracing is off: the one
    thing the dispatcher checks per call."""

    __slots__ = ("api", "capture_content", "context", "duration", "max_content_chars", "propagate", "tracer")

    def __init__(self) -> None:
        self.tracer: Any = None
        self.duration: Any = None
        self.api: Any = None
        self.propagate: Any = None
        self.context: Any = None
        self.capture_content = False
        self.max_content_chars = DEFAULT_MAX_CONTENT_CHARS


STATE = TracingState()


def instrument(*, capture_content: bool = False, max_content_chars: int = DEFAULT_MAX_CONTENT_CHARS,
               tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Turn tracing on: spans from the global tracer provider (or ``tracer_provider``), the
    duration histogram from the global meter provider (or ``meter_provider``).

    ``capture_content=True`` records tool arguments and results on the tool spans, each cut to
    ``max_content_chars`` characters: they may hold personal data, so they are off by default.
    Raises ``ImportError`` naming the extra when ``opentelemetry-api`` is not installed, and
    ``ValueError`` for a ``max_content_chars`` that is not a positive int. Calling it again
    replaces the settings.
    """
    if type(max_content_chars) is not int or max_content_chars < 1:
        raise ValueError(f"max_content_chars must be a positive int, got {max_content_chars!r}")
    try:
        from opentelemetry import context, metrics, propagate, trace
    except ImportError as exc:
        raise ImportError("dispatchguard.instrument() needs OpenTelemetry: "
                          "pip install 'dispatchguard[otel]'") from exc
    from dispatchguard import __version__

    tracer = trace.get_tracer(SCOPE, __version__, tracer_provider)
    meter = metrics.get_meter(SCOPE, __version__, meter_provider)
    STATE.duration = meter.create_histogram(
        TOOL_DURATION_METRIC, unit="s", description="Duration of dispatchguard tool calls (dispatch_tool)")
    STATE.api = trace
    STATE.propagate = propagate
    STATE.context = context
    STATE.capture_content = bool(capture_content)
    STATE.max_content_chars = max_content_chars
    STATE.tracer = tracer  # last: the dispatcher reads it without a lock


def uninstrument() -> None:
    """Turn tracing off again (spans already started end as usual)."""
    STATE.tracer = None


def is_instrumented() -> bool:
    """Whether :func:`instrument` turned tracing on."""
    return STATE.tracer is not None


def _cut(text: str) -> str:
    limit = STATE.max_content_chars
    return text if len(text) <= limit else text[:limit]


def _arguments_text(action: Any) -> str | None:
    """The arguments of a raw action as JSON text (a text payload as sent), for content capture."""
    if isinstance(action, str):
        return action
    args = action.get("args") if isinstance(action, Mapping) else getattr(action, "args", None)
    if args is None:
        return None
    try:
        return json.dumps(args, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        return None


def _error_status(span: Any, description: str | None) -> None:
    status = STATE.api.Status(STATE.api.StatusCode.ERROR, description)
    span.set_status(status)


def _stated(action: Any, context: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The span name and attributes a dispatch starts with, from what the caller passed: the tool
    name as a dict or a ToolAction states it (text is parsed by the dispatcher; ``tool_end`` renames
    the span when the outcome names another), the call id, the arguments when captured."""
    attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool"}
    try:
        call_id = context.get("tool_call_id") if isinstance(context, Mapping) else None
        if not isinstance(call_id, str):
            call_id = TOOL_CALL_ID.get()
        if call_id:
            attributes["gen_ai.tool.call.id"] = call_id
        if STATE.capture_content:
            arguments = _arguments_text(action)
            if arguments is not None:
                attributes["gen_ai.tool.call.arguments"] = _cut(arguments)
        named = action.get("name", action.get("tool")) if isinstance(action, Mapping) else getattr(action, "name", None)
    except Exception:  # a hostile mapping or object: the dispatcher answers it, the span goes without
        named = None
    return (f"execute_tool {named}" if isinstance(named, str) and named else "execute_tool"), attributes


def tool_start(action: Any, context: Mapping[str, Any] | None) -> tuple:
    """Start the ``execute_tool`` span of one dispatch (tracing on) and make it current; the
    handle goes to :func:`tool_end` (or :func:`tool_abort`) with the dispatcher's outcome."""
    name, attributes = _stated(action, context)
    api = STATE.api
    span = STATE.tracer.start_span(name, kind=api.SpanKind.INTERNAL, attributes=attributes)
    token = STATE.context.attach(api.set_span_in_context(span))
    return span, token, time.perf_counter(), name


def tool_end(handle: tuple, out: tuple) -> None:
    """End a tool span with the outcome ``(text, kind, tool, error)``; record its duration."""
    span, token, started, name = handle
    text, kind, tool, error = out
    metric = {"gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": "_OTHER" if tool is None or kind in UNRESOLVED_KINDS else tool}
    attributes: dict[str, Any] = {}
    if tool is not None:
        if name != f"execute_tool {tool}":
            span.update_name(f"execute_tool {tool}")
        attributes["gen_ai.tool.name"] = tool
    if kind is not None:
        attributes["error.type"] = metric["error.type"] = kind
        _error_status(span, error)
    if STATE.capture_content:
        attributes["gen_ai.tool.call.result"] = _cut(text)
    span.set_attributes(attributes)
    STATE.context.detach(token)
    span.end()
    STATE.duration.record(time.perf_counter() - started, metric)


def tool_abort(handle: tuple, exc: BaseException) -> None:
    """End a tool span that an exception left (cancellation, an interrupt): failed, with its class."""
    span, token = handle[:2]
    span.record_exception(exc)
    span.set_attribute("error.type", type(exc).__qualname__)
    _error_status(span, str(exc) or type(exc).__name__)
    STATE.context.detach(token)
    span.end()


class _NoRecorder:
    """What the span helpers yield while tracing is off: every record is a no-op."""

    def reply(self, reply: Any) -> None:
        return None

    def result(self, result: Any) -> None:
        return None

    def status(self, code: int) -> None:
        return None

    def meta(self) -> dict[str, Any] | None:
        return None


_OFF = _NoRecorder()


class _SpanRecorder(_NoRecorder):
    """Records on one span; an exception ends it failed unless the recorder already said why."""

    def __init__(self, span: Any) -> None:
        self.span = span
        self.failed = False

    def fail(self, description: str | None, error_type: str) -> None:
        self.failed = True
        self.span.set_attribute("error.type", error_type)
        _error_status(self.span, description)

    def raised(self, exc: BaseException) -> None:
        if not self.failed:
            self.fail(str(exc) or type(exc).__name__, type(exc).__qualname__)


class _ChatRecorder(_SpanRecorder):
    def reply(self, reply: Any) -> None:
        """Response facts of a :class:`~dispatchguard.agent.llm.ModelReply` (or plain text)."""
        span = self.span
        model = getattr(reply, "model", None)
        if isinstance(model, str) and model:
            span.set_attribute("gen_ai.response.model", model)
        usage = getattr(reply, "usage", None)
        if isinstance(usage, Mapping):
            for key in ("input_tokens", "output_tokens"):
                value = usage.get(key)
                if type(value) is int:
                    span.set_attribute(f"gen_ai.usage.{key}", value)
        finish = getattr(reply, "finish_reason", None)
        if isinstance(finish, str) and finish:
            span.set_attribute("gen_ai.response.finish_reasons", [finish])


@contextlib.contextmanager
def _span(name: str, kind: str, attributes: dict[str, Any], recorder: type[_SpanRecorder] = _SpanRecorder,
          context: Any = None) -> Iterator[Any]:
    api = STATE.api
    with STATE.tracer.start_as_current_span(name, context=context, kind=getattr(api.SpanKind, kind),
                                            attributes=attributes, record_exception=True,
                                            set_status_on_exception=False) as span:
        record = recorder(span)
        try:
            yield record
        except BaseException as exc:
            record.raised(exc)
            raise


def chat_span(llm: Any) -> contextlib.AbstractContextManager[Any]:
    """The ``chat {model}`` span of one model call; yields a recorder whose ``reply(reply)``
    adds the response's model, token usage and finish reason."""
    if STATE.tracer is None:
        return contextlib.nullcontext(_OFF)
    model = getattr(llm, "model", None)
    model = model if isinstance(model, str) and model else None
    attributes: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    if model:
        attributes["gen_ai.request.model"] = model
    provider = getattr(llm, "provider_name", None)
    if isinstance(provider, str) and provider:
        attributes["gen_ai.provider.name"] = provider
    return _span(f"chat {model}" if model else "chat", "CLIENT", attributes, _ChatRecorder)


class _AgentRecorder(_SpanRecorder):
    def result(self, result: Any) -> None:
        """The run's stop reason and step count; an ``llm_error`` stop marks the span failed."""
        stop = getattr(result, "stop_reason", None)
        self.span.set_attribute("dispatchguard.agent.stop_reason", str(stop))
        self.span.set_attribute("dispatchguard.agent.steps", int(getattr(result, "steps", 0)))
        if stop == "llm_error":
            self.fail(str(getattr(result, "response", "")), "llm_error")


def agent_span(llm: Any) -> contextlib.AbstractContextManager[Any]:
    """The ``invoke_agent`` span of one loop run; yields a recorder whose ``result(loop_result)``
    adds the stop reason and the number of steps."""
    if STATE.tracer is None:
        return contextlib.nullcontext(_OFF)
    attributes: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": SCOPE}
    model = getattr(llm, "model", None)
    if isinstance(model, str) and model:
        attributes["gen_ai.request.model"] = model
    return _span("invoke_agent", "INTERNAL", attributes, _AgentRecorder)


class _ServerRecorder(_SpanRecorder):
    def status(self, code: int) -> None:
        """The HTTP status of the response; 5xx marks the span failed."""
        self.span.set_attribute("http.response.status_code", code)
        if code >= 500:
            self.fail(None, str(code))
        else:
            self.failed = True  # an HTTPException below 500 is an answer, not a failure of the span


def server_span(method: str, route: str, headers: Mapping[str, str]) -> contextlib.AbstractContextManager[Any]:
    """The SERVER span of an HTTP request (``{method} {route}``), child of the W3C trace context
    in ``headers`` when there is one; yields a recorder whose ``status(code)`` sets the answer.

    None when the web framework's own telemetry (FastAPI's native tracing, an ASGI
    instrumentation) already records the request's span: the run's spans go under that one."""
    if STATE.tracer is None or STATE.api.get_current_span().is_recording():
        return contextlib.nullcontext(_OFF)
    parent = STATE.propagate.extract(headers)
    attributes = {"http.request.method": method, "http.route": route, "url.path": route}
    return _span(f"{method} {route}", "SERVER", attributes, _ServerRecorder, parent)


def current_context() -> Any:
    """The caller's OpenTelemetry context (to hand to another thread or loop), or ``None`` while
    tracing is off."""
    if STATE.tracer is None:
        return None
    from opentelemetry import context

    return context.get_current()


class _McpClientRecorder(_SpanRecorder):
    def meta(self) -> dict[str, Any] | None:
        """The request's ``_meta`` entries carrying this span's W3C trace context."""
        carrier: dict[str, Any] = {}
        STATE.propagate.inject(carrier)
        return carrier or None


def mcp_client_span(tool: str, parent: Any, server: str | None = None) -> contextlib.AbstractContextManager[Any]:
    """The CLIENT span ``tools/call {tool}`` of an MCP call, under ``parent`` (see
    :func:`current_context`); yields a recorder whose ``meta()`` is the ``_meta`` to send."""
    if STATE.tracer is None:
        return contextlib.nullcontext(_OFF)
    attributes: dict[str, Any] = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool,
                                  "gen_ai.operation.name": "execute_tool"}
    if server:
        attributes["server.address"] = server
    return _span(f"tools/call {tool}", "CLIENT", attributes, _McpClientRecorder, parent)


def mcp_server_span(tool: str, meta: Mapping[str, Any] | None, request_id: Any = None,
                    ) -> contextlib.AbstractContextManager[Any]:
    """The SERVER span ``tools/call {tool}`` of an MCP call, child of the trace context in the
    request's ``_meta`` (``traceparent``/``tracestate``) when there is one."""
    if STATE.tracer is None:
        return contextlib.nullcontext(_OFF)
    carrier = {k: v for k, v in (meta or {}).items() if isinstance(k, str) and isinstance(v, str)}
    parent = STATE.propagate.extract(carrier)
    attributes: dict[str, Any] = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool,
                                  "gen_ai.operation.name": "execute_tool"}
    if request_id is not None:
        attributes["jsonrpc.request.id"] = str(request_id)
    return _span(f"tools/call {tool}", "SERVER", attributes, _SpanRecorder, parent)
