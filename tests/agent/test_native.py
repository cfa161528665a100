"""Native tool calling (OpenAI ``tool_calls``, Anthropic ``tool_use``) through the loop, against the
scripted model server speaking each wire format on 127.0.0.1."""

from __future__ import annotations

import threading

import pytest

from dispatchguard.agent import AnthropicLLM, CancelToken, OpenAICompatibleLLM, run_tool_loop
from dispatchguard.agent.testing import ScriptedReply, ScriptedToolCall


def native(*pairs, **kw):
    return ScriptedReply(tool_calls=[ScriptedToolCall(name, args) for name, args in pairs], **kw)


@pytest.fixture(params=["openai", "anthropic"])
def provider(request):
    return request.param


@pytest.fixture
def native_llm(provider, llm_server):
    if provider == "openai":
        return OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted", api_key="k")
    return AnthropicLLM(base_url=llm_server.root_url, model="scripted", api_key="k")


def tool_results(provider, body):
    """The tool results in one recorded request: (call id, content, is_error) in order."""
    if provider == "openai":
        return [(m["tool_call_id"], m["content"], None) for m in body["messages"] if m["role"] == "tool"]
    return [(b["tool_use_id"], b["content"], b["is_error"])
            for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


def test_a_native_call_runs_and_is_answered_with_its_id(provider, native_llm, llm_server, registry, calls):
    llm_server.set_script([native(("add", {"a": 2, "b": 3})), "It is 5 [source:add]."])
    result = run_tool_loop(native_llm, "2 + 3?", registry=registry)
    assert (result.response, result.stop_reason, result.tools_used) == ("It is 5 [source:add].", "answer", ["add"])
    assert calls.log == [("add", (2, 3))]
    first, second = llm_server.requests
    assert llm_server.paths == ["/v1/chat/completions"] * 2 if provider == "openai" else ["/v1/messages"] * 2
    if provider == "openai":
        names = [tool["function"]["name"] for tool in first["tools"]]
        assert first["tools"][0]["function"]["strict"] is True
        assistant = second["messages"][-2]
        assert assistant["content"] is None and assistant["tool_calls"][0]["function"]["name"] == "add"
        call_id = assistant["tool_calls"][0]["id"]
        assert llm_server.headers[0]["authorization"] == "Bearer k"
    else:
        names = [tool["name"] for tool in first["tools"]]
        assert "input_schema" in first["tools"][0] and first["max_tokens"] == 1024
        assert first["system"].startswith("Answer the user's message") and first["messages"][0]["role"] == "user"
        (use,) = second["messages"][-2]["content"]
        assert use["type"] == "tool_use" and use["input"] == {"a": 2, "b": 3}
        call_id = use["id"]
        assert llm_server.headers[0]["x-api-key"] == "k" and llm_server.headers[0]["anthropic-version"]
    assert set(names) == set(registry)
    assert tool_results(provider, second) == [(call_id, "5", None if provider == "openai" else False)]
    assert result.history == ["Tool 1 [add]: 5"]
    assert [t.outcome for t in result.trace] == ["tool", "answer"]


def test_several_calls_in_one_turn_run_concurrently_and_answer_in_call_order(
        provider, native_llm, llm_server, registry, calls):
    # Parallel-safe: "slow" starts first and ends last; results still come back in call order.
    llm_server.set_script([native(("wait_async", {"seconds": 0.3, "label": "slow"}),
                                 ("wait_sync", {"seconds": 0.0, "label": "fast"})), "done"])
    result = run_tool_loop(native_llm, "go", registry=registry)
    assert result.stop_reason == "answer"
    assert calls.names() == ["wait_sync", "wait_async"]  # ran concurrently: the fast one finished first
    contents = [content for _, content, _ in tool_results(provider, llm_server.requests[1])]
    assert contents == ["slow", "fast"]
    assert result.trace[0].tool == "wait_async,wait_sync"


def test_calls_that_are_not_parallel_safe_keep_their_order(native_llm, llm_server, registry, calls):
    llm_server.set_script([native(("write", {"label": "1"}), ("write", {"label": "2"}),
                                 ("write", {"label": "3"})), "ok"])
    assert run_tool_loop(native_llm, "go", registry=registry).stop_reason == "answer"
    assert calls.log == [("write", "1"), ("write", "2"), ("write", "3")]


def test_an_invalid_call_is_corrected_once_through_its_tool_result(
        provider, native_llm, llm_server, registry, calls):
    llm_server.set_script([native(("add", {"a": "2", "b": 3}), ("add", {"a": 1, "b": 1})),
                           "Sorry, 2."])
    result = run_tool_loop(native_llm, "go", registry=registry)
    assert result.stop_reason == "answer"
    assert calls.log == [("add", (1, 1))]  # the valid call of the turn ran, the invalid one did not
    (_, bad, bad_error), (_, good, good_error) = tool_results(provider, llm_server.requests[1])
    assert bad.startswith("Invalid call, not run:") and "'a'" in bad and good == "2"
    if provider == "anthropic":
        assert (bad_error, good_error) == (True, False)
    assert result.trace[0].outcome == "invalid"


def test_invalid_twice_in_a_row_stops(native_llm, llm_server, registry, calls):
    llm_server.set_script([native(("nope", {})), native(("add", {"a": 1}))])
    result = run_tool_loop(native_llm, "go", registry=registry)
    assert result.stop_reason == "invalid_output" and "'b'" in result.response
    assert calls.log == []


def test_arguments_that_are_not_json_are_an_invalid_call(llm_server, registry):
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    llm_server.set_script([native(("add", '{"a": 1,')), native(("add", ""))])
    result = run_tool_loop(llm, "go", registry=registry)
    assert result.stop_reason == "invalid_output"
    assert "not valid JSON" in result.trace[0].detail
    assert "'a'" in result.trace[1].detail  # no arguments at all: the required ones are missing


def test_a_failing_call_is_reported_as_an_error_and_trips_the_breaker(
        provider, native_llm, llm_server, registry, calls):
    llm_server.set_script([native(("fail", {"reason": "boom"})), native(("fail", {"reason": "boom"}))])
    result = run_tool_loop(native_llm, "go", registry=registry)
    assert result.stop_reason == "breaker" and "boom" in result.response
    (_, content, is_error), = tool_results(provider, llm_server.requests[1])
    assert "boom" in content and is_error is (None if provider == "openai" else True)


def test_a_clarification_call_ends_with_the_question(native_llm, llm_server, registry):
    llm_server.set_script([native(("None", {"clarification_needed": "Which city?"}))])
    result = run_tool_loop(native_llm, "weather?", registry=registry)
    assert (result.response, result.stop_reason) == ("Which city?", "clarification")


def test_list_content_is_read(provider, native_llm, llm_server, registry):
    parts = [{"type": "text", "text": "Hello "}, {"type": "text", "text": "world."}]
    llm_server.set_script([ScriptedReply(content=parts)])
    assert run_tool_loop(native_llm, "hi", registry=registry).response == "Hello world."


def test_a_json_call_in_text_still_works_with_a_native_client(native_llm, llm_server, registry, calls):
    llm_server.set_script(['{"name": "add", "args": {"a": 1, "b": 2}}', "3"])
    assert run_tool_loop(native_llm, "go", registry=registry).tools_used == ["add"]
    assert calls.log == [("add", (1, 2))]


def test_cancel_aborts_the_model_call_in_flight(native_llm, llm_server, registry):
    released, answered = threading.Event(), threading.Event()
    outcome = {}
    token = CancelToken()

    def hang(body):
        token.cancel("stop now")  # the model call is in flight: the server is answering it
        outcome["released_by_test"] = released.wait(10)  # False only if the loop waited it out
        answered.set()
        return "too late"

    llm_server.set_script([hang])
    result = run_tool_loop(native_llm, "go", registry=registry, cancel=token)
    released.set()
    assert (result.stop_reason, result.response) == ("cancelled", "Cancelled: stop now")
    assert result.trace[0].outcome == "cancelled"
    assert answered.wait(10)
    assert outcome["released_by_test"] is True


def test_anthropic_settings(monkeypatch):
    from dispatchguard.agent import LLMConfigError

    for name in ("DISPATCHGUARD_LLM_BASE_URL", "ANTHROPIC_BASE_URL", "DISPATCHGUARD_LLM_MODEL",
                 "ANTHROPIC_MODEL", "DISPATCHGUARD_LLM_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LLMConfigError, match="model"):
        AnthropicLLM()
    with pytest.raises(LLMConfigError, match="max_tokens"):
        AnthropicLLM(model="m", max_tokens=0)
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "secret")
    llm = AnthropicLLM()
    assert (llm.url, llm.model) == ("https://api.anthropic.com/v1/messages", "claude")
    assert "secret" not in repr(llm)


def test_anthropic_complete_and_bad_answers(llm_server):
    from dispatchguard.agent import LLMError

    llm = AnthropicLLM(base_url=llm_server.root_url, model="m")
    llm_server.set_script(["plain", ScriptedReply(body='{"type": "error"}')])
    assert llm.complete([{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]) == "plain"
    assert llm_server.requests[0] == {"model": "m", "max_tokens": 1024, "system": "s",
                                      "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]}
    with pytest.raises(LLMError, match="content list"):
        llm.complete([{"role": "user", "content": "q"}])


def test_malformed_native_calls_are_invalid_calls_not_crashes(llm_server, registry, calls):
    import json

    odd = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        "not an object", {"id": 7, "function": "nope"}, {"function": {"name": "add", "arguments": '{"a": 1, "b": 1}'}},
    ]}}]}
    llm_server.set_script([ScriptedReply(body=json.dumps(odd)), "2"])
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="m")
    result = run_tool_loop(llm, "go", registry=registry)
    assert result.stop_reason == "answer" and calls.log == [("add", (1, 1))]
    replies = [m for m in llm_server.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in replies] == ["call_0", "call_1", "call_2"]
    assert replies[0]["content"].startswith("Invalid call, not run: unknown tool")
    blocks = {"content": [{"type": "tool_use", "id": 5, "name": None, "input": {}}, {"type": "other"}]}
    llm_server.set_script([ScriptedReply(body=json.dumps(blocks)), "done"])
    result = run_tool_loop(AnthropicLLM(base_url=llm_server.root_url, model="m"), "go", registry=registry)
    assert result.trace[0].outcome == "invalid"
    (use,) = llm_server.requests[1]["messages"][-2]["content"]
    assert use["id"] == "toolu_0" and use["name"] == ""


