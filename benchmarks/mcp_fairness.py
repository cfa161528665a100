"""One greedy client against ``dispatchguard mcp --transport http``: what the other clients get.

The greedy client (from 127.0.0.2) calls a sync tool that blocks ``--block`` seconds, 8 times at
once (the process's sync-tool threads: ``MAX_STRANDED_THREADS``), and again whenever a call
returns. Meanwhile another client (127.0.0.1) calls the sync ``add`` ``--calls`` times in a row.
Reported: the other client's answers (ok, ``overloaded``, ``timeout``) and latencies (median,
worst), and the greedy client's answers. The server runs with ``--tool-timeout 2``.

``--src`` runs another checkout's ``src`` (before/after).

Usage: python benchmarks/mcp_fairness.py [--calls 20] [--block 4] [--src PATH] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADERS = {"Accept": "application/json", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}


def body(request_id: int, tool: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def outcome(response) -> str:
    text = response.json()["result"]["content"][0]["text"]
    value = json.loads(text)
    return value["kind"] if isinstance(value, dict) and "kind" in value else "ok"


async def scenario(url: str, calls: int, block: float) -> dict:
    import httpx

    greedy_answers: dict[str, int] = {}
    other_answers: dict[str, int] = {}
    latencies: list[float] = []
    done = asyncio.Event()

    async def greedy_worker(client: httpx.AsyncClient, n: int) -> None:
        while not done.is_set():
            kind = outcome(await client.post(url, json=body(n, "sleepy", {"seconds": block}), headers=HEADERS))
            greedy_answers[kind] = greedy_answers.get(kind, 0) + 1
            if kind != "ok":
                await asyncio.sleep(0.05)  # a retrying client, not a busy loop

    greedy = httpx.AsyncClient(timeout=60, transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2"))
    async with greedy, httpx.AsyncClient(timeout=60) as other:
        workers = [asyncio.ensure_future(greedy_worker(greedy, n)) for n in range(8)]
        await asyncio.sleep(0.5)  # the greedy calls are running
        for n in range(calls):
            started = time.perf_counter()
            kind = outcome(await other.post(url, json=body(1000 + n, "add", {"a": n, "b": 1}), headers=HEADERS))
            latencies.append(time.perf_counter() - started)
            other_answers[kind] = other_answers.get(kind, 0) + 1
        done.set()
        await asyncio.gather(*workers)
    return {"other_client": {"answers": other_answers, "p50_ms": round(statistics.median(latencies) * 1000, 1),
                             "max_ms": round(max(latencies) * 1000, 1)},
            "greedy_client": {"answers": greedy_answers}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--block", type=float, default=4.0)
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from chat_load import free_port, service_ready, wait_until

    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(opts.src.resolve())]))
    server = subprocess.Popen([sys.executable, "-m", "dispatchguard", "mcp", "--registry", "mcp_overhead:TOOLS",
                               "--transport", "http", "--port", str(port), "--json-response", "--tool-timeout", "2",
                               "--log-level", "error"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: service_ready(f"http://127.0.0.1:{port}"), 60, "the MCP server")
        report = asyncio.run(scenario(f"http://127.0.0.1:{port}/mcp", opts.calls, opts.block))
    finally:
        server.terminate()
        server.wait(timeout=30)
    report.update(src=str(opts.src), block_s=opts.block, load_average=[round(x, 2) for x in os.getloadavg()])
    if opts.json:
        print(json.dumps(report, indent=2))
        return 0
    other = report["other_client"]
    print(f"greedy client: 8 concurrent calls blocking {opts.block:g}s each, repeated (src {opts.src})")
    print(f"  other client, {opts.calls} calls of add: {other['answers']}, p50 {other['p50_ms']} ms, "
          f"max {other['max_ms']} ms")
    print(f"  greedy client's answers: {report['greedy_client']['answers']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
