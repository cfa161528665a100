"""Every tool kind (real CrewAI, LangChain and plain tools) on every path: dispatch_tool,
adispatch_tool, execute_tool (timeout and cancel token), run_tool_loop and /chat over real HTTP."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from dispatchguard import adispatch_tool, dispatch_tool, render_tool_prompt
from dispatchguard.agent import CancelToken, execute_tool, run_tool_loop, summarize_tool_result

PATHS = ["dispatch_tool", "adispatch_tool", "execute_tool", "run_tool_loop", "chat"]


def loop_reply(name: str, args: dict) -> list[str]:
    return [json.dumps({"name": name, "args": args}), "Done."]


def check_history(kind, history: list[str], name: str, expected: str) -> None:
    assert history == [f"Tool 1 [{name}]: {summarize_tool_result(name, expected, limit=900)}"]


@pytest.mark.parametrize("path", PATHS)
def test_every_kind_on_every_path(kind, path, registered, calls, llm, llm_server, serve):
    reg, name = registered
    call = {"name": name, "args": kind.args}
    if path == "dispatch_tool":
        assert dispatch_tool(call, registry=reg) == kind.expected
        if kind.context:
            assert dispatch_tool(call, registry=reg, context=kind.context) == kind.expected_with_context
    elif path == "adispatch_tool":
        assert asyncio.run(adispatch_tool(call, registry=reg)) == kind.expected
        if kind.context:
            assert asyncio.run(adispatch_tool(call, registry=reg, context=kind.context)) == kind.expected_with_context
    elif path == "execute_tool":
        token = CancelToken()
        assert asyncio.run(execute_tool(call, registry=reg, timeout=30, cancel=token)) == kind.expected
        ran = calls.count(kind.id)
        if kind.context:
            assert asyncio.run(execute_tool(call, registry=reg, timeout=30, context=kind.context)) == (
                kind.expected_with_context)
        token.cancel("stop")
        cancelled = json.loads(asyncio.run(execute_tool(call, registry=reg, timeout=30, cancel=token)))
        assert cancelled["kind"] == "cancelled" and cancelled["tool"] == name
        assert calls.count(kind.id) == ran + (1 if kind.context else 0)  # the cancelled call never ran
    elif path == "run_tool_loop":
        llm_server.set_script(loop_reply(name, kind.args))
        result = run_tool_loop(llm, "add 2 and 3", registry=reg, tool_timeout=30)
        assert result.stop_reason == "answer" and result.tools_used == [name]
        check_history(kind, result.history, name, kind.expected)
        assert llm_server.requests[1]["messages"][-1]["content"] == result.history[0]
    else:
        from dispatchguard.server import create_app

        llm_server.set_script(loop_reply(name, kind.args))
        base = serve(create_app(reg, llm, tool_timeout=30))
        response = httpx.post(f"{base}/chat", json={"message": "add 2 and 3", "mode": "agent"}, timeout=60)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["tools_used"] == [name] and body["stop_reason"] == "answer"
        history_line = llm_server.requests[1]["messages"][-1]["content"]
        check_history(kind, [history_line], name, kind.expected)
    assert calls.count(kind.id) >= 1


def test_exports_and_prompt_show_only_model_arguments(kind, registered):
    import jsonschema

    reg, name = registered
    spec = reg.spec(name)
    hidden = {"user_id", "call_id"}
    prompt = render_tool_prompt(reg)
    for fmt, key in (("openai", None), ("anthropic", "input_schema"), ("mcp", "inputSchema")):
        (entry,) = reg.export(fmt)
        schema = entry["function"]["parameters"] if key is None else entry[key]
        jsonschema.Draft202012Validator.check_schema(schema)
        assert not hidden & set(schema["properties"]), (fmt, schema)
        model_args = {k: v for k, v in kind.args.items() if k not in hidden}
        assert jsonschema.Draft202012Validator(spec.schema).is_valid(model_args)
    assert spec.is_async is kind.is_async
    for word in hidden:
        assert word not in prompt
    assert json.dumps(reg.export("openai"), allow_nan=False)
