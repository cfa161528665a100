"""McpClient: real MCP servers' tools in a ToolRegistry — mcp-server-time (a PyPI package), a
server on the SDK's low-level API, and dispatchguard's own server over stdio and HTTP."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path

import pytest

from dispatchguard import RegistryError, ToolRegistry, adispatch_tool, dispatch_tool
from dispatchguard.agent import execute_tool

pytestmark = pytest.mark.slow

SDK_SERVER = str(Path(__file__).with_name("sdk_server.py"))


def call(registry: ToolRegistry, tool: str, **args) -> str:
    return dispatch_tool({"name": tool, "args": args}, registry=registry)


def error(registry: ToolRegistry, tool: str, **args) -> dict:
    value = json.loads(call(registry, tool, **args))
    assert set(value) >= {"error", "kind", "tool"}, value
    return value


@pytest.fixture
def client_of():
    """Start McpClients and close them after the test."""
    from dispatchguard.mcp import McpClient

    clients = []

    def start(**options) -> McpClient:
        client = McpClient(**options).start()
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.close()


def test_tools_of_mcp_server_time_are_dispatched_like_our_own(client_of):
    registry = ToolRegistry()
    client = client_of(command=[sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"], name="time")
    assert client.register(registry, prefix="time_") == ["time_get_current_time", "time_convert_time"]
    exported = {tool["name"]: tool for tool in registry.export("mcp")}
    assert exported["time_get_current_time"]["inputSchema"]["required"] == ["timezone"]

    now = json.loads(call(registry, "time_get_current_time", timezone="Asia/Tokyo"))
    assert now["timezone"] == "Asia/Tokyo" and now["datetime"].endswith("+09:00")
    converted = asyncio.run(adispatch_tool({"name": "time_convert_time", "args": {
        "source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"}}, registry=registry))
    assert json.loads(converted)["target"]["datetime"].endswith("T13:00:00+01:00")
    # rejected by the local validator (the inputSchema), never sent
    assert error(registry, "time_get_current_time", timezone=3)["kind"] == "invalid_args"
    remote = error(registry, "time_get_current_time", timezone="Nowhere/Atlantis")
    assert (remote["kind"], remote["server"], remote["mcp_tool"]) == ("tool_error", "time", "get_current_time")
    assert "Invalid timezone" in remote["error"]


def test_results_and_failures_of_an_sdk_server_map_to_json_and_error_kinds(client_of, server_env, marks):
    registry = ToolRegistry()
    client_of(command=[sys.executable, SDK_SERVER], env=server_env, timeout=1.0, name="sdk").register(registry)
    assert call(registry, "texts") == '["one", "two"]'
    assert json.loads(call(registry, "picture")) == [
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, {"type": "text", "text": "a tiny picture"}]
    assert call(registry, "say", words="plain words") == '"plain words"'
    assert call(registry, "nothing") == "null"
    assert error(registry, "say", words="")["kind"] == "invalid_args"  # minLength, checked locally
    refused = error(registry, "refuse")
    assert (refused["kind"], refused["code"]) == ("mcp_error", -32602)
    assert refused["error"] == "tool 'refuse' failed: MCP: MCP server 'sdk' refused tool 'refuse': no way to run refuse"
    assert error(registry, "oops")["error"] == "tool 'oops' failed: MCP: the printer is on fire"

    started = time.monotonic()
    hung = error(registry, "hang")
    assert (hung["kind"], hung["timeout"]) == ("timeout", 1.0)
    assert time.monotonic() - started < 5
    deadline = time.monotonic() + 5
    while not (marks / "cancelled-hang").exists():  # the server was sent notifications/cancelled
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert call(registry, "texts") == '["one", "two"]'  # the connection survives a timeout


def test_tools_listed_over_several_pages_are_all_registered(client_of):
    names = ["texts", "picture", "say", "nothing", "refuse", "oops", "hang"]
    assert [tool.name for tool in client_of(command=[sys.executable, SDK_SERVER]).tools] == names
    looping = client_of(command=[sys.executable, SDK_SERVER, "--loop-cursor"])
    assert [tool.name for tool in looping.tools] == names[:6]  # a repeated cursor ends the listing


def test_our_server_over_http_keeps_its_error_kinds(client_of, serve_registry):
    registry = ToolRegistry()
    url = serve_registry(tool_timeout=0.5)
    client_of(url=url).register(registry, prefix="remote_", names=["add", "profile", "fail", "nap"])
    assert sorted(registry) == ["remote_add", "remote_fail", "remote_nap", "remote_profile"]
    assert call(registry, "remote_add", a=1, b=2) == "3"
    assert json.loads(call(registry, "remote_profile", name="ada")) == {"name": "ada", "tags": []}
    failed = error(registry, "remote_fail", reason="no disk")
    assert (failed["kind"], failed["mcp_tool"]) == ("tool_error", "fail")
    assert failed["error"] == "tool 'remote_fail' failed: MCP: tool 'fail' failed: RuntimeError: no disk"
    timed_out = error(registry, "remote_nap", seconds=5)
    assert (timed_out["kind"], timed_out["timeout"]) == ("timeout", 0.5)  # the remote tool timeout


def test_cancelling_the_caller_cancels_the_remote_call(client_of, stdio_command, server_env, marks):
    registry = ToolRegistry()
    client_of(command=stdio_command(), env=server_env).register(registry, names=["nap"])
    answer = asyncio.run(execute_tool({"name": "nap", "args": {"seconds": 30, "tag": "remote"}},
                                      registry=registry, timeout=0.5))
    assert json.loads(answer)["kind"] == "timeout"
    deadline = time.monotonic() + 10
    while not (marks / "cancelled-remote").exists():
        assert time.monotonic() < deadline, "the server's tool was not cancelled"
        time.sleep(0.05)


def test_a_server_that_dies_mid_call_is_a_disconnect_then_a_new_connection(client_of, stdio_command, server_env):
    registry = ToolRegistry()
    client = client_of(command=stdio_command(), env=server_env, name="fragile")
    client.register(registry, names=["crash", "add"])
    lost = error(registry, "crash")
    assert (lost["kind"], lost["server"]) == ("mcp_disconnected", "fragile")
    assert call(registry, "add", a=5) == "5"  # the next call opens a new connection


def test_without_reconnect_a_dead_connection_stays_dead(client_of, stdio_command, server_env):
    registry = ToolRegistry()
    client_of(command=stdio_command(), env=server_env, reconnect=False).register(registry, names=["crash", "add"])
    assert error(registry, "crash")["kind"] == "mcp_disconnected"
    assert error(registry, "add", a=5)["kind"] == "mcp_disconnected"


def test_no_server_is_unavailable(client_of):
    from dispatchguard.mcp import McpCallError

    with pytest.raises(McpCallError, match="cannot connect to MCP server") as missing:
        client_of(command=["/nonexistent/mcp-server"])
    assert missing.value.error_kind == "mcp_unavailable"
    nobody = re.escape("cannot connect to MCP server 'http://127.0.0.1:9/mcp'")
    with pytest.raises(McpCallError, match=nobody) as refused:
        client_of(url="http://127.0.0.1:9/mcp", connect_timeout=5)
    assert refused.value.error_kind == "mcp_unavailable"
    with pytest.raises(McpCallError, match=re.escape("did not answer initialize within 0.5s")):
        client_of(command=[sys.executable, "-c", "import time; time.sleep(30)"], connect_timeout=0.5)


def test_a_closed_client_answers_unavailable(client_of, stdio_command, server_env):
    registry = ToolRegistry()
    client = client_of(command=stdio_command(), env=server_env)
    client.register(registry, names=["add"])
    client.close()
    client.close()  # idempotent
    assert error(registry, "add", a=1)["kind"] == "mcp_unavailable"


def test_the_client_serves_sync_threads_and_other_loops_at_once(client_of, stdio_command, server_env):
    from dispatchguard.mcp import McpClient

    registry = ToolRegistry()
    client_of(command=stdio_command(), env=server_env).register(registry, names=["add", "pid"], parallel_safe=True)

    async def many() -> list[str]:
        calls = [execute_tool({"name": "add", "args": {"a": n}}, registry=registry) for n in range(10)]
        calls += [adispatch_tool({"name": "add", "args": {"a": n}}, registry=registry) for n in range(10)]
        return await asyncio.gather(*calls)

    assert asyncio.run(many()) == [str(n) for n in range(10)] * 2
    assert asyncio.run(many()) == [str(n) for n in range(10)] * 2  # a second loop, the same connection

    async def context_managed() -> str:
        async with McpClient(command=stdio_command(), env=server_env) as client:
            return await client.acall("add", {"a": 7})

    assert asyncio.run(context_managed()) == "7"


def test_registration_is_all_or_nothing(client_of):
    registry = ToolRegistry()
    registry.register("say", lambda words: words)
    sdk = client_of(command=[sys.executable, SDK_SERVER, "--bad-name"], name="sdk")
    with pytest.raises(RegistryError, match="a tool named 'say' is already registered"):
        sdk.register(registry)
    assert list(registry) == ["say"]
    with pytest.raises(RegistryError, match="MCP server 'sdk': tool name 'sdk_files/read' contains a path separator"):
        sdk.register(registry, prefix="sdk_")
    assert list(registry) == ["say"]
    with pytest.raises(RegistryError, match="MCP server 'sdk' has no tool 'missing'"):
        sdk.register(registry, names=["missing"])


@pytest.mark.parametrize(("options", "message"), [
    ({}, "exactly one of command"),
    ({"command": ["x"], "url": "http://127.0.0.1/mcp"}, "exactly one of command"),
    ({"command": "python server.py"}, "command must be a non-empty sequence of strings"),
    ({"url": "ftp://127.0.0.1/mcp"}, "url must be an http:// or https:// URL"),
    ({"url": "http://127.0.0.1/mcp", "timeout": 0}, "timeout must be positive"),
    ({"url": "http://127.0.0.1/mcp", "connect_timeout": -1}, "connect_timeout must be positive"),
])
def test_bad_client_options(options, message):
    from dispatchguard.mcp import McpClient

    with pytest.raises(ValueError, match=message):
        McpClient(**options)


def test_a_hostile_servers_errors_descriptions_and_schemas_are_bounded(client_of):
    from dispatchguard.mcp import McpLimits

    registry = ToolRegistry()
    client = client_of(command=[sys.executable, SDK_SERVER, "--hostile"], name="hostile")
    with pytest.raises(RegistryError, match=r"MCP server 'hostile': tool 'sprawling': its inputSchema is \d+ bytes "
                                            r"of JSON, over the limit of 65536 \(McpLimits.max_schema_bytes\)"):
        client.register(registry)
    assert len(registry) == 0  # all or nothing
    assert client.register(registry, names=["liar", "chatty"]) == ["liar", "chatty"]
    assert len(registry.spec("chatty").description) == 4000
    assert registry.spec("chatty").description.endswith("...")

    value = error(registry, "liar")
    assert value == {"error": "tool 'liar' failed: MCP: " + "E" * 3997 + "...", "kind": "tool_error",
                     "tool": "liar", "url": "u" * 497 + "...", "status": 500, "server": "hostile", "mcp_tool": "liar"}

    small = client_of(command=[sys.executable, SDK_SERVER, "--hostile"], name="small",
                      limits=McpLimits(max_error_chars=20, max_detail_chars=10, max_description_chars=30,
                                       max_schema_bytes=10**6))
    assert small.register(registry, prefix="s_") == ["s_texts", "s_picture", "s_say", "s_nothing", "s_refuse",
                                                      "s_oops", "s_hang", "s_liar", "s_chatty", "s_sprawling"]
    assert registry.spec("s_chatty").description == "word word word word word wo..."
    assert error(registry, "s_liar")["error"] == "tool 's_liar' failed: MCP: " + "E" * 17 + "..."
    assert error(registry, "s_liar")["url"] == "u" * 7 + "..."


@pytest.mark.parametrize("field", ["max_error_chars", "max_detail_chars", "max_description_chars",
                                   "max_schema_bytes"])
@pytest.mark.parametrize("value", [0, -1, 1.5, True])
def test_limits_must_be_positive_ints(field, value):
    from dispatchguard.mcp import McpLimits

    with pytest.raises(ValueError, match=f"McpLimits.{field} must be a positive int, got {value!r}"):
        McpLimits(**{field: value})
