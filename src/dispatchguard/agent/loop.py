"""The bounded agent loop: the model answers, or asks for tool calls, at most ``max_steps`` times.

Each step sends the conversation to the model, in one of two protocols:

- **native tool calling** (a client with ``achat``, see :mod:`dispatchguard.agent.llm`): the tools
  go as the provider's tool list; a reply may carry several calls, each validated by
  ``validate_tool_call``; the valid ones run through
  :func:`~dispatchguard.agent.execute.execute_tools` (parallel-safe ones concurrently) and every
  call is answered, in call order, by a ``tool`` message carrying its id (``is_error`` when it
  failed or was invalid);
- **JSON in text**: the system prompt lists the tools (``render_tool_prompt``) and asks for either
  a plain-text final answer or exactly one JSON object ``{"name": ..., "args": {...}}``; a reply
  that starts with ``{`` (optionally in a ```` ``` ```` fence) is a call, also from a native client.

Then:

- **plain text** is the final answer. Tools whose results were used are cited as
  ``[source:<tool>]`` (appended when the model did not cite them itself);
- a clarification request (name ``"None"``) ends the loop with its question. A call that is not
  valid JSON, does not match the ``ToolAction`` schema, names an unknown tool or has invalid
  arguments gets **exactly one correction** naming the error (a user message, or for a native call
  its own error result); if the next reply is invalid too, the loop stops
  (``stop_reason="invalid_output"``);
- a valid call's result is summarised into the history as ``Tool N [name]: summary``;
- **the breaker**: when the same call (same tool, same arguments) has failed ``breaker_threshold``
  times (2), the loop stops (``stop_reason="breaker"``) instead of burning steps on it;
- the :class:`~dispatchguard.agent.cancellable.CancelToken` is checked before and after every tool, and
  a model call in flight is aborted when it is cancelled (``stop_reason="cancelled"``);
- after ``max_steps`` model calls without a final answer the loop stops
  (``stop_reason="max_steps"``) and the response lists what the tools returned.

The loop never raises for model or tool failures: a model client that raises ends the loop with
``stop_reason="llm_error"``. :class:`LoopResult` carries ``response``, ``tools_used``, ``steps``,
``stop_reason``, the ``history`` lines and a :class:`StepTrace` per step.
"""

from __future__ import annotations

import asyncio
import json
import logging
import string
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from dispatchguard.agent.cancellable import CancelToken, RunCancelled, until_cancelled
from dispatchguard.agent.execute import execute_tool, execute_tools
from dispatchguard.agent.llm import LLMError, ModelReply, ToolCall, acomplete, uses_native_tools
from dispatchguard.agent.summarize import summarize_tool_result

if TYPE_CHECKING:
    from dispatchguard.runtime.validation import ValidationResult

__all__ = ["NATIVE_INSTRUCTIONS", "SYSTEM_INSTRUCTIONS", "LoopResult", "StepTrace", "arun_tool_loop", "run_tool_loop"]

log = logging.getLogger(__name__)

SYSTEM_INSTRUCTIONS = """\
Answer the user's message. At each step reply with either the final answer, in plain text, or one
tool call as described below, and nothing else. Tool results come back as lines
"Tool N [name]: summary". When your answer uses a tool's result, cite it as [source:<tool name>]."""

NATIVE_INSTRUCTIONS = """\
Answer the user's message. Call the provided tools when you need them (several in one turn when they
do not depend on each other), then reply with the final answer in plain text. When your answer uses
a tool's result, cite it as [source:<tool name>]."""

LAST_STEP_NOTICE = "This is the last step: reply with the final answer in plain text, no tool call."


@dataclass
class StepTrace:
    """What happened in one step (one model call)."""

    step: int
    prompt_chars: int
    outcome: str  # answer | clarification | tool | tool_error | invalid | cancelled | llm_error
    tool: str | None = None
    duration: float = 0.0  # seconds, model call and tool together
    llm_duration: float = 0.0
    tool_duration: float = 0.0
    detail: str | None = None


