"""Over MCP a call's arguments reach the validator as the client sent them: 1e400 and Infinity
(which parse to an infinite float, then become null in the SDK's re-reading of the request) are
named for what they are, and null is "got null"."""

from __future__ import annotations

import json
import subprocess

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.integration]

TOO_LARGE = "tool 'add': argument 'a': expected integer, got a number too large for a float"
# (raw arguments, the error message)
CASES = [
    (b'{"a": 1e400}', TOO_LARGE),
    (b'{"a": -1e400, "b": 1}', TOO_LARGE),
    (b'{"a": Infinity}', TOO_LARGE),
    (b'{"a": null}', "tool 'add': argument 'a': expected integer, got null"),
    (b'{"a": 1, "b": 1e400}', "tool 'add': argument 'b': expected integer, got a number too large for a float"),
    (b'{"name": "ada", "tags": ["x", 1e400]}', "tool 'profile': argument 'tags': item 1: expected string, "
                                               "got a number too large for a float"),
]


def raw_call(request_id: int, arguments: bytes) -> bytes:
    tool = b"profile" if b"tags" in arguments else b"add"
    return (b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "%s", "arguments": %s}}'
            % (request_id, tool, arguments))


def test_stdio_messages_name_the_received_value(stdio_command, server_env, served):
    from test_hostile import INITIALIZE, read_answers

    process = subprocess.Popen(stdio_command(), env=server_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    try:
        lines = [json.dumps(INITIALIZE).encode(), b'{"jsonrpc": "2.0", "method": "notifications/initialized"}']
        lines += [raw_call(n, arguments) for n, (arguments, _) in enumerate(CASES, start=1)]
        process.stdin.write(b"\n".join(lines) + b"\n")
        process.stdin.flush()
        answers = read_answers(process, range(len(CASES) + 1), 30)
    finally:
        process.stdin.close()
        process.wait(timeout=15)
        process.stdout.close()
    for n, (_, message) in enumerate(CASES, start=1):
        error = json.loads(answers[n]["result"]["content"][0]["text"])
        assert (error["kind"], error["error"]) == ("invalid_args", message)


def test_http_messages_name_the_received_value(serve_registry):
    url = serve_registry(json_response=True)
    headers = {"Accept": "application/json", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}
    with httpx.Client(timeout=10) as client:
        for n, (arguments, message) in enumerate(CASES, start=1):
            answer = client.post(url, content=raw_call(n, arguments), headers=headers).json()
            error = json.loads(answer["result"]["content"][0]["text"])
            assert (error["kind"], error["error"]) == ("invalid_args", message)
