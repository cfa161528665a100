"""Wire parity with the official SDKs: the requests we send fit the ``openai``/``anthropic``
request types, the scripted server's answers validate as their response models, and answers built
with the SDKs' own models are read correctly by our clients."""

from __future__ import annotations

import itertools

import pytest

from dispatchguard.agent import AnthropicLLM, OpenAICompatibleLLM, run_tool_loop
from dispatchguard.agent.testing import ScriptedReply, ScriptedToolCall

from .wire_types import WireMismatch, check


@pytest.fixture(autouse=True, scope="module")
def sdks():
    """The official SDKs, imported when a test here runs, not when an xdist worker collects it."""
    return pytest.importorskip("openai"), pytest.importorskip("anthropic")


# One conversation that touches every message kind: several calls in a turn, an invalid call
# (correction through its tool result), a failing tool, list content, the final answer.
SCRIPT = [
    ScriptedReply(content="Let me look.", tool_calls=[ScriptedToolCall("add", {"a": 1, "b": 2}),
                                                      ScriptedToolCall("search", {"query": "x"})]),
    ScriptedReply(tool_calls=[ScriptedToolCall("add", {"a": "one"}), ScriptedToolCall("fail", {"reason": "r"})]),
    ScriptedReply(content=[{"type": "text", "text": "3 [source:add]"}]),
]


def test_openai_requests_fit_the_sdk_request_type(llm_server, registry):
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    llm_server.set_script(SCRIPT)
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="gpt-test", max_tokens=50)
    result = run_tool_loop(llm, "go", registry=registry, context=[{"role": "assistant", "content": "hi"}])
    assert result.stop_reason == "answer" and len(llm_server.requests) == 3
    kinds = {m["role"] for body in llm_server.requests for m in body["messages"]}
    assert kinds == {"system", "user", "assistant", "tool"}
    for body in llm_server.requests:
        check(body, CompletionCreateParamsNonStreaming)


def test_anthropic_requests_fit_the_sdk_request_type(llm_server, registry):
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    llm_server.set_script(SCRIPT)
    llm = AnthropicLLM(base_url=llm_server.root_url, model="claude-test")
    result = run_tool_loop(llm, "go", registry=registry, context=[{"role": "assistant", "content": "hi"}])
    assert result.stop_reason == "answer" and len(llm_server.requests) == 3
    blocks = {b["type"] for body in llm_server.requests for m in body["messages"]
              if isinstance(m["content"], list) for b in m["content"]}
    assert blocks == {"text", "tool_use", "tool_result"}
    for body in llm_server.requests:
        check(body, MessageCreateParamsNonStreaming)
        roles = [m["role"] for m in body["messages"]]
        assert all(a != b for a, b in itertools.pairwise(roles)), roles  # turns alternate


def test_the_checker_catches_what_the_sdk_types_refuse():
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    with pytest.raises(WireMismatch, match="tool_call_id"):
        check({"model": "m", "messages": [{"role": "tool", "content": "x"}]}, CompletionCreateParamsNonStreaming)


def test_scripted_answers_validate_as_sdk_responses(llm_server, registry, sdks):
    openai, anthropic = sdks
    llm_server.set_script([SCRIPT[0], SCRIPT[1], SCRIPT[0], "plain"])
    client = openai.OpenAI(base_url=llm_server.base_url, api_key="k", max_retries=0)
    completions = []
    for _ in range(2):
        raw = client.chat.completions.with_raw_response.create(
            model="m", messages=[{"role": "user", "content": "go"}], tools=registry.export("openai"))
        completions.append(openai.types.chat.ChatCompletion.model_validate(raw.http_response.json()))
    claude = anthropic.Anthropic(base_url=llm_server.root_url, api_key="k", max_retries=0)
    messages = []
    for _ in range(2):
        raw = claude.messages.with_raw_response.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "go"}],
            tools=registry.export("anthropic"))
        messages.append(anthropic.types.Message.model_validate(raw.http_response.json()))
    first, second = (c.choices[0].message for c in completions)
    assert first.content == "Let me look." and second.content is None
    assert [c.function.name for c in first.tool_calls] == ["add", "search"]
    assert [b.type for b in messages[0].content] == ["text", "tool_use", "tool_use"]
    assert messages[0].stop_reason == "tool_use" and messages[1].content[0].text == "plain"


def test_our_clients_read_answers_built_with_the_sdk_models(llm_server, registry, calls):
    from anthropic.types import Message, ToolUseBlock, Usage
    from openai.types.chat import ChatCompletion, ChatCompletionMessage
    from openai.types.chat.chat_completion import Choice
    from openai.types.chat.chat_completion_message_function_tool_call import (
        ChatCompletionMessageFunctionToolCall,
        Function,
    )

    completion = ChatCompletion(
        id="c", created=0, model="m", object="chat.completion",
        choices=[Choice(index=0, finish_reason="tool_calls", message=ChatCompletionMessage(
            role="assistant", content=None, tool_calls=[ChatCompletionMessageFunctionToolCall(
                id="call_sdk", type="function", function=Function(name="add", arguments='{"a": 4, "b": 5}'))]))],
    )
    message = Message(
        id="m", type="message", role="assistant", model="m", stop_reason="tool_use", stop_sequence=None,
        usage=Usage(input_tokens=1, output_tokens=1),
        content=[ToolUseBlock(type="tool_use", id="toolu_sdk", name="add", input={"a": 6, "b": 7})],
    )
    llm_server.set_script([ScriptedReply(body=completion.model_dump_json()), "9",
                           ScriptedReply(body=message.model_dump_json()), "13"])
    run_tool_loop(OpenAICompatibleLLM(base_url=llm_server.base_url, model="m"), "go", registry=registry)
    run_tool_loop(AnthropicLLM(base_url=llm_server.root_url, model="m"), "go", registry=registry)
    assert calls.log == [("add", (4, 5)), ("add", (6, 7))]
    assert llm_server.requests[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_sdk", "content": "9"}
    assert llm_server.requests[3]["messages"][-1]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_sdk", "content": "13", "is_error": False}]