def test_a_native_client_must_return_a_model_reply(registry):
    class Broken:
        async def achat(self, messages, registry):
            return "text"

    class OptedOut:
        native_tools = False

        async def achat(self, messages, registry):
            raise AssertionError("not used")

        def complete(self, messages):
            return "plain"

    result = run_tool_loop(Broken(), "go", registry=registry)
    assert result.stop_reason == "llm_error" and "ModelReply" in result.response
    assert run_tool_loop(OptedOut(), "go", registry=registry).response == "plain"


def test_earlier_messages_are_replayed_in_both_wire_formats(provider, native_llm, llm_server, registry):
    context = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "noted"}]
    llm_server.set_script(["ok"])
    run_tool_loop(native_llm, "now", registry=registry, context=context)
    (body,) = llm_server.requests
    if provider == "openai":
        assert body["messages"][1:] == [*context, {"role": "user", "content": "now"}]
    else:
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
        assert body["messages"][1]["content"] == [{"type": "text", "text": "noted"}]


def test_a_cancel_while_native_tools_run_drops_their_results(native_llm, llm_server, registry, calls):
    # The cancel waits for the event it is about (the model answered and the tool runs), not for a
    # timer: under load the model's first request had not even arrived after 0.15 s. The tool would
    # run 30 s: only the cancel ends this test in time.
    token = CancelToken()
    llm_server.set_script([native(("slow_async", {"seconds": 30}))])
    canceller = threading.Thread(target=lambda: (calls.wait_for("slow_async"), token.cancel("user")))
    canceller.start()
    result = run_tool_loop(native_llm, "go", registry=registry, cancel=token)
    canceller.join()
    assert (result.stop_reason, result.trace[0].outcome, result.history) == ("cancelled", "cancelled", [])
    assert len(llm_server.requests) == 1


