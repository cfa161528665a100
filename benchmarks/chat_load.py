"""Load on the /chat service against the scripted model server on 127.0.0.1, and the agent loop's
own overhead per step.

Three kinds of process: the scripted model server (OpenAI wire format, native tool calls), the
service (``dispatchguard serve``, 1 and 4 workers) and this load generator (asyncio + httpx,
bounded concurrency). Each ``agent`` request takes two model calls (a ``tool_calls`` turn asking
for ``add``, then the answer) and one tool run. Bounded in count (``--requests``) and in time
(``--max-seconds`` per configuration: no new request starts after it).

Reported per configuration: throughput (requests per wall second), p50/p99 latency, errors (any
answer but 200, or a transport failure), the service's peak RSS (all its processes together,
sampled every 50 ms) and its CPU time (user+sys), next to the CPU time the scripted model server
and the load client spent (all three share the machine's cores). Then the loop's overhead: CPU time per step of
``arun_tool_loop`` with an in-process model (no HTTP), native and JSON-in-text.

Usage: python benchmarks/chat_load.py [--requests 2000] [--concurrency 50] [--workers 1 4]
       [--max-seconds 120] [--redis-url redis://127.0.0.1:6379/0] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from dispatchguard import ToolRegistry  # noqa: E402

REGISTRY = ToolRegistry()


@REGISTRY.tool(parallel_safe=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def scripted_turn(body: dict) -> object:
    """Ask for ``add`` first; answer once the conversation has its result."""
    from dispatchguard.agent.testing import ScriptedReply, ScriptedToolCall

    if body["messages"][-1]["role"] == "tool":
        return f"The sum is {body['messages'][-1]['content']} [source:add]."
    return ScriptedReply(tool_calls=[ScriptedToolCall("add", {"a": 2, "b": 3})])


def serve_model(port_file: str) -> None:
    """Run the scripted model server until killed; write its port to ``port_file``."""
    from dispatchguard.agent.testing import ScriptedLLMServer

    server = ScriptedLLMServer(default=scripted_turn).start()
    Path(port_file).write_text(server.base_url)
    while True:
        time.sleep(3600)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up within {seconds:g}s")
        time.sleep(0.05)


def service_ready(url: str) -> bool:
    import httpx

    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def process_tree(pid: int) -> list:
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


class TreeSampler:
    """Peak RSS and the latest CPU times of a process and its children, sampled in a thread."""

    def __init__(self, pid: int) -> None:
        import threading

        self.pid = pid
        self.peak_rss = 0
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            rss = 0
            for proc in process_tree(self.pid):
                try:
                    rss += proc.memory_info().rss
                    times = proc.cpu_times()
                    self.cpu[proc.pid] = times.user + times.system
                except psutil.NoSuchProcess:
                    pass
            self.peak_rss = max(self.peak_rss, rss)
            self._stop.wait(0.05)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def cpu_seconds(self) -> float:
        return sum(self.cpu.values())


async def load(url: str, requests: int, concurrency: int, max_seconds: float) -> dict:
    import httpx

    latencies: list[float] = []
    errors: dict[str, int] = {}
    issued = 0
    deadline = time.monotonic() + max_seconds
    # Idle connections expire on the client before uvicorn's 5 s keep-alive timeout closes them: with
    # both at 5 s a request can go out on a connection the server is closing (a ReadError).
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency,
                          keepalive_expiry=2.0)

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal issued
        while issued < requests and time.monotonic() < deadline:
            issued += 1
            started = time.perf_counter()
            try:
                response = await client.post("/chat", json={"message": "2 + 3?", "mode": "agent"})
                ok = response.status_code == 200 and response.json()["stop_reason"] == "answer"
                key = "ok" if ok else f"status {response.status_code}"
            except httpx.HTTPError as exc:
                key = f"{type(exc).__name__}: {exc}"[:120]
            latencies.append(time.perf_counter() - started)
            if key != "ok":
                errors[key] = errors.get(key, 0) + 1

    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        started = time.perf_counter()
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
        wall = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies),
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 1),
        "errors": errors,
    }


def cpu_seconds(pid: int) -> float:
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def run_service(workers: int, model_url: str, model_pid: int, opts: argparse.Namespace) -> dict:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(HERE.parent / "src")]))
    if opts.redis_url:
        env["DISPATCHGUARD_REDIS_URL"] = opts.redis_url
    else:
        env.pop("DISPATCHGUARD_REDIS_URL", None)
    argv = [sys.executable, "-m", "dispatchguard", "serve", "--port", str(port), "--workers", str(workers),
            "--base-url", model_url, "--model", "scripted", "--registry", "chat_load:REGISTRY",
            "--log-level", "warning"]
    service = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: service_ready(url), 60, "the service")
        time.sleep(1.0 if workers > 1 else 0.2)  # every worker has imported the app
        with TreeSampler(service.pid) as sampler:
            model_cpu, client_cpu = cpu_seconds(model_pid), time.process_time()
            result = asyncio.run(load(url, opts.requests, opts.concurrency, opts.max_seconds))
            result["model_server_cpu_s"] = round(cpu_seconds(model_pid) - model_cpu, 2)
            result["load_client_cpu_s"] = round(time.process_time() - client_cpu, 2)
            time.sleep(0.1)
        result.update(workers=workers, redis=bool(opts.redis_url),
                      service_peak_rss_mib=round(sampler.peak_rss / 2**20, 1),
                      service_cpu_s=round(sampler.cpu_seconds(), 2))
        result["service_cpu_ms_per_request"] = round(result["service_cpu_s"] * 1000 / max(result["requests"], 1), 2)
        return result
    finally:
        service.terminate()
        try:
            service.wait(timeout=20)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()


def loop_overhead(runs: int) -> dict:
    """CPU time per loop step with the model in-process: validation, execution, summaries, history."""
    from dispatchguard.agent import ModelReply, ToolCall, arun_tool_loop

    class NativeModel:
        async def achat(self, messages, registry):
            if messages[-1]["role"] == "tool":
                return ModelReply("The sum is 5 [source:add].")
            return ModelReply("", (ToolCall("call_1", "add", '{"a": 2, "b": 3}'),))

    async def text_model(messages):
        if messages[-1]["content"].startswith("Tool 1 [add]"):
            return "The sum is 5 [source:add]."
        return '{"name": "add", "args": {"a": 2, "b": 3}}'

    figures = {}
    for label, model in (("native", NativeModel()), ("json_in_text", text_model)):
        async def many(model=model):
            steps = 0
            for _ in range(runs):
                result = await arun_tool_loop(model, "2 + 3?", registry=REGISTRY)
                assert result.stop_reason == "answer", result
                steps += result.steps
            return steps

        asyncio.run(many())  # warm-up: imports, caches
        cpu = time.process_time()
        steps = asyncio.run(many())
        figures[f"{label}_us_per_step"] = round((time.process_time() - cpu) / steps * 1e6, 1)
    figures["runs"] = runs
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--max-seconds", type=float, default=120.0, help="per configuration")
    ap.add_argument("--redis-url", help="share request state through this Redis (DISPATCHGUARD_REDIS_URL)")
    ap.add_argument("--loop-runs", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--serve-model", metavar="PORT_FILE", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.serve_model:
        serve_model(opts.serve_model)
        return 0

    port_file = Path(f"/tmp/chat_load_model_{os.getpid()}.url")
    port_file.unlink(missing_ok=True)
    model = subprocess.Popen([sys.executable, __file__, "--serve-model", str(port_file)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(port_file.exists, 30, "the scripted model server")
        model_url = port_file.read_text()
        results = [run_service(workers, model_url, model.pid, opts) for workers in opts.workers]
    finally:
        model.terminate()
        model.wait()
        port_file.unlink(missing_ok=True)
    overhead = loop_overhead(opts.loop_runs)
    if opts.json:
        print(json.dumps({"service": results, "loop": overhead}, indent=2))
        return 0
    print(f"{opts.requests} agent requests, {opts.concurrency} concurrent, scripted model on 127.0.0.1 "
          f"(2 model calls + 1 tool per request)")
    print(f"{'workers':>7} {'done':>5} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} "
          f"{'peak RSS MiB':>12} {'CPU s':>6} {'CPU ms/req':>10}")
    for r in results:
        print(f"{r['workers']:>7} {r['requests']:>5} {r['throughput_rps']:>7} {r['p50_ms']:>8} {r['p99_ms']:>8} "
              f"{sum(r['errors'].values()):>7} {r['service_peak_rss_mib']:>12} {r['service_cpu_s']:>6} "
              f"{r['service_cpu_ms_per_request']:>10}")
        print(f"        CPU elsewhere: scripted model server {r['model_server_cpu_s']} s, "
              f"load client {r['load_client_cpu_s']} s (same machine, same cores)")
        if r["errors"]:
            print(f"        errors: {r['errors']}")
    print(f"loop overhead (CPU per step, in-process model, {overhead['runs']} runs x 2 steps): "
          f"native {overhead['native_us_per_step']} us, JSON in text {overhead['json_in_text_us_per_step']} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
