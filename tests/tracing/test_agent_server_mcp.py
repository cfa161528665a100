"""The agent loop's ``invoke_agent`` and ``chat {model}`` spans, the service's ``POST /chat`` span
and MCP ``tools/call`` on both sides, against the scripted model server, a real uvicorn and the
official MCP SDK; spans read back from the in-memory exporter."""

from __future__ import annotations

import json

import httpx
import pytest

from dispatchguard import ToolRegistry, dispatch_tool
from dispatchguard.agent import OpenAICompatibleLLM, run_tool_loop
from dispatchguard.agent.testing import ScriptedReply

pytestmark = pytest.mark.integration


def tools() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool(parallel_safe=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @reg.tool()
    def fail(reason: str) -> str:
        """Always fails."""
        raise RuntimeError(reason)

    return reg


def completion(content, tool_calls=(), usage=(7, 3), finish="stop") -> ScriptedReply:
    """A raw chat.completion body that reports token usage, like a real server."""
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [{"id": call_id, "type": "function",
                                  "function": {"name": name, "arguments": json.dumps(args)}}
                                 for call_id, name, args in tool_calls]
    body = {"id": "c", "object": "chat.completion", "created": 0, "model": "scripted-2026",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}}
    return ScriptedReply(body=json.dumps(body))


def test_a_loop_run_is_an_agent_span_over_chat_and_tool_spans(traced, llm_server):
    llm_server.set_script([
        completion(None, [("call_a", "add", {"a": 2, "b": 3}), ("call_f", "fail", {"reason": "no"})],
                   usage=(11, 5), finish="tool_calls"),
        completion("5 [source:add]", usage=(20, 4)),
    ])
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    result = run_tool_loop(llm, "2 + 3?", registry=tools())
    assert result.stop_reason == "answer"

    agent = traced.one("invoke_agent")
    assert agent.parent is None
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["dispatchguard.agent.stop_reason"] == "answer"
    assert agent.attributes["dispatchguard.agent.steps"] == 2

    chats = traced.named("chat scripted")
    assert len(chats) == 2
    first, second = sorted(chats, key=lambda span: span.start_time)
    assert {span.parent.span_id for span in chats} == {agent.context.span_id}
    assert first.kind.name == "CLIENT"
    assert first.attributes["gen_ai.request.model"] == "scripted"
    assert first.attributes["gen_ai.response.model"] == "scripted-2026"
    assert first.attributes["gen_ai.provider.name"] == "openai"
    assert (first.attributes["gen_ai.usage.input_tokens"], first.attributes["gen_ai.usage.output_tokens"]) == (11, 5)
    assert tuple(first.attributes["gen_ai.response.finish_reasons"]) == ("tool_calls",)
    assert second.attributes["gen_ai.usage.input_tokens"] == 20

    # the sync tools ran in their own threads: the trace context went with them
    added, failed = traced.one("execute_tool add"), traced.one("execute_tool fail")
    assert added.parent.span_id == agent.context.span_id
    assert added.context.trace_id == agent.context.trace_id
    assert added.attributes["gen_ai.tool.call.id"] == "call_a"
    assert failed.attributes["gen_ai.tool.call.id"] == "call_f"
    assert failed.attributes["error.type"] == "tool_error"


def test_a_model_that_cannot_be_asked_fails_its_chat_and_agent_spans(traced, llm_server):
    llm_server.set_script([ScriptedReply(status=400, body='{"error": "refused"}')])
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    result = run_tool_loop(llm, "hi", registry=tools())
    assert result.stop_reason == "llm_error"
    chat = traced.named("chat scripted")[-1]
    assert chat.status.status_code.name == "ERROR"
    assert chat.attributes["error.type"] == "LLMError"
    agent = traced.one("invoke_agent")
    assert agent.attributes["error.type"] == "llm_error"
    assert agent.status.status_code.name == "ERROR"