@dataclass
class LoopResult:
    """The outcome of :func:`run_tool_loop`."""

    response: str
    tools_used: list[str]
    steps: int
    stop_reason: str  # answer | clarification | max_steps | invalid_output | breaker | cancelled | llm_error
    trace: list[StepTrace] = field(default_factory=list)
    history: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A deep copy as plain dicts and lists (trace steps included), ready for ``json.dumps``."""
        return asdict(self)


def _is_call(reply: str) -> bool:
    """Whether ``reply`` is a tool call attempt (a JSON object, possibly fenced), not an answer."""
    text = reply.strip()
    if text.startswith("```"):
        text = text[3:].lstrip(string.ascii_letters).lstrip()
    return text.startswith("{")


def _error_kind(result: str) -> str | None:
    try:
        value = json.loads(result)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        return None
    if isinstance(value, dict) and "error" in value and "kind" in value:
        return str(value["kind"])
    return None


def _cite(text: str, sources: Sequence[str]) -> str:
    missing = [f"[source:{name}]" for name in sources if f"[source:{name}]" not in text]
    return f"{text}\n\nSources: {' '.join(missing)}" if missing else text


def _correction(error: str) -> str:
    return (
        f"Your last reply could not be used: {error}\n"
        "Reply again with either the final answer in plain text, or exactly one JSON object "
        '{"name": "<tool name>", "args": {...}} calling one of the listed tools.'
    )


def _native_check(call: ToolCall, registry: Any) -> ValidationResult:
    """Validate a native call like a JSON-in-text one; its arguments are JSON text or an object."""
    from dispatchguard.runtime.validation import ValidationResult, validate_tool_call

    arguments = call.arguments
    if arguments is None or arguments == "":  # a call without arguments
        arguments = {}
    elif isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as exc:  # a RecursionError escaped as a 500 from /chat
            reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
            return ValidationResult(valid=False, tool_name=call.name or None, kind="invalid_json",
                                    error=f"the arguments of {call.name!r} are not valid JSON: {reason}")
    return validate_tool_call({"name": call.name, "args": arguments}, registry)


@dataclass(frozen=True)
class _LoopSettings:
    """How one run is bounded and fed (the keyword arguments of :func:`arun_tool_loop`)."""

    max_steps: int
    cancel: CancelToken | None
    tool_timeout: float | None
    breaker_threshold: int
    summary_limit: int
    tool_context: Mapping[str, Any] | None


class _AgentRun:
    """The state of one loop run."""

    def __init__(self, llm: Any, message: str, registry: Any, context: Any, settings: _LoopSettings) -> None:
        from dispatchguard.runtime.prompt import render_tool_prompt

        self.llm = llm
        self.native = uses_native_tools(llm)
        self.registry = registry
        self.tool_context = settings.tool_context
        self.max_steps = settings.max_steps
        self.cancel = settings.cancel
        self.tool_timeout = settings.tool_timeout
        self.breaker_threshold = settings.breaker_threshold
        self.summary_limit = settings.summary_limit
        # A native model gets the tools as the provider's tool list, not as prompt text.
        system = NATIVE_INSTRUCTIONS if self.native else \
            f"{SYSTEM_INSTRUCTIONS}\n\n{render_tool_prompt(registry)}"
        prior: list[Mapping[str, Any]] = []
        if isinstance(context, str) and context.strip():
            system += f"\n\nContext:\n{context.strip()}"
        elif context and not isinstance(context, str):
            prior = [dict(m) for m in context]
        self.messages: list[Mapping[str, Any]] = [
            {"role": "system", "content": system}, *prior, {"role": "user", "content": message}
        ]
        self.trace: list[StepTrace] = []
        self.history: list[str] = []
        self.tools_used: list[str] = []
        self.sources: list[str] = []
        self.failures: dict[tuple[str, str], int] = {}

    def result(self, response: str, stop_reason: str) -> LoopResult:
        return LoopResult(response, self.tools_used, len(self.trace), stop_reason, self.trace,
                          self.history)

    def cancelled(self) -> LoopResult | None:
        if self.cancel is not None and self.cancel.cancelled:
            return self.result(f"Cancelled: {self.cancel.reason}", "cancelled")
        return None

    async def ask(self, messages: list[Mapping[str, Any]]) -> ModelReply:
        from dispatchguard.runtime.tracing import chat_span

        with chat_span(self.llm) as span:
            if self.native:
                reply = await until_cancelled(self.llm.achat(messages, self.registry), self.cancel)
                if not isinstance(reply, ModelReply):
                    raise LLMError(f"achat() returned {type(reply).__name__}, expected ModelReply")
            else:
                reply = ModelReply(await until_cancelled(acomplete(self.llm, messages), self.cancel))
            span.reply(reply)
        return reply

    async def run(self) -> LoopResult:
        pending_error: str | None = None
        for step in range(1, self.max_steps + 1):
            stopped = self.cancelled()
            if stopped:
                return stopped
            messages = list(self.messages)
            if step == self.max_steps:
                messages.append({"role": "user", "content": LAST_STEP_NOTICE})
            trace = StepTrace(step, sum(len(m.get("content") or "") for m in messages), "answer")
            self.trace.append(trace)
            started = time.perf_counter()
            try:
                reply = await self.ask(messages)
            except RunCancelled as cancelled:
                trace.outcome = "cancelled"
                trace.duration = trace.llm_duration = time.perf_counter() - started
                return self.result(f"Cancelled: {cancelled.reason}", "cancelled")
            except Exception as exc:  # any client failure ends the run, clearly
                reason = str(exc) or type(exc).__name__
                log.warning("model call failed at step %d: %s", step, reason)
                trace.outcome, trace.detail = "llm_error", reason
                trace.duration = trace.llm_duration = time.perf_counter() - started
                return self.result(f"Stopped: the model could not be asked ({reason}).", "llm_error")
            trace.llm_duration = time.perf_counter() - started
            try:
                stopped = self.cancelled()
                if stopped:
                    trace.outcome = "cancelled"
                    return stopped
                if reply.tool_calls:
                    outcome = await self.native_step(reply, trace)
                elif _is_call(reply.text):
                    outcome = await self.text_step(reply.text, trace)
                elif not (reply.text or "").strip():
                    outcome = self.empty_step(trace)
                else:
                    return self.result(_cite(reply.text.strip(), self.sources), "answer")
            finally:
                trace.duration = time.perf_counter() - started
            if isinstance(outcome, LoopResult):
                return outcome
            if outcome is not None and pending_error is not None:  # one correction, then stop
                return self.result(
                    "Stopped: the model's reply was not a usable answer or tool call twice in "
                    f"a row. Last error: {outcome}",
                    "invalid_output",
                )
            pending_error = outcome
        response = f"I could not finish within {self.max_steps} steps."
        if self.history:
            response += "\n\nWhat the tools returned:\n" + "\n".join(self.history)
        return self.result(_cite(response, self.sources), "max_steps")

    def empty_step(self, trace: StepTrace) -> str:
        """A reply with no text and no tool call is no answer: corrected once, like an invalid call
        (twice in a row stops with ``invalid_output``)."""
        error = "the reply was empty: neither an answer nor a tool call"
        trace.outcome, trace.detail = "invalid", error
        self.messages += [{"role": "assistant", "content": ""}, {"role": "user", "content": _correction(error)}]
        return error

    async def text_step(self, reply: str, trace: StepTrace) -> LoopResult | str | None:
        """Validate and run one JSON-in-text call: a final result, an error to correct, or ``None``."""
        from dispatchguard.runtime.validation import validate_tool_call

        check = validate_tool_call(reply, self.registry)  # JSON, shape, tool, arguments
        trace.tool = check.tool_name
        if check.kind == "clarification":
            trace.outcome, trace.tool = "clarification", None
            return self.result(check.question or "", "clarification")
        if not check.valid:
            trace.outcome, trace.detail = "invalid", check.error
            self.messages += [{"role": "assistant", "content": reply},
                              {"role": "user", "content": _correction(str(check.error))}]
            return str(check.error)

        name = check.tool_name
        started = time.perf_counter()
        call = {"name": name, "args": check.args}
        result = await execute_tool(call, registry=self.registry, timeout=self.tool_timeout,
                                    cancel=self.cancel, context=self.tool_context)
        trace.tool_duration = time.perf_counter() - started
        stopped = self.cancelled()
        if stopped:  # the result (if the tool ran) is dropped
            trace.outcome, trace.detail = "cancelled", result
            return stopped
        summary, failed = self.record(name, result)
        self.messages += [
            {"role": "assistant", "content": json.dumps(call, ensure_ascii=False)},
            {"role": "user", "content": self.history[-1]},
        ]
        trace.outcome = "tool_error" if failed else "tool"
        if failed:
            trace.detail = summary
            return self.breaker(name, check.args, summary)
        return None

    async def native_step(self, reply: ModelReply, trace: StepTrace) -> LoopResult | str | None:
        """Validate a turn's native calls, run the valid ones (parallel-safe ones concurrently) and
        answer every call, in call order, with a tool message carrying its id."""
        checks = [_native_check(call, self.registry) for call in reply.tool_calls]
        for check in checks:
            if check.kind == "clarification":
                trace.outcome = "clarification"
                return self.result(check.question or "", "clarification")
        valid = [check for check in checks if check.valid]
        trace.tool = ",".join(str(check.tool_name) for check in valid) or None
        started = time.perf_counter()
        results = iter(await execute_tools(
            [{"name": check.tool_name, "args": check.args} for check in valid],
            registry=self.registry, timeout=self.tool_timeout, cancel=self.cancel, context=self.tool_context,
            call_ids=[call.id for call, check in zip(reply.tool_calls, checks, strict=True) if check.valid],
        ))
        trace.tool_duration = time.perf_counter() - started
        stopped = self.cancelled()
        if stopped:  # the results (of tools that ran) are dropped
            trace.outcome = "cancelled"
            return stopped
        self.messages.append({"role": "assistant", "content": reply.text,
                              "tool_calls": list(reply.tool_calls)})
        errors: list[str] = []
        tripped: LoopResult | None = None
        trace.outcome = "tool"
        for call, check in zip(reply.tool_calls, checks, strict=True):
            if not check.valid:
                errors.append(str(check.error))
                content = f"Invalid call, not run: {check.error}"
                self.messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                                      "content": content, "is_error": True})
                continue
            name = str(check.tool_name)
            summary, failed = self.record(name, next(results))
            self.messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                                  "content": summary, "is_error": failed})
            if failed:
                trace.outcome, trace.detail = "tool_error", summary
                tripped = tripped or self.breaker(name, check.args, summary)
        if tripped is not None:
            return tripped
        if errors:
            trace.outcome, trace.detail = "invalid", "; ".join(errors)
            return trace.detail
        return None

    def record(self, name: str, result: str) -> tuple[str, bool]:
        """Add a tool result to the history: its summary, and whether it is an error object."""
        failed = _error_kind(result) is not None
        if name not in self.tools_used:
            self.tools_used.append(name)
        if not failed and name not in self.sources:
            self.sources.append(name)
        summary = summarize_tool_result(name, result, limit=self.summary_limit)
        self.history.append(f"Tool {len(self.history) + 1} [{name}]: {summary}")
        return summary, failed

    def breaker(self, name: str, args: Mapping[str, Any], summary: str) -> LoopResult | None:
        """Count a failed call; the result that stops the run once the same call failed too often."""
        key = (name, json.dumps(args, sort_keys=True))
        self.failures[key] = self.failures.get(key, 0) + 1
        if self.failures[key] >= self.breaker_threshold:
            return self.result(
                f"Stopped: the same call to {name} failed {self.failures[key]} times. "
                f"Last error: {summary}",
                "breaker",
            )
        return None


async def arun_tool_loop(
    llm: Any,
    message: str,
    *,
    registry: Any = None,
    max_steps: int = 5,
    context: str | Sequence[Mapping[str, str]] | None = None,
    cancel: CancelToken | None = None,
    tool_timeout: float | None = 12.0,
    breaker_threshold: int = 2,
    summary_limit: int = 900,
    tool_context: Mapping[str, Any] | None = None,
) -> LoopResult:
    """Run the loop (see the module docstring) from async code.

    ``context`` is extra text for the system prompt (retrieved documents, user profile) or a list
    of earlier ``{"role", "content"}`` messages placed before ``message``. ``tool_context`` holds
    the values of the tools' injected arguments (``InjectedArg``, LangChain's ``InjectedToolArg``):
    the model never sees nor sets them (see ``dispatch_tool(..., context=...)``).
    """
    if max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, got {max_steps}")
    if breaker_threshold < 1:
        raise ValueError(f"breaker_threshold must be at least 1, got {breaker_threshold}")
    from dispatchguard.runtime.registry import TOOL_REGISTRY
    from dispatchguard.runtime.tracing import agent_span

    registry = TOOL_REGISTRY if registry is None else registry
    settings = _LoopSettings(max_steps, cancel, tool_timeout, breaker_threshold, summary_limit, tool_context)
    with agent_span(llm) as span:
        result = await _AgentRun(llm, message, registry, context, settings).run()
        span.result(result)
    return result


def run_tool_loop(
    llm: Any,
    message: str,
    *,
    registry: Any = None,
    max_steps: int = 5,
    context: str | Sequence[Mapping[str, str]] | None = None,
    cancel: CancelToken | None = None,
    tool_timeout: float | None = 12.0,
    breaker_threshold: int = 2,
    summary_limit: int = 900,
    tool_context: Mapping[str, Any] | None = None,
) -> LoopResult:
    """Run the loop from sync code (it starts an event loop); in async code use
    :func:`arun_tool_loop`."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("run_tool_loop() was called inside a running event loop; "
                           "use 'await arun_tool_loop(...)' there")
    return asyncio.run(
        arun_tool_loop(llm, message, registry=registry, max_steps=max_steps, context=context,
                       cancel=cancel, tool_timeout=tool_timeout,
                       breaker_threshold=breaker_threshold, summary_limit=summary_limit,
                       tool_context=tool_context)
    )
