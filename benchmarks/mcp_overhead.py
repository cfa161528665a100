"""What MCP costs on top of the dispatcher, and how ``dispatchguard mcp --transport http`` holds load.

1. **Overhead per call.** ``tools/call`` of a trivial ``add`` through the official SDK's client
   against ``dispatchguard mcp`` over stdio and over streamable HTTP (each a subprocess on
   127.0.0.1), next to ``adispatch_tool`` in this process, in the same run. CPU time (user+sys) of
   the client *and* the server process per call, median of ``--runs`` runs of ``--calls``
   sequential calls; the wall time per call beside it. ``add`` is a sync tool (the server runs it
   in one of ``execute_tool``'s threads), ``aadd`` its async twin (run on the server's loop). The
   ``--json-response`` row answers each POST with one JSON body instead of an SSE stream. The
   last row is our own ``McpClient`` (a registry's tool over stdio: ``dispatch_tool`` -> the
   client's background loop -> the server).
2. **Load.** The HTTP server with 1 and 4 uvicorn workers, loopback only, bounded in count
   (``--requests``) and time (``--max-seconds``): raw ``tools/call`` POSTs (stateless: no
   ``initialize``) from ``--concurrency`` asyncio workers; every 25th request is hostile instead
   (bodies that are not JSON, nested 5000 deep, not UTF-8, an unknown method, 2 MB arguments, a
   cancel for nothing, a client that drops the stream mid-call) while one official SDK client
   session keeps calling alongside. Reported: requests/s, p50/p99, errors of the ordinary calls,
   5xx answers to the hostile ones, exceptions the official client saw (protocol violations), the
   server's peak RSS (all its processes, sampled every 50 ms) and its CPU time. The load client
   shares the machine's cores with the server.

``--only stdio`` measures the in-process and stdio rows alone (no HTTP server, no load).

Usage: python benchmarks/mcp_overhead.py [--calls 1000] [--runs 7] [--requests 3000]
       [--concurrency 16] [--workers 1 4] [--max-seconds 30] [--only stdio] [--json]
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
sys.path.insert(0, str(HERE.parent / "src"))

from chat_load import TreeSampler, free_port, process_tree, service_ready, wait_until  # noqa: E402

from dispatchguard import ToolRegistry  # noqa: E402

TOOLS = ToolRegistry()


@TOOLS.tool(parallel_safe=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@TOOLS.tool(parallel_safe=True)
async def aadd(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    return a + b


@TOOLS.tool
def sleepy(seconds: float) -> str:
    """Block a sync tool thread (mcp_fairness.py's greedy client)."""
    time.sleep(seconds)
    return "slept"


@TOOLS.tool
async def nap(seconds: float) -> str:
    """Sleep (the hostile client drops its stream while this runs)."""
    await asyncio.sleep(seconds)
    return "rested"


def server_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(HERE.parent / "src")]))


def server_argv(*options: str) -> list[str]:
    return [sys.executable, "-m", "dispatchguard", "mcp", "--registry", "mcp_overhead:TOOLS",
            "--log-level", "error", *options]


def tree_cpu(pid: int) -> float:
    import psutil

    total = 0.0
    for proc in process_tree(pid):
        try:
            times = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


# -------------------------------------------------------------------------------- overhead per call

async def direct_runs(tool: str, calls: int, runs: int) -> list[tuple[float, float]]:
    from dispatchguard import adispatch_tool

    out = []
    for _ in range(runs):
        cpu, wall = time.process_time(), time.perf_counter()
        for n in range(calls):
            await adispatch_tool({"name": tool, "args": {"a": n, "b": 1}}, registry=TOOLS)
        out.append(((time.process_time() - cpu) / calls, (time.perf_counter() - wall) / calls))
    return out


async def session_runs(session, server_pid: int, tool: str, calls: int, runs: int) -> list[tuple[float, float]]:
    for n in range(50):  # warm up: imports, first thread, caches
        await session.call_tool(tool, {"a": n, "b": 1})
    out = []
    for _ in range(runs):
        cpu, server, wall = time.process_time(), tree_cpu(server_pid), time.perf_counter()
        for n in range(calls):
            result = await session.call_tool(tool, {"a": n, "b": 1})
            assert not result.isError, result
        spent = time.process_time() - cpu + tree_cpu(server_pid) - server
        out.append((spent / calls, (time.perf_counter() - wall) / calls))
    return out


async def stdio_rows(calls: int, runs: int) -> dict[str, list[tuple[float, float]]]:
    import psutil
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    argv = server_argv()
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=server_env())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        (server,) = psutil.Process().children()
        return {tool: await session_runs(session, server.pid, tool, calls, runs) for tool in ("add", "aadd")}


