"""The registry as an MCP server, seen by the official SDK's client: over stdio (``dispatchguard mcp``
in a subprocess) and over streamable HTTP (a real uvicorn on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

pytestmark = pytest.mark.slow


def error_of(result) -> dict:
    assert result.isError is True
    (block,) = result.content
    error = json.loads(block.text)
    assert result.structuredContent == error
    return error


async def tool_calls(session, served) -> None:
    """What every transport must answer alike."""
    listed = await session.list_tools()
    assert [tool.model_dump(exclude_none=True) for tool in listed.tools] == served.TOOLS.export("mcp")
    owner = next(tool for tool in listed.tools if tool.name == "owner")
    assert list(owner.inputSchema["properties"]) == ["item"]  # the injected user_id is not shown

    added = await session.call_tool("add", {"a": 2, "b": 3})
    assert (added.isError, added.content[0].text, added.structuredContent) == (False, "5", None)
    profile = await session.call_tool("profile", {"name": "ada", "tags": ["x"]})
    assert profile.isError is False
    assert profile.structuredContent == {"name": "ada", "tags": ["x"]} == json.loads(profile.content[0].text)

    invalid = error_of(await session.call_tool("add", {"a": "2"}))
    assert invalid == {"error": "tool 'add': argument 'a': expected integer, got string \"2\"",
                       "kind": "invalid_args", "tool": "add"}
    assert error_of(await session.call_tool("nope", {}))["kind"] == "unknown_tool"
    failed = error_of(await session.call_tool("fail", {"reason": "disk full"}))
    assert (failed["kind"], failed["error"]) == ("tool_error", "tool 'fail' failed: RuntimeError: disk full")
    assert error_of(await session.call_tool("owner", {"item": "book"}))["kind"] == "missing_context"


def test_stdio_server_answers_the_official_client(sdk_stdio, served):
    async def scenario():
        async with sdk_stdio() as session:
            await tool_calls(session, served)

    asyncio.run(scenario())


def test_stdio_tool_timeout_is_a_tool_result_and_cancels_the_tool(sdk_stdio, marks):
    async def scenario():
        async with sdk_stdio("--tool-timeout", "0.5") as session:
            started = time.monotonic()
            timed_out = error_of(await session.call_tool("nap", {"seconds": 30, "tag": "t"}))
            assert time.monotonic() - started < 10
            assert timed_out == {"error": "tool 'nap' timed out after 0.5s", "kind": "timeout", "tool": "nap",
                                 "timeout": 0.5}
            assert (await session.call_tool("add", {"a": 1})).content[0].text == "1"  # still serving

    asyncio.run(scenario())
    assert (marks / "cancelled-t").exists()


def test_http_server_answers_the_official_client_statelessly(serve_registry, sdk_http, served):
    url = serve_registry()

    async def scenario():
        async with sdk_http(url) as (session, session_id):
            await tool_calls(session, served)
            assert session_id() is None  # stateless: no Mcp-Session-Id, any worker can answer

    asyncio.run(scenario())


def test_http_server_gives_injected_arguments_from_its_context(serve_registry, sdk_http, served):
    url = serve_registry(context={"user_id": "u-42"})

    async def scenario():
        async with sdk_http(url) as (session, _):
            answer = await session.call_tool("owner", {"item": "book", "user_id": "intruder"})
            assert (answer.isError, answer.content[0].text) == (False, '"book belongs to u-42"')

    asyncio.run(scenario())


def test_http_client_disconnect_cancels_the_call(serve_registry, marks):
    url = serve_registry()
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "nap", "arguments":
                                                                          {"seconds": 30, "tag": "gone"}}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    with httpx.Client(timeout=5) as client:
        with client.stream("POST", url, json=body, headers=headers) as response:
            assert response.status_code == 200
            deadline = time.monotonic() + 10
            while not (marks / "started-gone").exists():  # the call is running (the tool's own mark)
                assert time.monotonic() < deadline, "the tool did not start"
                time.sleep(0.02)
        # leaving the block dropped the connection
    deadline = time.monotonic() + 10
    while not (marks / "cancelled-gone").exists():
        assert time.monotonic() < deadline, "the tool was not cancelled when its client went away"
        time.sleep(0.05)
    assert not (marks / "finished-gone").exists()


def test_http_refuses_foreign_hosts_and_oversized_bodies(serve_registry):
    url = serve_registry(max_body_bytes=4096)
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    with httpx.Client(timeout=5) as client:
        assert client.post(url, json=ping, headers=headers).status_code == 200
        rebinding = client.post(url, json=ping, headers={**headers, "Host": "attacker.example"})
        assert rebinding.status_code == 421
        page = client.post(url, json=ping, headers={**headers, "Origin": "http://attacker.example"})
        assert page.status_code == 403
        local_page = client.post(url, json=ping, headers={**headers, "Origin": "http://localhost:3000"})
        assert local_page.status_code == 200
        huge = client.post(url, content=b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "' + b"a" * 8000 + b'"}',
                           headers=headers)
        assert huge.status_code == 413
        health = client.get(url.removesuffix("/mcp") + "/healthz")
        assert health.json()["status"] == "ok"


def test_allowed_hosts_replace_the_loopback_names(serve_registry):
    url = serve_registry(allowed_hosts=["tools.example:*"])
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert httpx.post(url, json=ping, headers={**headers, "Host": "tools.example:443"}, timeout=5).status_code == 200
    assert httpx.post(url, json=ping, headers=headers, timeout=5).status_code == 421


def test_json_response_mode_answers_in_one_body(serve_registry, sdk_http, served):
    url = serve_registry(json_response=True)
    headers = {"Accept": "application/json", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2025-06-18"}
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 4}}}
    reply = httpx.post(url, json=call, headers=headers, timeout=5)
    assert reply.headers["content-type"].startswith("application/json")
    assert reply.json()["result"]["content"] == [{"type": "text", "text": "4"}]

    async def scenario():
        async with sdk_http(url) as (session, _):
            await tool_calls(session, served)

    asyncio.run(scenario())


def test_build_server_refuses_bad_options(served):
    from dispatchguard.mcp import build_server, create_http_app

    with pytest.raises(TypeError, match="registry must be a ToolRegistry, got dict"):
        build_server({})
    with pytest.raises(ValueError, match="tool_timeout must be positive"):
        build_server(served.TOOLS, tool_timeout=0)
    with pytest.raises(ValueError, match="path must start with '/'"):
        create_http_app(served.TOOLS, path="mcp")


def test_workers_build_their_app_from_the_environment(served, monkeypatch):
    from starlette.applications import Starlette

    from dispatchguard.mcp import SETTINGS_ENV
    from dispatchguard.mcp.server import HttpSettings, app_from_environment

    monkeypatch.delenv(SETTINGS_ENV, raising=False)
    with pytest.raises(ValueError, match=f"{SETTINGS_ENV} is not set"):
        app_from_environment()
    monkeypatch.setenv(SETTINGS_ENV, '{"tool_timeout": 1}')  # no registry
    with pytest.raises(ValueError, match=f"{SETTINGS_ENV} is not valid"):
        app_from_environment()
    monkeypatch.setenv(SETTINGS_ENV, HttpSettings(registry="served_tools:TOOLS", json_response=True).to_json())
    assert isinstance(app_from_environment(), Starlette)