def test_anthropic_replays_calls_recorded_by_another_provider(llm_server):
    from dispatchguard.agent import ToolCall

    llm_server.set_script(["ok"])
    llm = AnthropicLLM(base_url=llm_server.root_url, model="m")
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [
            ToolCall("a", "add", '{"a": 1, "b": 2}'), ToolCall("b", "add", "{broken"), ToolCall("c", "add", None)]},
        {"role": "tool", "tool_call_id": "a", "name": "add", "content": "3", "is_error": False},
        {"role": "assistant", "content": ""},  # nothing to send: skipped
        {"role": "user", "content": "and?"},
    ]
    assert llm.complete(messages) == "ok"
    uses = llm_server.requests[0]["messages"][1]["content"]
    assert [u["input"] for u in uses] == [{"a": 1, "b": 2}, {}, {}]
    assert [m["role"] for m in llm_server.requests[0]["messages"]] == ["user", "assistant", "user"]


def test_arguments_nested_too_deep_are_an_invalid_call_not_a_crash(llm_server, registry, calls):
    """Red-team finding (issue 23): 1 200 levels of nesting (2.4 KB) made RecursionError escape,
    a 500 from /chat; the JSON-in-text path already answered invalid_json."""
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    deep = '{"a": ' + "[" * 1200 + "]" * 1200 + "}"
    llm_server.set_script([native(("add", deep)), "It is done."])
    result = run_tool_loop(llm, "go", registry=registry)
    assert "nested too deep" in result.trace[0].detail
    assert calls.log == []


def test_an_empty_reply_is_not_an_answer(llm_server, registry):
    """Issue 23: `content: null` and no tool call ended the loop as an answer with no text."""
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    llm_server.set_script([ScriptedReply(content=None), "It is 5."])
    result = run_tool_loop(llm, "2 + 3?", registry=registry)
    assert (result.stop_reason, result.response) == ("answer", "It is 5.")
    assert result.trace[0].outcome == "invalid" and "empty" in result.trace[0].detail
    llm_server.set_script([ScriptedReply(content=None), ScriptedReply(content="  ")])
    again = run_tool_loop(llm, "2 + 3?", registry=registry)
    assert again.stop_reason == "invalid_output" and "empty" in again.response
