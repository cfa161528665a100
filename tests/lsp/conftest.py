"""An editor's side of the Language Server Protocol: the real `dispatchguard lsp` in a subprocess,
spoken to in JSON-RPC over its standard input and output."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


class Editor:
    def __init__(self, cwd: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dispatchguard", "lsp", *args],
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            headers: dict[str, str] = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any] | None, timeout: float = 60) -> Any:
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        message = self.wait(lambda m: m.get("id") == ident and "method" not in m, timeout)
        assert "error" not in message, message
        return message["result"]

    def wait(self, match: Any, timeout: float = 60) -> dict[str, Any]:
        """The next message that ``match`` accepts (earlier other messages are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no matching message from the server")
            message = self.messages.get(timeout=left)
            if match(message):
                return message

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 60) -> list[dict[str, Any]]:
        def match(m: dict[str, Any]) -> bool:
            params = m.get("params") or {}
            return (
                m.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == uri
                and (version is None or params.get("version") == version)
            )

        return self.wait(match, timeout)["params"]["diagnostics"]

    def initialize(self, root: Path, encodings: tuple[str, ...] = ("utf-16",)) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "capabilities": {"general": {"positionEncodings": list(encodings)}},
            },
        )
        self.notify("initialized", {})
        return result

    def close(self) -> int:
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)  # type: ignore[arg-type]
            except (AssertionError, OSError):
                pass
            try:
                return self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture
def editor_factory() -> Iterator[Any]:
    editors: list[Editor] = []

    def start(cwd: Path, *args: str) -> Editor:
        editor = Editor(cwd, *args)
        editors.append(editor)
        return editor

    yield start
    for editor in editors:
        editor.close()
