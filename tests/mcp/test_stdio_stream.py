"""Over stdio the protocol owns descriptor 1: whatever a tool writes to standard output (print,
sys.stdout.write, a subprocess, os.write(1, ...), C's printf), with or without a newline, goes to
stderr, and the official client reads every reply."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.integration]

LOUD_MODULE = """\
import sys
from served_tools import TOOLS
sys.stdout.write("noise-import")  # a registry module that prints when imported, no newline
"""


def test_nothing_a_tool_writes_reaches_the_protocol_stream(stdio_command, server_env, served, tmp_path):
    writers = served.WRITERS
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    (tmp_path / "loud_tools.py").write_text(LOUD_MODULE, encoding="utf-8")
    env = {**server_env, "PYTHONPATH": f"{tmp_path}:{server_env['PYTHONPATH']}"}
    command = stdio_command()
    command[command.index("served_tools:TOOLS")] = "loud_tools:TOOLS"
    errors: list[object] = []

    async def record(message) -> None:
        if isinstance(message, Exception):  # a line the client could not parse
            errors.append(message)

    async def scenario() -> list[str]:
        answers = []
        params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        with (tmp_path / "stderr.txt").open("w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write, message_handler=record) as session:
                await session.initialize()
                for newline in (False, True):
                    for writer in writers:
                        result = await session.call_tool("noisy", {"writer": writer, "newline": newline},
                                                         read_timeout_seconds=timedelta(seconds=10))
                        assert result.isError is False, result
                        answers.append(json.loads(result.content[0].text))
                added = await session.call_tool("add", {"a": 40, "b": 2}, read_timeout_seconds=timedelta(seconds=10))
                answers.append(added.content[0].text)
        return answers

    assert asyncio.run(scenario()) == [*writers, *writers, "42"]
    assert errors == []
    stderr = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    for writer in ("import", *writers):
        assert f"noise-{writer}" in stderr, (writer, stderr)


def test_protocol_stdout_moves_descriptor_1_to_stderr_and_back(tmp_path):
    import subprocess
    import sys

    script = """\
import os, subprocess, sys
from dispatchguard.mcp.stdio import protocol_stdout
print("before", flush=True)
with protocol_stdout() as protocol:
    print("inside-print", end="")
    os.write(1, b"inside-fd")
    subprocess.run([sys.executable, "-c", "print('inside-child', end='')"], check=True)
    protocol.write(b"protocol-line\\n")
    protocol.flush()
print("after", flush=True)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, check=True)
    assert done.stdout == b"before\nprotocol-line\nafter\n"
    assert b"inside-print" in done.stderr and b"inside-fd" in done.stderr and b"inside-child" in done.stderr
