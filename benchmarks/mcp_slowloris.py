"""Slowloris against ``dispatchguard mcp --transport http``: how many dripping connections the
server holds, and what a normal client sees meanwhile.

The server runs in a subprocess with a low file-descriptor limit (``--nofile``, default 256).
``--attackers`` connections (default 260) from 127.0.0.2 each send a POST's headers announcing a
100 kB body, then drip one byte of it every ``--drip`` seconds (a tenth of them drip the headers
instead) for ``--seconds``. Meanwhile a normal client on 127.0.0.1 makes sequential ``tools/call``
requests of ``add``, each on a fresh connection (5 s timeout). Reported: the attackers' connections
the server held open (the most at once, sampled every 0.1 s, and at the end), the answers the
attackers got (429, 408, 503; ``none`` when the server said nothing; ``reset`` when the connection
failed before an answer was read), and the normal client's calls: how many succeeded, failed
(and why), the median and worst latency.

``--src`` runs another checkout's ``src`` (for a before/after comparison); the server's own options
(``--server-option=--body-timeout=2``) pass through.

Usage: python benchmarks/mcp_slowloris.py [--attackers 260] [--nofile 256] [--seconds 12]
       [--drip 0.5] [--src PATH] [--server-option OPTION ...] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}).encode()
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2025-06-18"}


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(port: int, src: Path, nofile: int, options: list[str]) -> subprocess.Popen:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(src)]))
    argv = [sys.executable, "-m", "dispatchguard", "mcp", "--registry", "mcp_overhead:TOOLS", "--transport", "http",
            "--port", str(port), "--log-level", "error", *options]
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit)


async def wait_ready(port: int, process: subprocess.Popen) -> None:
    import httpx

    deadline = time.monotonic() + 60
    async with httpx.AsyncClient(timeout=1) as client:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited ({process.returncode})")
            try:
                if (await client.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            await asyncio.sleep(0.1)


class Attacker:
    """One dripping connection: ``open`` while the server keeps it; ``answer`` is the status the
    server sent (``None``: none)."""

    def __init__(self) -> None:
        self.open = False
        self.answer: int | None = None

    async def run(self, port: int, drip: float, until: float, headers_only: bool) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
        except OSError:
            return
        self.open = True
        answered: asyncio.Future[bytes] | None = None
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n").encode()
        pending = head if headers_only else head + b"\r\n"
        try:
            if not headers_only:
                writer.write(pending)
                pending = b"x" * 100000
            answered = asyncio.ensure_future(reader.read(1024))
            while time.monotonic() < until and not answered.done():
                writer.write(pending[:1])
                pending = pending[1:] or b"x"
                await writer.drain()
                await asyncio.wait([answered], timeout=drip)
            data = await asyncio.wait_for(answered, timeout=max(until - time.monotonic(), 0) + 3)
            if data.startswith(b"HTTP/1.1 "):
                self.answer = int(data[9:12])
            if data:
                await asyncio.wait_for(reader.read(), timeout=5)  # until the server closes
        except (OSError, asyncio.TimeoutError):
            if self.answer is None:
                self.answer = -1  # reset: no answer read (our own write may have failed first)
        finally:
            if answered is not None and answered.done() and not answered.cancelled():
                answered.exception()  # retrieved: no "never retrieved" warning
            elif answered is not None:
                answered.cancel()
            self.open = False
            writer.close()


async def normal_client(port: int, until: float) -> dict:
    import httpx

    latencies: list[float] = []
    failures: dict[str, int] = {}
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=5, limits=limits) as client:
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                response = await client.post(f"http://127.0.0.1:{port}/mcp", content=BODY, headers=HEADERS)
                ok = response.status_code == 200 and '"text":"3"' in response.text.replace(" ", "")
                key = "ok" if ok else f"status {response.status_code}"
            except httpx.HTTPError as exc:
                key = type(exc).__name__
            latencies.append(time.perf_counter() - started)
            if key != "ok":
                failures[key] = failures.get(key, 0) + 1
            await asyncio.sleep(0.05)
    ok_count = len(latencies) - sum(failures.values())
    return {"calls": len(latencies), "ok": ok_count, "failures": failures,
            "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
            "max_ms": round(max(latencies) * 1000, 1) if latencies else None}


async def scenario(port: int, opts: argparse.Namespace) -> dict:
    until = time.monotonic() + opts.seconds
    attackers = [Attacker() for _ in range(opts.attackers)]
    tasks = [asyncio.ensure_future(a.run(port, opts.drip, until, headers_only=n % 10 == 9))
             for n, a in enumerate(attackers)]
    held_most = 0

    async def sample() -> None:
        nonlocal held_most
        while time.monotonic() < until:
            held_most = max(held_most, sum(a.open for a in attackers))
            await asyncio.sleep(0.1)

    await asyncio.sleep(0.5)  # the attackers connect first
    normal, _ = await asyncio.gather(normal_client(port, until), sample())
    held_at_end = sum(a.open for a in attackers)
    await asyncio.gather(*tasks)
    answers: dict[str, int] = {}
    for a in attackers:
        key = {None: "none", -1: "reset"}.get(a.answer, str(a.answer))
        answers[key] = answers.get(key, 0) + 1
    return {"attackers": opts.attackers, "held_most": held_most, "held_at_end": held_at_end,
            "attacker_answers": dict(sorted(answers.items())), "normal_client": normal}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attackers", type=int, default=260)
    parser.add_argument("--nofile", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--drip", type=float, default=0.5)
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--server-option", action="append", default=[])
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()

    port = free_port()
    server = start_server(port, opts.src.resolve(), opts.nofile, opts.server_option)
    try:
        asyncio.run(wait_ready(port, server))
        report = asyncio.run(scenario(port, opts))
        report["server_alive_after"] = server.poll() is None
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    report.update(src=str(opts.src), nofile=opts.nofile, seconds=opts.seconds, drip=opts.drip,
                  server_options=opts.server_option, load_average=[round(x, 2) for x in os.getloadavg()])
    if opts.json:
        print(json.dumps(report, indent=2))
        return 0
    normal = report["normal_client"]
    print(f"{opts.attackers} dripping connections against a server limited to {opts.nofile} descriptors, "
          f"{opts.seconds:g}s (src {opts.src}, options {opts.server_option or 'default'}):")
    print(f"  attacker connections held: at most {report['held_most']} at once, {report['held_at_end']} at the end; "
          f"answers {report['attacker_answers']}")
    print(f"  normal client: {normal['ok']} of {normal['calls']} calls ok, failures {normal['failures'] or 0}, "
          f"p50 {normal['p50_ms']} ms, max {normal['max_ms']} ms; server alive after: {report['server_alive_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