def test_the_chat_request_is_the_parent_and_follows_the_callers_traceparent(traced, llm_server, serve):
    from dispatchguard.server import create_app

    llm_server.set_script([
        completion(None, [("call_1", "add", {"a": 1, "b": 1})], finish="tool_calls"),
        completion("2 [source:add]"),
    ])
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    base = serve(create_app(tools(), llm))
    trace_id, caller_span = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
    answer = httpx.post(f"{base}/chat", json={"message": "1 + 1?", "mode": "agent"},
                        headers={"traceparent": f"00-{trace_id}-{caller_span}-01"}, timeout=30)
    assert answer.status_code == 200, answer.text

    request = traced.one("POST /chat")
    assert request.kind.name == "SERVER"
    assert format(request.context.trace_id, "032x") == trace_id
    assert format(request.parent.span_id, "016x") == caller_span
    assert request.attributes["http.response.status_code"] == 200
    agent = traced.one("invoke_agent")
    assert agent.parent.span_id == request.context.span_id
    assert traced.one("execute_tool add").context.trace_id == request.context.trace_id


def test_a_direct_chat_request_is_a_chat_span_under_the_request(traced, llm_server, serve):
    from dispatchguard.server import create_app

    llm_server.set_script(["Hello."])
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    base = serve(create_app(tools(), llm))
    answer = httpx.post(f"{base}/chat", json={"message": "hi", "mode": "chat"}, timeout=30)
    assert answer.status_code == 200, answer.text
    request, chat = traced.one("POST /chat"), traced.one("chat scripted")
    assert chat.parent.span_id == request.context.span_id
    assert traced.named("invoke_agent") == []


def test_a_chat_request_the_model_fails_is_a_502_span(traced, llm_server, serve):
    from dispatchguard.server import create_app

    llm_server.set_script([ScriptedReply(status=400, body='{"error": "bad"}')])
    llm = OpenAICompatibleLLM(base_url=llm_server.base_url, model="scripted")
    base = serve(create_app(tools(), llm))
    answer = httpx.post(f"{base}/chat", json={"message": "hi", "mode": "agent"}, timeout=30)
    assert answer.status_code == 502
    request = traced.one("POST /chat")
    assert request.attributes["http.response.status_code"] == 502
    assert request.attributes["error.type"] == "502"
    assert request.status.status_code.name == "ERROR"


def test_an_mcp_call_carries_the_trace_to_the_server_and_back(traced, tracer, serve):
    from dispatchguard.mcp import McpClient, create_http_app

    url = serve(create_http_app(tools())) + "/mcp"
    local = ToolRegistry()
    with McpClient(url=url, name="remote") as client:
        client.register(local, prefix="remote_")
        with tracer.start_as_current_span("caller") as caller:
            assert dispatch_tool({"name": "remote_add", "args": {"a": 4, "b": 5}}, registry=local) == "9"

    outer = traced.one("execute_tool remote_add")
    sent = [span for span in traced.named("tools/call add") if span.kind.name == "CLIENT"]
    received = [span for span in traced.named("tools/call add") if span.kind.name == "SERVER"]
    assert len(sent) == 1 and len(received) == 1
    inner = traced.one("execute_tool add")
    trace_id = caller.get_span_context().trace_id
    assert {outer.context.trace_id, sent[0].context.trace_id, received[0].context.trace_id,
            inner.context.trace_id} == {trace_id}
    assert outer.parent.span_id == caller.get_span_context().span_id
    assert sent[0].parent.span_id == outer.context.span_id
    # the server's handler runs in uvicorn's thread, with no context of ours: only _meta links it
    assert received[0].parent.span_id == sent[0].context.span_id
    assert received[0].parent.is_remote
    assert inner.parent.span_id == received[0].context.span_id
    assert sent[0].attributes["mcp.method.name"] == "tools/call"
    assert received[0].attributes["gen_ai.tool.name"] == "add"
    assert "jsonrpc.request.id" in received[0].attributes
