"""Other MCP clients against ``dispatchguard mcp`` over stdio: LangChain's langchain-mcp-adapters
and CrewAI's native MCP client, as their users would point them at it."""

from __future__ import annotations

import asyncio
import json

import pytest

pytestmark = pytest.mark.slow


def test_langchain_mcp_adapters_use_the_registry(stdio_command, server_env):
    adapters = pytest.importorskip("langchain_mcp_adapters.client")
    command = stdio_command()
    client = adapters.MultiServerMCPClient(
        {"dispatchguard": {"transport": "stdio", "command": command[0], "args": command[1:], "env": server_env}})

    async def scenario() -> None:
        tools = {tool.name: tool for tool in await client.get_tools()}
        assert tools["add"].args_schema["properties"]["b"] == {"default": 0, "description": "the second",
                                                                "type": "integer"}
        assert "user_id" not in tools["owner"].args_schema["properties"]
        call = {"type": "tool_call", "id": "call-1", "name": "profile", "args": {"name": "ada"}}
        message = await tools["profile"].ainvoke(call)
        assert message.status == "success"
        assert message.artifact["structured_content"] == {"name": "ada", "tags": []}
        failed = await tools["fail"].ainvoke({**call, "name": "fail", "args": {"reason": "no disk"}})
        assert failed.status == "error"
        assert json.loads(failed.content[0]["text"])["kind"] == "tool_error"
        (block,) = await tools["add"].ainvoke({"a": 2, "b": 40})
        assert block["text"] == "42"

    asyncio.run(scenario())


def test_crewai_mcp_client_uses_the_registry(stdio_command, server_env):
    crewai_mcp = pytest.importorskip("crewai.mcp")
    from crewai.mcp.transports.stdio import StdioTransport

    command = stdio_command()

    async def scenario() -> None:
        async with crewai_mcp.MCPClient(StdioTransport(command=command[0], args=command[1:], env=server_env)) as client:
            listed = {tool["name"]: tool for tool in await client.list_tools()}
            assert listed["add"]["inputSchema"]["required"] == ["a"]
            assert await client.call_tool("add", {"a": 1, "b": 2}) == "3"
            failed = await client.call_tool_result("add", {"a": "1"})
            assert failed.is_error is True
            assert json.loads(failed.content)["kind"] == "invalid_args"

    asyncio.run(scenario())
