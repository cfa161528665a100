"""The spans and the duration histogram of ``dispatchguard.instrument()``, read back from the
OpenTelemetry SDK's in-memory exporter: names, attributes, parents, errors."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from dispatchguard import ToolRegistry, adispatch_tool, dispatch_tool, dispatch_tool_result


def registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @reg.tool()
    def fail(reason: str) -> str:
        """Always fails."""
        raise RuntimeError(reason)

    @reg.tool()
    async def echo(text: str) -> str:
        """Echo, asynchronously."""
        await asyncio.sleep(0)
        return json.dumps({"echo": text})

    return reg


def test_a_dispatch_is_an_execute_tool_span(traced):
    assert dispatch_tool({"name": "add", "args": {"a": 1, "b": 2}}, registry=registry()) == "3"
    span = traced.one("execute_tool add")
    assert span.kind.name == "INTERNAL"
    assert span.status.status_code.name == "UNSET"
    assert dict(span.attributes) == {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add"}


def test_a_failing_tool_marks_its_span_with_the_error_kind(traced):
    text = dispatch_tool({"name": "fail", "args": {"reason": "boom"}}, registry=registry())
    assert json.loads(text)["kind"] == "tool_error"
    span = traced.one("execute_tool fail")
    assert span.attributes["error.type"] == "tool_error"
    assert span.status.status_code.name == "ERROR"
    assert "boom" in span.status.description


def test_a_rejected_call_is_a_span_with_its_kind(traced):
    reg = registry()
    dispatch_tool({"name": "nope", "args": {}}, registry=reg)
    dispatch_tool({"name": "add", "args": {"a": "x", "b": 2}}, registry=reg)
    dispatch_tool("{not json", registry=reg)
    assert traced.one("execute_tool nope").attributes["error.type"] == "unknown_tool"
    assert traced.one("execute_tool add").attributes["error.type"] == "invalid_args"
    assert traced.one("execute_tool").attributes["error.type"] == "invalid_json"


def test_the_callers_tool_call_id_is_on_the_span(traced):
    dispatch_tool({"name": "add", "args": {"a": 1, "b": 2}}, registry=registry(),
                  context={"tool_call_id": "call_42"})
    assert traced.one("execute_tool add").attributes["gen_ai.tool.call.id"] == "call_42"


def test_content_is_recorded_only_when_asked_and_cut_to_the_limit(traced, _providers):
    import dispatchguard

    reg = registry()
    dispatch_tool({"name": "echo", "args": {"text": "secret"}}, registry=reg)
    assert "gen_ai.tool.call.arguments" not in traced.one("execute_tool echo").attributes
    traced.exporter.clear()
    dispatchguard.instrument(capture_content=True, max_content_chars=12, tracer_provider=_providers[2],
                             meter_provider=_providers[3])
    dispatch_tool({"name": "echo", "args": {"text": "x" * 100}}, registry=reg)
    attributes = traced.one("execute_tool echo").attributes
    assert attributes["gen_ai.tool.call.arguments"] == '{"text": "xx'
    assert attributes["gen_ai.tool.call.result"] == '{"echo": "xx'


def test_adispatch_tool_and_the_result_twin_are_spans_too(traced):
    reg = registry()
    assert json.loads(asyncio.run(adispatch_tool({"name": "echo", "args": {"text": "hi"}}, registry=reg))) == \
        {"echo": "hi"}
    result = dispatch_tool_result({"name": "add", "args": {"a": 2, "b": 2}}, registry=reg)
    assert result.ok
    assert traced.one("execute_tool echo").attributes["gen_ai.tool.name"] == "echo"
    assert traced.one("execute_tool add").attributes["gen_ai.tool.name"] == "add"


def test_a_dispatch_inside_a_span_is_its_child(traced, tracer):
    with tracer.start_as_current_span("caller") as parent:
        dispatch_tool({"name": "add", "args": {"a": 1, "b": 2}}, registry=registry())
    span = traced.one("execute_tool add")
    assert span.parent.span_id == parent.get_span_context().span_id


def test_the_duration_histogram_counts_per_tool_and_error(traced):
    reg = ToolRegistry()

    @reg.tool()
    def histogram_probe(fail: bool) -> str:
        """Fails on demand."""
        if fail:
            raise ValueError("asked to")
        return "ok"

    for fail in (False, False, True):
        dispatch_tool({"name": "histogram_probe", "args": {"fail": fail}}, registry=reg)
    dispatch_tool({"name": "no_such_tool_in_the_histogram", "args": {}}, registry=reg)
    counts = traced.durations()
    assert counts[("histogram_probe", None)] == 2
    assert counts[("histogram_probe", "tool_error")] == 1
    # a name the registry does not know is not a metric attribute value
    assert not any(name == "no_such_tool_in_the_histogram" for name, _ in counts)
    assert counts[("_OTHER", "unknown_tool")] >= 1


def test_off_again_after_uninstrument(traced):
    import dispatchguard

    dispatchguard.uninstrument()
    dispatch_tool({"name": "add", "args": {"a": 1, "b": 2}}, registry=registry())
    assert traced.spans() == []


def test_bad_settings_are_refused(traced):
    import dispatchguard

    with pytest.raises(ValueError, match="max_content_chars must be a positive int"):
        dispatchguard.instrument(max_content_chars=0)


@pytest.mark.integration
def test_without_instrument_opentelemetry_is_never_imported():
    code = ("import sys, dispatchguard\n"
            "from dispatchguard import ToolRegistry, dispatch_tool\n"
            "reg = ToolRegistry()\n"
            "reg.register('add', lambda a, b: a + b)\n"
            "assert dispatch_tool({'name': 'add', 'args': {'a': 1, 'b': 2}}, registry=reg) == '3'\n"
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.integration
def test_instrument_without_the_package_names_the_extra():
    code = ("import sys\n"
            "sys.modules['opentelemetry'] = None\n"
            "import dispatchguard\n"
            "try:\n"
            "    dispatchguard.instrument()\n"
            "except ImportError as exc:\n"
            "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'dispatchguard[otel]'" in out.stdout


def test_captured_arguments_of_every_payload_form(traced, _providers):
    import dispatchguard
    from dispatchguard import ToolAction

    dispatchguard.instrument(capture_content=True, tracer_provider=_providers[2], meter_provider=_providers[3])
    assert dispatchguard.runtime.tracing.is_instrumented()
    reg = registry()
    text = '{"name": "add", "args": {"a": 1, "b": 2}}'
    dispatch_tool(text, registry=reg)
    dispatch_tool(ToolAction(name="add", args={"a": 2, "b": 2}), registry=reg)
    dispatch_tool({"name": "add"}, registry=reg)  # no args at all: nothing to capture
    arguments = [span.attributes.get("gen_ai.tool.call.arguments") for span in traced.spans()]
    assert arguments == [text, '{"a": 2, "b": 2}', None]


def test_a_cancelled_dispatch_ends_its_span_failed_and_the_context_restored(traced, tracer):
    from opentelemetry import trace

    reg = ToolRegistry()
    events: dict = {}

    @reg.tool()
    async def wait() -> str:
        """Waits until cancelled."""
        events["started"].set()
        await asyncio.Event().wait()
        return "never"

    async def main() -> None:
        events["started"] = asyncio.Event()
        task = asyncio.create_task(adispatch_tool({"name": "wait", "args": {}}, registry=reg))
        await events["started"].wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with tracer.start_as_current_span("caller") as caller:
        asyncio.run(main())
        assert trace.get_current_span() is caller
    span = traced.one("execute_tool wait")
    assert span.attributes["error.type"] == "CancelledError"
    assert span.status.status_code.name == "ERROR"
    assert span.parent.span_id == caller.get_span_context().span_id


def test_a_hostile_action_or_context_does_not_break_the_never_raises_contract(traced, _providers):
    import dispatchguard

    class Hostile(dict):
        def get(self, *args):
            raise RuntimeError("no")

    dispatchguard.instrument(capture_content=True, tracer_provider=_providers[2], meter_provider=_providers[3])
    reg = registry()
    text = dispatch_tool(Hostile(name="add", args={"a": 1, "b": 2}), registry=reg, context=Hostile())
    assert isinstance(text, str)
    assert len(traced.spans()) == 1
