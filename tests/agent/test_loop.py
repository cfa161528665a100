"""run_tool_loop against a real OpenAI-compatible model server on 127.0.0.1 (scripted per test)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Annotated

import pytest

from dispatchguard import InjectedArg, ToolRegistry
from dispatchguard.agent import CancelToken, arun_tool_loop, run_tool_loop
from dispatchguard.agent.loop import LAST_STEP_NOTICE
from dispatchguard.agent.testing import ScriptedReply


def tool_call(name, **args):
    return json.dumps({"name": name, "args": args})


def last_message(body):
    return body["messages"][-1]["content"]


def test_final_answer_at_step_1(llm, llm_server, registry):
    llm_server.set_script(["Paris is the capital of France."])
    result = run_tool_loop(llm, "Capital of France?", registry=registry)
    assert result.response == "Paris is the capital of France."
    assert (result.steps, result.tools_used, result.stop_reason) == (1, [], "answer")
    (body,) = llm_server.requests
    system, user = body["messages"]
    assert system["role"] == "system" and "add" in system["content"] and "search" in system["content"]
    assert user == {"role": "user", "content": "Capital of France?"}
    (step,) = result.trace
    assert step.outcome == "answer" and step.tool is None
    assert step.prompt_chars == len(system["content"]) + len(user["content"])
    assert result.to_dict()["trace"][0]["outcome"] == "answer"


def test_tool_call_then_answer(llm, llm_server, registry, calls):
    llm_server.set_script([tool_call("add", a=2, b=3), "2 + 3 = 5."])
    result = run_tool_loop(llm, "What is 2 + 3?", registry=registry)
    assert result.response == "2 + 3 = 5.\n\nSources: [source:add]"
    assert (result.steps, result.tools_used, result.stop_reason) == (2, ["add"], "answer")
    assert result.history == ["Tool 1 [add]: 5"]
    assert calls.log == [("add", (2, 3))]
    second = llm_server.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": '{"name": "add", "args": {"a": 2, "b": 3}}'}
    assert second[-1] == {"role": "user", "content": "Tool 1 [add]: 5"}
    first, last = result.trace
    assert (first.outcome, first.tool) == ("tool", "add")
    assert first.tool_duration >= 0 and first.duration >= first.llm_duration
    assert last.prompt_chars > first.prompt_chars


def test_answer_that_cites_its_sources_is_left_alone(llm, llm_server, registry):
    llm_server.set_script(
        ["```json\n" + tool_call("search", query="solar") + "\n```", "Solar [source:search]."]
    )
    result = run_tool_loop(llm, "solar panels", registry=registry)
    assert result.response == "Solar [source:search]."
    assert result.history[0].startswith("Tool 1 [search]: ")
    assert "(+2 more)" in result.history[0]  # top 3 of 5 results


def test_invalid_json_is_corrected_once(llm, llm_server, registry):
    llm_server.set_script(['{"name": "add", "args": {"a": 2,', tool_call("add", a=2, b=3), "5."])
    result = run_tool_loop(llm, "2 + 3?", registry=registry)
    assert result.stop_reason == "answer" and result.steps == 3 and result.tools_used == ["add"]
    correction = llm_server.requests[1]["messages"]
    assert correction[-2] == {"role": "assistant", "content": '{"name": "add", "args": {"a": 2,'}
    assert "could not be used: invalid JSON" in correction[-1]["content"]
    assert [step.outcome for step in result.trace] == ["invalid", "tool", "answer"]


def test_invalid_twice_then_stop(llm, llm_server, registry, calls):
    llm_server.set_script(["{oops", tool_call("add", a="2", b=3), "never asked"])
    result = run_tool_loop(llm, "2 + 3?", registry=registry)
    assert result.stop_reason == "invalid_output" and result.steps == 2
    assert "twice in a row" in result.response and "'a'" in result.response
    assert len(llm_server.requests) == 2 and llm_server.remaining == 1
    assert calls.log == []


def test_correction_budget_is_per_invalid_reply(llm, llm_server, registry):
    llm_server.set_script(
        ["{bad", tool_call("add", a=1, b=1), '{"name": "add"}', tool_call("add", a=2, b=2), "done"]
    )
    result = run_tool_loop(llm, "go", registry=registry, max_steps=5)
    assert result.stop_reason == "answer" and result.history == ["Tool 1 [add]: 2", "Tool 2 [add]: 4"]


def test_unknown_tool_gets_a_correction_naming_it(llm, llm_server, registry):
    llm_server.set_script([tool_call("weather", city="Oslo"), "I cannot check the weather."])
    result = run_tool_loop(llm, "Weather in Oslo?", registry=registry)
    assert result.response == "I cannot check the weather."
    assert result.tools_used == [] and result.stop_reason == "answer"
    assert "weather" in last_message(llm_server.requests[1])
    assert result.trace[0].outcome == "invalid" and result.trace[0].tool == "weather"


@pytest.mark.parametrize("tool", ["slow_sync", "slow_async"])
def test_tool_timeout_is_reported_to_the_model(llm, llm_server, registry, tool):
    llm_server.set_script([tool_call(tool, seconds=1.0), "The tool was too slow."])
    started = time.perf_counter()
    result = run_tool_loop(llm, "go", registry=registry, tool_timeout=0.2)
    assert time.perf_counter() - started < 0.9
    assert result.response == "The tool was too slow."  # a failed tool is not a source
    assert result.tools_used == [tool]
    assert result.history == [f"Tool 1 [{tool}]: {tool} failed: tool '{tool}' timed out after 0.2s"]
    assert result.trace[0].outcome == "tool_error"


def test_cancellation_mid_run_while_a_tool_runs(llm, llm_server, registry, calls):
    # the cancel comes when the tool has started (an event, not a timer); the tool runs until the
    # test opens its gate, so only the cancel can end the loop
    llm_server.set_script([tool_call("gated_sync", label="x"), "never asked"])
    token = CancelToken()
    canceller = threading.Thread(target=lambda: (calls.wait_for("gated_sync"), token.cancel("user pressed stop")))
    canceller.start()
    try:
        result = run_tool_loop(llm, "go", registry=registry, cancel=token)
    finally:
        calls.gate.set()
        canceller.join()
    assert result.stop_reason == "cancelled"
    assert result.response == "Cancelled: user pressed stop"
    assert len(llm_server.requests) == 1 and calls.names() == ["gated_sync"]
    assert result.trace[0].outcome == "cancelled" and result.history == []


def test_cancellation_during_the_model_call_skips_the_tool(llm, llm_server, registry, calls):
    token = CancelToken()

    def cancel_then_call(body):
        token.cancel()
        return tool_call("add", a=1, b=2)

    llm_server.set_script([cancel_then_call])
    result = run_tool_loop(llm, "go", registry=registry, cancel=token)
    assert result.stop_reason == "cancelled" and result.steps == 1 and calls.log == []


def test_cancelled_before_start_asks_nothing(llm, llm_server, registry):
    token = CancelToken()
    token.cancel()
    result = run_tool_loop(llm, "go", registry=registry, cancel=token)
    assert (result.stop_reason, result.steps, llm_server.requests) == ("cancelled", 0, [])


def test_max_steps_reached(llm, llm_server, registry):
    llm_server.set_script([], default=lambda body: tool_call("add", a=len(body["messages"]), b=0))
    result = run_tool_loop(llm, "loop forever", registry=registry, max_steps=3)
    assert result.stop_reason == "max_steps" and result.steps == 3
    assert len(llm_server.requests) == 3
    assert result.response.startswith("I could not finish within 3 steps.")
    assert "Tool 1 [add]: 2" in result.response and "Tool 3 [add]: 7" in result.response
    assert result.response.endswith("Sources: [source:add]")
    assert last_message(llm_server.requests[2]) == LAST_STEP_NOTICE
    assert LAST_STEP_NOTICE not in json.dumps(llm_server.requests[1])


def test_max_steps_without_any_tool_result(llm, llm_server, registry):
    llm_server.set_script(["{bad"])
    result = run_tool_loop(llm, "go", registry=registry, max_steps=1)
    assert result.stop_reason == "max_steps"
    assert result.response == "I could not finish within 1 steps."


def test_breaker_stops_the_same_failing_call(llm, llm_server, registry, calls):
    llm_server.set_script([], default=tool_call("fail", reason="disk full"))
    result = run_tool_loop(llm, "go", registry=registry, max_steps=5)
    assert result.stop_reason == "breaker" and result.steps == 2
    assert calls.names() == ["fail", "fail"]
    assert "the same call to fail failed 2 times" in result.response
    assert "disk full" in result.response


def test_different_failing_calls_do_not_trip_the_breaker(llm, llm_server, registry):
    llm_server.set_script(
        [tool_call("fail", reason="a"), tool_call("fail", reason="b"), "Both failed."]
    )
    result = run_tool_loop(llm, "go", registry=registry)
    assert result.stop_reason == "answer" and result.response == "Both failed."
    assert [line.split(":")[0] for line in result.history] == ["Tool 1 [fail]", "Tool 2 [fail]"]


def test_breaker_threshold_one_stops_at_the_first_failure(llm, llm_server, registry):
    llm_server.set_script([tool_call("fail", reason="x")])
    result = run_tool_loop(llm, "go", registry=registry, breaker_threshold=1)
    assert result.stop_reason == "breaker" and result.steps == 1


def test_clarification_is_returned_as_the_question(llm, llm_server, registry, calls):
    llm_server.set_script([tool_call("None", clarification_needed="Which city do you mean?")])
    result = run_tool_loop(llm, "Weather?", registry=registry)
    assert (result.response, result.stop_reason) == ("Which city do you mean?", "clarification")
    assert result.trace[0].outcome == "clarification" and calls.log == []


def test_model_errors_end_the_loop_with_a_clear_result(llm, llm_server, registry):
    llm_server.set_script([ScriptedReply(status=400, body='{"error": {"message": "context too long"}}')])
    result = run_tool_loop(llm, "go", registry=registry)
    assert result.stop_reason == "llm_error" and result.steps == 1
    assert result.response.startswith("Stopped: the model could not be asked")
    assert "400" in result.response and result.trace[0].outcome == "llm_error"


def test_context_text_goes_to_the_system_prompt(llm, llm_server, registry):
    llm_server.set_script(["ok"])
    run_tool_loop(llm, "go", registry=registry, context="  The user lives in Oslo.  ")
    assert llm_server.requests[0]["messages"][0]["content"].endswith("Context:\nThe user lives in Oslo.")


def test_context_messages_come_before_the_message(llm, llm_server, registry):
    llm_server.set_script(["ok"])
    earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    run_tool_loop(llm, "go", registry=registry, context=earlier)
    assert llm_server.requests[0]["messages"][1:] == [*earlier, {"role": "user", "content": "go"}]


def test_any_callable_is_a_model(registry):
    replies = iter([tool_call("add", a=1, b=2), "3"])
    seen = []

    def model(messages):
        seen.append(messages)
        return next(replies)

    result = run_tool_loop(model, "1 + 2", registry=registry)
    assert result.response == "3\n\nSources: [source:add]" and len(seen) == 2


def test_async_entry_point_and_argument_checks(llm, llm_server, registry):
    llm_server.set_script(["ok"])

    async def main():
        with pytest.raises(RuntimeError, match="arun_tool_loop"):
            run_tool_loop(llm, "go", registry=registry)
        return await arun_tool_loop(llm, "go", registry=registry)

    assert asyncio.run(main()).response == "ok"
    with pytest.raises(ValueError, match="max_steps"):
        run_tool_loop(llm, "go", registry=registry, max_steps=0)
    with pytest.raises(ValueError, match="breaker_threshold"):
        run_tool_loop(llm, "go", registry=registry, breaker_threshold=0)


def test_default_registry_is_the_process_wide_one(llm, llm_server):
    from dispatchguard import TOOL_REGISTRY, render_tool_prompt

    llm_server.set_script(["ok"])
    run_tool_loop(llm, "go")
    assert render_tool_prompt(TOOL_REGISTRY) in llm_server.requests[0]["messages"][0]["content"]


def test_only_error_objects_count_as_failures(llm, llm_server):
    """A result with an "error" field that is data, or text that is no JSON object, is no failure:
    the breaker does not count it and the tool is cited as a source; an error object is."""
    reg = ToolRegistry()
    error_object = '{"error": "x", "kind": "timeout", "tool": "t"}'
    results = iter(['{"error": 0.5, "unit": "mm"}', "not json", "[1]", error_object])

    @reg.tool
    def measure() -> str:
        """Measure."""
        return next(results)

    llm_server.set_script([], default=tool_call("measure"))
    result = run_tool_loop(llm, "go", registry=reg, max_steps=4, breaker_threshold=1)
    assert result.stop_reason == "breaker" and result.steps == 4  # only the 4th result failed
    assert "the same call to measure failed 1 times" in result.response


@pytest.mark.integration
def test_sync_loop_closes_the_http_connections_of_its_event_loop():
    """run_tool_loop owns its event loop: the shared async client made for that loop is closed
    before the loop ends, so repeated sync calls leak no sockets (ResourceWarning)."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import gc, warnings
        warnings.simplefilter("always", ResourceWarning)
        from dispatchguard.agent import OpenAICompatibleLLM, run_tool_loop
        from dispatchguard.agent.testing import ScriptedLLMServer
        from dispatchguard.runtime.registry import ToolRegistry

        with ScriptedLLMServer(default="All done.") as server:
            llm = OpenAICompatibleLLM(base_url=server.base_url, model="scripted")
            for _ in range(3):
                assert run_tool_loop(llm, "hi", registry=ToolRegistry()).response == "All done."
            gc.collect()
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert "unclosed" not in done.stderr, done.stderr


def test_tool_context_supplies_injected_arguments_the_model_never_sets(llm, llm_server):
    registry = ToolRegistry()

    @registry.tool
    def whoami(greeting: str, user: Annotated[str, InjectedArg("user_id")]) -> str:
        """Greet the signed-in user."""
        return f"{greeting}, {user}"

    assert set(registry.spec("whoami").schema["properties"]) == {"greeting"}  # hidden from the model
    # the model tries to choose the user: the value it sends is ignored, the caller's is used
    llm_server.set_script([tool_call("whoami", greeting="hi", user="admin"), "Done."])
    result = run_tool_loop(llm, "Who am I?", registry=registry, tool_context={"user_id": "u42"})
    assert result.history == ['Tool 1 [whoami]: hi, u42']
    llm_server.set_script([tool_call("whoami", greeting="hi"), "Done."])
    result = run_tool_loop(llm, "Who am I?", registry=registry)  # no value: a clear error, no call
    assert "supplied by the caller" in result.history[0]
