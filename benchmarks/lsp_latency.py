"""How long does an editor wait for diagnostics from ``dispatchguard lsp`` on a large project?

The project is a copy of the langchain-community 0.4.2 tree of ``benchmarks/lint_speed.py``
(``benchmarks/.data/langchain-community-0.4.2``, about 2 000 files; run ``lint_speed.py`` once to
download it), in a temporary directory so that no ``.dispatchguard_cache`` is there unless asked.
The real server runs in a subprocess and is spoken to over stdio as an editor does (initialize,
initialized, didOpen, didChange, shutdown, exit); the buffer is ``--file`` (default: the OpenAPI
agent planner, which has 7 findings and leads to many of the tree's modules), sent as an unsaved
buffer with one line added.

Three measures, each the median of ``--repeats`` (wall time from the notification to the
``publishDiagnostics`` for it, and the server's CPU time, user + sys from /proc, over that span):

- **cold**: a new server's first ``didOpen`` (it lists the project's files, reads its settings and
  loads the modules the buffer leads to, parsing them) with no ``dispatchguard check`` cache;
- **cold, CLI cache**: the same after a ``dispatchguard check`` of the tree wrote its cache (module
  summaries are taken from it instead of parsing);
- **warm**: a ``didChange`` of the open buffer in a running server (an edit while typing).

The server's start (spawn to the ``initialize`` result: the interpreter, pygls) is printed apart.
CPU times come from /proc in clock ticks (10 ms on most kernels): read them as such.

Usage (with the project's venv)::

    .venv/bin/python benchmarks/lsp_latency.py                    # 5 repeats
    .venv/bin/python benchmarks/lsp_latency.py --repeats 3 --file langchain_community/agent_toolkits/load_tools.py
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TREE = Path(__file__).resolve().parent / ".data" / "langchain-community-0.4.2"
DEFAULT_FILE = "langchain_community/agent_toolkits/openapi/planner.py"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Server:
    """The real ``dispatchguard lsp`` and the editor's half of the protocol (blocking reads)."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dispatchguard", "lsp"],
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        stream = self.process.stdout
        assert stream is not None
        length = 0
        while True:
            line = stream.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        return json.loads(stream.read(length))

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message.get("result")

    def diagnostics(self, uri: str, version: int) -> list[Any]:
        while True:
            message = self.receive()
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params.get("uri") == uri:
                if params.get("version") == version:
                    return params["diagnostics"]

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def initialize(self, root: Path) -> None:
        params = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}}
        self.request("initialize", params)
        self.send({"method": "initialized", "params": {}})

    def timed(self, method: str, params: dict[str, Any], uri: str, version: int) -> tuple[float, float, int]:
        cpu, start = self.cpu(), time.perf_counter()
        self.send({"method": method, "params": params})
        found = self.diagnostics(uri, version)
        return time.perf_counter() - start, self.cpu() - cpu, len(found)

    def close(self) -> None:
        self.request("shutdown", None)
        self.send({"method": "exit", "params": None})
        self.process.wait(timeout=30)


def open_params(uri: str, text: str) -> dict[str, Any]:
    return {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}


def change_params(uri: str, version: int, text: str) -> dict[str, Any]:
    return {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}


STARTUPS: list[float] = []


def cold(root: Path, rel: str, text: str) -> tuple[float, float, int]:
    start = time.perf_counter()
    server = Server(root)
    try:
        server.initialize(root)
        STARTUPS.append(time.perf_counter() - start)
        uri = (root / rel).as_uri()
        return server.timed("textDocument/didOpen", open_params(uri, text), uri, 1)
    finally:
        server.close()


def warm(root: Path, rel: str, text: str, repeats: int) -> list[tuple[float, float, int]]:
    server = Server(root)
    try:
        server.initialize(root)
        uri = (root / rel).as_uri()
        server.timed("textDocument/didOpen", open_params(uri, text), uri, 1)
        out = []
        for version in range(2, repeats + 2):
            edited = text + f"\nvalue_{version} = {version}\n"
            out.append(server.timed("textDocument/didChange", change_params(uri, version, edited), uri, version))
        return out
    finally:
        server.close()


def median(samples: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    return (
        statistics.median(s[0] for s in samples),
        statistics.median(s[1] for s in samples),
        samples[-1][2],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--file", default=DEFAULT_FILE, help="the buffer, relative to the tree")
    args = parser.parse_args(argv)
    if not TREE.is_dir():
        print(f"{TREE} is missing: run benchmarks/lint_speed.py --trees langchain-community once", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="dg-lsp-") as temp:
        root = Path(temp) / TREE.name
        shutil.copytree(TREE, root, ignore=shutil.ignore_patterns(".dispatchguard_cache"))
        files = sum(1 for _ in root.rglob("*.py"))
        text = (root / args.file).read_text(encoding="utf-8") + "\nfrom langchain_community.tools import BaseTool\n"
        results = {"cold": median([cold(root, args.file, text) for _ in range(args.repeats)])}
        subprocess.run(
            [sys.executable, "-m", "dispatchguard", "check", "--exit-zero", "--statistics"],
            cwd=root, capture_output=True, check=True,
        )  # fmt: skip
        results["cold, CLI cache"] = median([cold(root, args.file, text) for _ in range(args.repeats)])
        results["warm (didChange)"] = median(warm(root, args.file, text, args.repeats))
    print(f"{TREE.name}: {files} files; buffer {args.file}; median of {args.repeats}")
    print(f"server start (spawn to initialize result): {statistics.median(STARTUPS) * 1000:.0f} ms wall")
    print(f"{'':18} {'wall ms':>9} {'server CPU ms':>14} {'diagnostics':>12}")
    for name, (wall, cpu, count) in results.items():
        print(f"{name:18} {wall * 1000:9.0f} {cpu * 1000:14.0f} {count:12d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
