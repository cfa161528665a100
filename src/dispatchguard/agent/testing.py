"""A scripted model server speaking the OpenAI and Anthropic wire formats, for testing agent code
without a model.

:class:`ScriptedLLMServer` listens on ``127.0.0.1`` (a free port by default) and answers
``POST /v1/chat/completions`` (OpenAI-compatible) and ``POST /v1/messages`` (Anthropic Messages
API) from one script: each request takes the next entry and gets it in the format of the route it
came to. It records every request body (and its path), so a test can assert on what the agent sent::

    with ScriptedLLMServer([ScriptedReply(tool_calls=[ScriptedToolCall("add", {"a": 1, "b": 2})]),
                            "It is 3."]) as server:
        llm = OpenAICompatibleLLM(base_url=server.base_url, model="scripted")
        result = run_tool_loop(llm, "What is 1 + 2?", registry=registry)
    assert server.requests[1]["messages"][-1]["role"] == "tool"

A script entry is the assistant's text, a :class:`ScriptedReply` (native tool calls, list content,
another status, a raw body, a delay before answering) or a callable that receives the request body
and returns one of those. When the script is exhausted the server answers ``default`` if given,
else HTTP 500 with an error that says so (a test that expected fewer model calls fails loudly).
``base_url`` is the OpenAI-style URL (``.../v1``); ``root_url`` the Anthropic-style API root.

Only the standard library is used: the server runs in a daemon thread of the calling process.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ScriptEntry", "ScriptedLLMServer", "ScriptedReply", "ScriptedToolCall"]


@dataclass(frozen=True)
class ScriptedToolCall:
    """A native tool call in a scripted reply. ``arguments`` is an object, or (to script a model
    that writes broken JSON) raw text; ``id`` is generated when not given."""

    name: str
    arguments: Any = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class ScriptedReply:
    """One scripted answer: assistant ``content`` (text, or a list of text parts/blocks) and native
    ``tool_calls``, or a raw ``body`` and ``status``; ``delay`` seconds before answering."""

    content: str | list[dict[str, Any]] | None = None
    status: int = 200
    body: str | None = None
    delay: float = 0.0
    tool_calls: Sequence[ScriptedToolCall] = ()


ScriptEntry = str | ScriptedReply | Callable[[dict[str, Any]], str | ScriptedReply]


def _arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _completion(reply: ScriptedReply, model: str, ids: list[str]) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object; tool calls get ``content: null``, like real servers."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function",
             "function": {"name": call.name, "arguments": _arguments_text(call.arguments)}}
            for call, call_id in zip(reply.tool_calls, ids, strict=True)
        ]
    elif message["content"] is None:
        message["content"] = ""
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _anthropic_message(reply: ScriptedReply, model: str, ids: list[str]) -> dict[str, Any]:
    """An Anthropic ``message`` object: text blocks, then one ``tool_use`` block per call."""
    if isinstance(reply.content, list):
        blocks: list[dict[str, Any]] = list(reply.content)
    else:
        blocks = [{"type": "text", "text": reply.content}] if reply.content else []
    for call, call_id in zip(reply.tool_calls, ids, strict=True):
        arguments = call.arguments
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass  # a scripted malformed input goes out as it is
        blocks.append({"type": "tool_use", "id": call_id, "name": call.name, "input": arguments})
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


class _HTTPServer(ThreadingHTTPServer):
    # socketserver's default backlog of 5 drops connections under load (clients then wait for a
    # 1 s SYN retransmit), which would show up as the model's latency in load tests.
    request_queue_size = 256


ROUTES = {"/v1/chat/completions": (_completion, "call_"), "/v1/messages": (_anthropic_message, "toolu_")}


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
        self.paths: list[str] = []
        self._calls = 0
        self._httpd = _HTTPServer((host, port), self._handler_class())
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
            self.paths.clear()

    @property
    def remaining(self) -> int:
        """Script entries not consumed yet."""
        with self._lock:
            return len(self._script)

    def _call_ids(self, prefix: str, calls: Sequence[ScriptedToolCall]) -> list[str]:
        with self._lock:
            ids = []
            for call in calls:
                self._calls += 1
                ids.append(call.id or f"{prefix}{self._calls}")
            return ids

    def _next(self, body: dict[str, Any], headers: dict[str, str], path: str) -> ScriptedReply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.paths.append(path)
            entry = self._script.pop(0) if self._script else self.default
        if entry is None:
            return ScriptedReply(status=500, body=json.dumps({"error": {"message": "script exhausted"}}))
        if callable(entry):
            entry = entry(body)
        return ScriptedReply(content=entry) if isinstance(entry, str) else entry

    # -- server -------------------------------------------------------------------------------
    @property
    def root_url(self) -> str:
        """The API root (``http://127.0.0.1:PORT``): Anthropic-style clients add ``/v1/messages``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ending in ``/v1``."""
        return self.root_url + "/v1"

    def start(self) -> ScriptedLLMServer:
        """Serve in a daemon thread (a no-op if already serving) and return the server."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                name="scripted-llm", daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket; the server cannot be started again."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ScriptedLLMServer:  # not typing.Self: that needs Python 3.11
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
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a cancel)
                    self.close_connection = True

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, json.dumps({"object": "list", "data": [{"id": "scripted"}]}))
                else:
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = self.path.rstrip("/")
                if path not in ROUTES:
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(400, json.dumps({"error": {"message": "request body is not JSON"}}))
                    return
                reply = server._next(body, {k.lower(): v for k, v in self.headers.items()}, path)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.body is not None:
                    self._send(reply.status, reply.body)
                    return
                render, prefix = ROUTES[path]
                ids = server._call_ids(prefix, reply.tool_calls)
                self._send(reply.status, json.dumps(render(reply, str(body.get("model", "scripted")), ids)))

        return Handler
