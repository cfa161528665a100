"""Failures reported by the frameworks become error objects on every path: CrewAI's ToolFailure
(max_usage_count spent), LangChain's handled ToolException, a missing injected value."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import httpx
import pytest
from crewai.tools import BaseTool as CrewBaseTool
from langchain_core.tools import InjectedToolArg, StructuredTool, ToolException
from langchain_core.tools import tool as lc_tool

from dispatchguard import ToolRegistry, adispatch_tool, dispatch_tool, dispatch_tool_result
from dispatchguard.agent import execute_tool, run_tool_loop

PATHS = ["dispatch_tool", "adispatch_tool", "execute_tool", "run_tool_loop", "chat"]


class LimitedTool(CrewBaseTool):
    name: str = "limited"
    description: str = "Answers once."

    def _run(self, q: str) -> str:
        return json.dumps(f"answer to {q}")


def _refuse(q: str) -> str:
    raise ToolException(f"cannot answer {q}")


refuse = StructuredTool.from_function(_refuse, name="refuse", description="Refuses politely.",
                                      handle_tool_error=True)


def run_path(path: str, reg: ToolRegistry, calls: list[dict], llm, llm_server, serve) -> list[dict]:
    """The error objects (or results) of ``calls`` made through ``path``, in order."""
    if path == "dispatch_tool":
        return [json.loads(dispatch_tool(c, registry=reg)) for c in calls]
    if path == "adispatch_tool":
        return [json.loads(asyncio.run(adispatch_tool(c, registry=reg))) for c in calls]
    if path == "execute_tool":
        return [json.loads(asyncio.run(execute_tool(c, registry=reg, timeout=30))) for c in calls]
    script = [json.dumps(c) for c in calls] + ["Done."]
    llm_server.set_script(script)
    if path == "run_tool_loop":
        result = run_tool_loop(llm, "go", registry=reg, tool_timeout=30, max_steps=len(script))
        lines = result.history
    else:
        from dispatchguard.server import create_app

        base = serve(create_app(reg, llm, tool_timeout=30, max_steps=len(script)))
        response = httpx.post(f"{base}/chat", json={"message": "go", "mode": "agent"}, timeout=60)
        assert response.status_code == 200, response.text
        final = llm_server.requests[-1]["messages"]
        lines = [m["content"] for m in final if m["content"].startswith("Tool ")]
    return [{"line": line} for line in lines]


@pytest.mark.parametrize("path", PATHS)
def test_spent_max_usage_count_is_an_error(path, llm, llm_server, serve):
    reg = ToolRegistry()
    reg.register("limited", LimitedTool(max_usage_count=1))
    call = {"name": "limited", "args": {"q": "x"}}
    first, second = run_path(path, reg, [call, {"name": "limited", "args": {"q": "y"}}], llm, llm_server, serve)
    if path in ("run_tool_loop", "chat"):
        assert first["line"] == "Tool 1 [limited]: answer to x"
        assert second["line"].startswith("Tool 2 [limited]: limited failed:") and "usage limit of 1" in second["line"]
        return
    assert first == "answer to x"
    assert second["kind"] == "tool_failure" and second["reason"] == "usage_limit"
    assert "reached its usage limit of 1" in second["error"] and second["tool"] == "limited"


@pytest.mark.parametrize("path", PATHS)
def test_handled_langchain_tool_exception_is_an_error(path, llm, llm_server, serve):
    reg = ToolRegistry()
    reg.register("refuse", refuse)
    (out,) = run_path(path, reg, [{"name": "refuse", "args": {"q": "x"}}], llm, llm_server, serve)
    if path in ("run_tool_loop", "chat"):
        assert out["line"].startswith("Tool 1 [refuse]: refuse failed:") and "cannot answer x" in out["line"]
        return
    assert out["kind"] == "tool_error" and "cannot answer x" in out["error"]


def test_dispatch_result_status_of_framework_failures():
    reg = ToolRegistry()
    reg.register("limited", LimitedTool(max_usage_count=1))
    assert dispatch_tool_result({"name": "limited", "args": {"q": "x"}}, registry=reg).ok
    spent = dispatch_tool_result({"name": "limited", "args": {"q": "x"}}, registry=reg)
    assert (spent.status, spent.kind) == ("error", "tool_failure")


def test_a_required_injected_value_missing_from_context_is_an_error():
    seen = []

    @lc_tool
    def lookup(q: str, tenant: Annotated[str, InjectedToolArg]) -> str:
        """Looks up for a tenant."""
        seen.append(tenant)
        return f"{tenant}/{q}"

    reg = ToolRegistry()
    reg.register("lookup", lookup)
    missing = json.loads(dispatch_tool({"name": "lookup", "args": {"q": "a", "tenant": "evil"}}, registry=reg))
    assert missing["kind"] == "missing_context" and "context={'tenant': ...}" in missing["error"]
    assert seen == []  # the model's value is never used
    ok = dispatch_tool({"name": "lookup", "args": {"q": "a"}}, registry=reg, context={"tenant": "acme"})
    assert ok == '"acme/a"' and seen == ["acme"]
    rejected = json.loads(dispatch_tool({"name": "lookup", "args": {"q": "a", "tenant": "evil"}}, registry=reg,
                                        unknown_args="reject", context={"tenant": "acme"}))
    assert rejected["kind"] == "invalid_args" and "unknown argument(s) \"tenant\"" in rejected["error"]


def test_async_only_langchain_tool_under_sync_dispatch():
    @lc_tool
    async def fetch(q: str) -> str:
        """Fetches."""
        return q.upper()

    reg = ToolRegistry()
    reg.register("fetch", fetch)
    assert dispatch_tool({"name": "fetch", "args": {"q": "a"}}, registry=reg) == '"A"'

    async def inside_a_loop():
        return json.loads(dispatch_tool({"name": "fetch", "args": {"q": "a"}}, registry=reg))

    assert asyncio.run(inside_a_loop())["kind"] == "async_tool"