async def http_rows(calls: int, runs: int, *options: str, tools: tuple[str, ...] = ("add", "aadd")
                    ) -> dict[str, list[tuple[float, float]]]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    server = subprocess.Popen(server_argv("--transport", "http", "--port", str(port), *options), env=server_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: service_ready(f"http://127.0.0.1:{port}"), 60, "the MCP server")
        url = f"http://127.0.0.1:{port}/mcp"
        async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
            await session.initialize()
            return {tool: await session_runs(session, server.pid, tool, calls, runs) for tool in tools}
    finally:
        stop(server)


def our_client_runs(calls: int, runs: int) -> list[tuple[float, float]]:
    from dispatchguard import dispatch_tool
    from dispatchguard.mcp import McpClient

    registry = ToolRegistry()
    with McpClient(command=server_argv(), env=server_env()) as client:
        client.register(registry, names=["add"])
        import psutil

        (server,) = psutil.Process().children()
        for n in range(50):
            dispatch_tool({"name": "add", "args": {"a": n, "b": 1}}, registry=registry)
        out = []
        for _ in range(runs):
            cpu, server_cpu, wall = time.process_time(), tree_cpu(server.pid), time.perf_counter()
            for n in range(calls):
                dispatch_tool({"name": "add", "args": {"a": n, "b": 1}}, registry=registry)
            spent = time.process_time() - cpu + tree_cpu(server.pid) - server_cpu
            out.append((spent / calls, (time.perf_counter() - wall) / calls))
    return out


def overhead(calls: int, runs: int, only: str | None = None) -> list[dict]:
    rows = {
        "adispatch_tool add (in process)": asyncio.run(direct_runs("add", calls, runs)),
        "adispatch_tool aadd (in process)": asyncio.run(direct_runs("aadd", calls, runs)),
    }
    for tool, measured in asyncio.run(stdio_rows(calls, runs)).items():
        rows[f"SDK client -> stdio server, {tool}"] = measured
    if only != "stdio":
        for tool, measured in asyncio.run(http_rows(calls, runs)).items():
            rows[f"SDK client -> HTTP server, {tool}"] = measured
        for tool, measured in asyncio.run(http_rows(calls, runs, "--json-response", tools=("add",))).items():
            rows[f"SDK client -> HTTP server --json-response, {tool}"] = measured
    rows["McpClient (dispatch_tool) -> stdio server, add"] = our_client_runs(calls, runs)
    baseline = {"add": statistics.median(cpu for cpu, _ in rows["adispatch_tool add (in process)"]),
                "aadd": statistics.median(cpu for cpu, _ in rows["adispatch_tool aadd (in process)"])}
    table = []
    for name, measured in rows.items():
        cpu = statistics.median(c for c, _ in measured)
        tool = "aadd" if name.endswith("aadd") or "aadd " in name else "add"
        table.append({"call": name, "cpu_us": round(cpu * 1e6, 1),
                      "overhead_cpu_us": round((cpu - baseline[tool]) * 1e6, 1),
                      "wall_us": round(statistics.median(w for _, w in measured) * 1e6, 1)})
    return table


# ---------------------------------------------------------------------------------------- load

SSE_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2025-06-18"}


def call_body(request_id: int, tool: str, arguments: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}).encode()


HOSTILE = [
    b"{not json",
    b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "\xff\xfe"}',
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}).encode(),
    call_body(1, "add", {"a": "x" * 2_000_000, "b": 1}),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}).encode(),
    b"drop",  # a client that goes away mid-call
]


def answer_of(text: str) -> dict:
    """The JSON-RPC answer in an SSE body (``data:`` lines) or a plain JSON body."""
    for line in text.splitlines():
        if line.startswith("data:"):
            return json.loads(line[5:])
    return json.loads(text)


