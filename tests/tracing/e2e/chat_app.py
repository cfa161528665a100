"""The end-to-end tracing test's application: the /chat service on a real uvicorn, a scripted
model that asks for one tool, and that tool served by ``dispatchguard mcp`` over stdio (a second
process). It sends one /chat request and prints the answer as JSON; its spans, and the MCP
server's, go to the OTLP/HTTP endpoint the test started.

Usage: python chat_app.py  (DG_OTLP_ENDPOINT, DG_OTLP_PROJECT set)
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

from otel_setup import setup

HERE = Path(__file__).parent


def main() -> int:
    provider = setup("dispatchguard-chat")
    import httpx
    import uvicorn

    from dispatchguard import ToolRegistry
    from dispatchguard.agent import OpenAICompatibleLLM
    from dispatchguard.agent.testing import ScriptedLLMServer, ScriptedReply, ScriptedToolCall
    from dispatchguard.mcp import McpClient
    from dispatchguard.server import create_app

    dispatchguard_cli = str(Path(sys.executable).with_name("dispatchguard"))
    env = {key: os.environ[key] for key in ("PATH", "DG_OTLP_ENDPOINT", "DG_OTLP_PROJECT") if key in os.environ}
    env["PYTHONPATH"] = str(HERE)
    registry = ToolRegistry()
    script = [ScriptedReply(tool_calls=[ScriptedToolCall("calc_add", {"a": 2, "b": 40}, id="call_e2e")]),
              "42 [source:calc_add]"]
    with ScriptedLLMServer(script) as model, \
            McpClient(command=[dispatchguard_cli, "mcp", "--registry", "traced_tools:TOOLS"], env=env,
                      name="calc") as client:
        client.register(registry, prefix="calc_")
        llm = OpenAICompatibleLLM(base_url=model.base_url, model="scripted")
        server = uvicorn.Server(uvicorn.Config(create_app(registry, llm), log_level="warning"))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:  # as the suite's `serve` fixture: uvicorn offers no event to wait on
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        answer = httpx.post(f"http://127.0.0.1:{sock.getsockname()[1]}/chat",
                            json={"message": "2 + 40?", "mode": "agent"}, timeout=60)
        server.should_exit = True
        thread.join(10)
    provider.shutdown()
    print(json.dumps({"status": answer.status_code, "body": answer.json()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
