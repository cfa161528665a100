"""End to end through a real OTLP/HTTP receiver: Arize Phoenix (``make otel-receiver`` installs it
in ``.venv-phoenix``), started by the test. One /chat request of an application process runs the
agent loop, whose tool is served by ``dispatchguard mcp`` in a second process; both export with
the OpenTelemetry SDK's OTLP/HTTP exporter, and the test reads the spans back from Phoenix's REST
API and checks that they form one trace:

    POST /chat (FastAPI's span) -> invoke_agent -> chat scripted, execute_tool calc_add ->
    tools/call add (CLIENT) -> tools/call add (SERVER, in dispatchguard mcp) -> execute_tool add
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PHOENIX = ROOT / ".venv-phoenix" / "bin" / "phoenix"
E2E = Path(__file__).parent / "e2e"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    """A running Phoenix on 127.0.0.1; yields its base URL."""
    if not PHOENIX.exists():
        pytest.skip("Phoenix is not installed: `make otel-receiver` puts it in .venv-phoenix")
    port = free_port()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path_factory.mktemp("phoenix-home")),
           "PHOENIX_WORKING_DIR": str(tmp_path_factory.mktemp("phoenix")), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_PORT": str(port), "PHOENIX_GRPC_PORT": str(free_port()),
           "PHOENIX_TELEMETRY_ENABLED": "false"}
    process = subprocess.Popen([str(PHOENIX), "serve"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    ready = threading.Event()
    lines: list[str] = []

    def read() -> None:  # uvicorn says when it listens: that line is the event
        for line in process.stdout:
            lines.append(line)
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not ready.wait(120) or process.poll() is not None:
            pytest.fail("Phoenix did not start:\n" + "".join(lines[-20:]))
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


EXPECTED = ["invoke_agent", "chat scripted", "execute_tool calc_add", "tools/call add", "tools/call add",
            "execute_tool add", "chat scripted"]


def received(base: str, project: str) -> list[dict]:
    """The project's spans once Phoenix has stored the request's span and the run's (it ingests
    in the background: the condition is polled, for at most 30 s)."""
    deadline = time.monotonic() + 30
    spans: list[dict] = []
    while time.monotonic() < deadline:
        answer = httpx.get(f"{base}/v1/projects/{project}/spans", params={"limit": 100}, timeout=10)
        if answer.status_code == 200:
            spans = answer.json()["data"]
            names = [span["name"] for span in spans]
            if "POST /chat" in names and all(names.count(name) >= EXPECTED.count(name) for name in EXPECTED):
                return spans
        time.sleep(0.2)
    return spans


def tree(spans: list[dict], root: dict) -> list[str]:
    """``root`` and the spans under it as an indented tree (children in start order): what the
    closing note quotes."""
    children: dict[str, list[dict]] = {}
    for span in spans:
        children.setdefault(span["parent_id"], []).append(span)
    lines: list[str] = []

    def walk(span: dict, depth: int) -> None:
        lines.append("  " * depth + span["name"])
        for child in sorted(children.get(span["context"]["span_id"], []), key=lambda s: s["start_time"]):
            walk(child, depth + 1)

    walk(root, 0)
    return lines


def test_a_chat_request_is_one_trace_across_the_mcp_server(phoenix):
    project = f"dg-e2e-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DG_OTLP_ENDPOINT": f"{phoenix}/v1/traces", "DG_OTLP_PROJECT": project,
           "PYTHONPATH": str(E2E)}
    run = subprocess.run([sys.executable, str(E2E / "chat_app.py")], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    assert answer["status"] == 200 and answer["body"]["tools_used"] == ["calc_add"]

    spans = received(phoenix, project)
    roots = [span for span in spans if span["parent_id"] is None]
    assert [root["name"] for root in roots] == ["POST /chat"]
    print("\n".join(tree(spans, roots[0])))
    # FastAPI's native telemetry (on with a global tracer provider) records the request's SERVER
    # span, with fastapi.* spans as its version has them: the run goes under it
    agent = next(span for span in spans if span["name"] == "invoke_agent")
    assert tree(spans, agent) == [
        "invoke_agent",
        "  chat scripted",
        "  execute_tool calc_add",
        "    tools/call add",
        "      tools/call add",
        "        execute_tool add",
        "  chat scripted",
    ]
    assert len({span["context"]["trace_id"] for span in spans}) == 1
    by_name = {span["name"]: span for span in spans}
    assert by_name["execute_tool calc_add"]["attributes"]["gen_ai.tool.call.id"] == "call_e2e"
    assert by_name["execute_tool add"]["attributes"]["gen_ai.tool.name"] == "add"