async def load(url: str, requests: int, concurrency: int, max_seconds: float) -> dict:
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    latencies: list[float] = []
    errors: dict[str, int] = {}
    hostile_statuses: dict[int, int] = {}
    violations: list[str] = []
    official_calls = 0
    issued = 0
    deadline = time.monotonic() + max_seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency, keepalive_expiry=2.0)

    async def hostile(client: httpx.AsyncClient, n: int) -> None:
        body = HOSTILE[n % len(HOSTILE)]
        if body == b"drop":
            async with client.stream("POST", url, content=call_body(n, "nap", {"seconds": 5}),
                                     headers=SSE_HEADERS) as response:
                status = response.status_code
                await asyncio.sleep(0.05)
        else:
            status = (await client.post(url, content=body, headers=SSE_HEADERS)).status_code
        hostile_statuses[status] = hostile_statuses.get(status, 0) + 1

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal issued
        while issued < requests and time.monotonic() < deadline:
            issued += 1
            n = issued
            if n % 25 == 0:
                await hostile(client, n // 25)
                continue
            started = time.perf_counter()
            try:
                response = await client.post(url, content=call_body(n, "add", {"a": n, "b": 1}), headers=SSE_HEADERS)
                answer = answer_of(response.text) if response.status_code == 200 else {}
                ok = answer.get("result", {}).get("content", [{}])[0].get("text") == str(n + 1)
                key = "ok" if ok else f"status {response.status_code}: {response.text[:80]}"
            except httpx.HTTPError as exc:
                key = f"{type(exc).__name__}: {exc}"[:120]
            latencies.append(time.perf_counter() - started)
            if key != "ok":
                errors[key] = errors.get(key, 0) + 1

    async def official() -> None:
        nonlocal official_calls

        async def record(message) -> None:
            if isinstance(message, Exception):
                violations.append(repr(message)[:200])

        async with streamable_http_client(url) as (read, write, _), \
                ClientSession(read, write, message_handler=record) as session:
            await session.initialize()
            while issued < requests and time.monotonic() < deadline:
                result = await session.call_tool("add", {"a": official_calls, "b": 1})
                if result.isError or result.content[0].text != str(official_calls + 1):
                    violations.append(f"wrong answer: {result}")
                official_calls += 1

    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        started = time.perf_counter()
        await asyncio.gather(official(), *(worker(client) for _ in range(concurrency)))
        wall = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies),
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 1),
        "errors": errors,
        "hostile_requests": sum(hostile_statuses.values()),
        "hostile_statuses": dict(sorted(hostile_statuses.items())),
        "hostile_5xx": sum(count for status, count in hostile_statuses.items() if status >= 500),
        "official_client_calls": official_calls,
        "official_client_violations": violations,
    }


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_server(workers: int, opts: argparse.Namespace) -> dict:
    port = free_port()
    argv = server_argv("--transport", "http", "--port", str(port), "--workers", str(workers))
    server = subprocess.Popen(argv, env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: service_ready(f"http://127.0.0.1:{port}"), 60, "the MCP server")
        time.sleep(1.0 if workers > 1 else 0.2)  # every worker has imported the app
        before = tree_cpu(server.pid)  # the workers' start-up is not the load's
        with TreeSampler(server.pid) as sampler:
            client_cpu = time.process_time()
            result = asyncio.run(load(f"http://127.0.0.1:{port}/mcp", opts.requests, opts.concurrency,
                                      opts.max_seconds))
            result["load_client_cpu_s"] = round(time.process_time() - client_cpu, 2)
            time.sleep(0.1)
        alive = server.poll() is None and service_ready(f"http://127.0.0.1:{port}")
        result.update(workers=workers, server_alive_after=alive,
                      server_peak_rss_mib=round(sampler.peak_rss / 2**20, 1),
                      server_cpu_s=round(sampler.cpu_seconds() - before, 2))
        result["server_cpu_ms_per_request"] = round(result["server_cpu_s"] * 1000 / max(result["requests"], 1), 2)
        return result
    finally:
        stop(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--max-seconds", type=float, default=30.0)
    parser.add_argument("--only", choices=["stdio"], default=None,
                        help="stdio: the in-process and stdio rows alone, no HTTP server and no load")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()

    import mcp  # noqa: F401  (fails early without the extra)
    import psutil

    report = {"python": sys.version.split()[0], "load_average": [round(x, 2) for x in os.getloadavg()],
              "cpus": psutil.cpu_count(), "overhead": overhead(opts.calls, opts.runs, opts.only),
              "load": [] if opts.only else [run_server(workers, opts) for workers in opts.workers]}
    if opts.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"Python {report['python']}, {report['cpus']} CPUs, load average {report['load_average']}")
    print(f"\nPer call (median of {opts.runs} x {opts.calls}; CPU = client + server, user+sys):")
    print(f"{'call':56} {'CPU us':>9} {'overhead us':>12} {'wall us':>9}")
    for row in report["overhead"]:
        print(f"{row['call']:56} {row['cpu_us']:>9} {row['overhead_cpu_us']:>12} {row['wall_us']:>9}")
    if report["load"]:
        print(f"\nHTTP load ({opts.concurrency} concurrent, at most {opts.requests} requests / {opts.max_seconds:g}s):")
    for row in report["load"]:
        print(f"  workers={row['workers']}: {row['throughput_rps']} req/s, p50 {row['p50_ms']} ms, "
              f"p99 {row['p99_ms']} ms, {row['requests']} calls, errors {row['errors'] or 0}, "
              f"peak RSS {row['server_peak_rss_mib']} MiB, server CPU {row['server_cpu_ms_per_request']} ms/req, "
              f"client CPU {row['load_client_cpu_s']} s")
        print(f"    hostile: {row['hostile_requests']} requests, statuses {row['hostile_statuses']}, "
              f"5xx {row['hostile_5xx']}; official client: {row['official_client_calls']} calls, "
              f"{len(row['official_client_violations'])} violations; server alive after: {row['server_alive_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
