"""`dispatchguard mcp`: clear errors with exit 2, and real servers over stdio and HTTP workers."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time

import httpx
import pytest

from dispatchguard.cli.main import main


@pytest.mark.parametrize(("argv", "message"), [
    (["--registry", "no_such_module:X"], "--registry no_such_module:X: cannot import 'no_such_module'"),
    (["--registry", "served_tools"], "--registry must look like module:attribute, got 'served_tools'"),
    (["--registry", "served_tools:MISSING"], "'served_tools' has no attribute 'MISSING'"),
    (["--registry", "served_tools:NOT_A_REGISTRY"], "expected a ToolRegistry, got dict"),
    (["--registry", "served_tools:TOOLS", "--workers", "2"], "--workers needs --transport http"),
    (["--registry", "served_tools:TOOLS", "--transport", "http", "--path", "mcp"], "path must start with '/'"),
])
def test_bad_settings_are_one_line_and_exit_2(served, capsys, argv, message):
    assert main(["mcp", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dispatchguard: error: ") and message in err
    assert err.count("\n") == 1


def test_missing_sdk_names_the_extra(served, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp.server.lowlevel", None)
    assert main(["mcp", "--registry", "served_tools:TOOLS"]) == 2
    assert "pip install 'dispatchguard[mcp]'" in capsys.readouterr().err


def test_options_are_checked_by_the_parser(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["mcp", "--registry", "served_tools:TOOLS", "--tool-timeout", "0"])
    assert stop.value.code == 2
    assert "must be positive, got 0" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_http_workers_each_answer_statelessly(stdio_command, server_env, sdk_http):
    port = free_port()
    process = subprocess.Popen(
        [*stdio_command("--transport", "http", "--port", str(port), "--workers", "2")],
        env=server_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.stderr.read().decode(errors="replace")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)

        async def one_client() -> set[int]:
            async with sdk_http(url) as (session, _):
                answers = await asyncio.gather(*(session.call_tool("pid", {"pause": 0.2}) for _ in range(4)))
            assert not any(answer.isError for answer in answers)
            return {int(answer.content[0].text) for answer in answers}

        async def clients() -> set[int]:
            seen: set[int] = set()
            for _ in range(5):  # each POST is its own connection: the kernel spreads them over both workers
                for pids in await asyncio.gather(*(one_client() for _ in range(3))):
                    seen |= pids
                if len(seen) == 2:
                    break
            return seen

        assert len(asyncio.run(clients())) == 2
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()


def test_the_command_line_reads_its_options_without_the_sdk():
    code = ("import sys\nfrom dispatchguard.cli.main import build_parser\nbuild_parser()\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'anyio', 'starlette', 'pydantic'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
