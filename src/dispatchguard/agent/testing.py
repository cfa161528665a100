"""A scripted OpenAI-compatible model server, for testing agent code without a model.

:class:`ScriptedLLMServer` listens on ``127.0.0.1`` (a free port by default) and answers
``POST /v1/chat/completions`` from a script: each request takes the next entry. It records every
request body it got, so a test can assert on the prompts the agent sent::

    with ScriptedLLMServer(['{"name": "add", "args": {"a": 1, "b": 2}}', "It is 3."]) as server:
        llm = OpenAICompatibleLLM(base_url=server.base_url, model="scripted")
        result = run_tool_loop(llm, "What is 1 + 2?", registry=registry)
    assert server.requests[1]["messages"][-1]["content"].startswith("Tool 1 [add]:")

A script entry is the assistant's text, a :class:`ScriptedReply` (another status, a raw body, a
delay before answering) or a callable that receives the request body and returns one of those.
When the script is exhausted the server answers ``default`` if given, else HTTP 500 with an error
that says so (a test that expected fewer model calls fails loudly).

Only the standard library is used: the server runs in a daemon thread of the calling process.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ScriptEntry", "ScriptedLLMServer", "ScriptedReply"]


@dataclass(frozen=True)
class ScriptedReply:
    """One scripted answer: assistant ``content`` in a completion, or a raw ``body`` and ``status``."""

    content: str | None = None
    status: int = 200
    body: str | None = None
    delay: float = 0.0


ScriptEntry = str | ScriptedReply | Callable[[dict[str, Any]], str | ScriptedReply]


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class ScriptedLLMServer:
    """OpenAI-compatible ``/v1/chat/completions`` answering from a per-test script."""

    def __init__(
        self,
        script: Iterable[ScriptEntry] = (),
        *,
        default: ScriptEntry | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self._lock = threading.Lock()
        self._script: list[ScriptEntry] = list(script)
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- script -------------------------------------------------------------------------------
    def set_script(self, script: Iterable[ScriptEntry], *, default: ScriptEntry | None = None) -> None:
        """Replace the script and the default; forget the recorded requests."""
        with self._lock:
            self._script = list(script)
            self.default = default
            self.requests.clear()
            self.headers.clear()

    @property
    def remaining(self) -> int:
        """Script entries not consumed yet."""
        with self._lock:
            return len(self._script)

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> ScriptedReply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            entry = self._script.pop(0) if self._script else self.default
        if entry is None:
            return ScriptedReply(status=500, body=json.dumps({"error": {"message": "script exhausted"}}))
        if callable(entry):
            entry = entry(body)
        return ScriptedReply(content=entry) if isinstance(entry, str) else entry

    # -- server -------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ending in ``/v1``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ScriptedLLMServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                name="scripted-llm", daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ScriptedLLMServer:  # noqa: PYI034 - Self needs Python 3.11
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, body: str) -> None:
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, json.dumps({"object": "list", "data": [{"id": "scripted"}]}))
                else:
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(400, json.dumps({"error": {"message": "request body is not JSON"}}))
                    return
                reply = server._next(body, {k.lower(): v for k, v in self.headers.items()})
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.body is not None:
                    self._send(reply.status, reply.body)
                else:
                    content = _completion(reply.content or "", str(body.get("model", "scripted")))
                    self._send(reply.status, json.dumps(content))

        return Handler
