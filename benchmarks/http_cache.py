"""Benchmark of dispatchguard.http against a local threaded server on 127.0.0.1.

Reports:
  * requests per second through the shared client (bare ``client.get`` and ``request()``);
  * ``get_json`` cold (every call goes to the server) versus cached (served by the TTL cache);
  * the overhead of the retry wrapper on a successful request: median per call of ``request()``
    minus median per call of a bare ``client.get()``, interleaved in the same run (target < 50 us);
  * with the redis-server the test extras install (``--redis``, on by default when it is found):
    a cached ``get_json`` served by the Redis store, and a stampede across processes: 2 processes
    x 8 threads ask for the same slow URL (0.5 s) at the same moment; the server counts requests.

Usage: python benchmarks/http_cache.py [--calls N] [--no-redis] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from dispatchguard import http

BODY = json.dumps({"items": [{"id": i, "title": f"item {i}"} for i in range(10)]}).encode()
TARGET_OVERHEAD_US = 50.0
REQUESTS_BY_PATH: dict[str, int] = {}
COUNT_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real API
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

    def do_GET(self) -> None:
        with COUNT_LOCK:
            REQUESTS_BY_PATH[self.path] = REQUESTS_BY_PATH.get(self.path, 0) + 1
        if self.path.startswith("/slow"):
            time.sleep(0.5)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args: object) -> None:
        pass


def timed(fn, calls: int) -> list[float]:
    samples = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return samples


def interleaved(a, b, calls: int) -> tuple[list[float], list[float]]:
    """Alternate a and b (swapping which goes first) so both see the same machine state."""
    sa, sb = [], []
    for i in range(calls):
        order = ((a, sa), (b, sb)) if i % 2 == 0 else ((b, sb), (a, sa))
        for fn, samples in order:
            t0 = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t0)
    return sa, sb


def summary(samples: list[float]) -> dict[str, float]:
    median = statistics.median(samples)
    return {"median_us": median * 1e6, "per_second": 1 / median, "calls": len(samples)}


STAMPEDE = """
import json, sys, threading, time
from dispatchguard import http
url, start_at = sys.argv[1], float(sys.argv[2])
threads = [threading.Thread(target=http.get_json, args=(url,)) for _ in range(8)]
time.sleep(max(0.0, start_at - time.time()))
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def redis_server_binary() -> str | None:
    beside = Path(sys.executable).with_name("redis-server")
    return str(beside) if beside.is_file() else shutil.which("redis-server")


def redis_figures(binary: str, url: str, calls: int) -> dict[str, object]:
    """Start a throwaway redis-server on 127.0.0.1 and measure the Redis-backed cache."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    workdir = tempfile.mkdtemp(prefix="dg-bench-redis-")
    server = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", workdir],
        stdout=subprocess.DEVNULL,
    )
    redis_url = f"redis://127.0.0.1:{port}/0"
    try:
        import redis

        client = redis.Redis.from_url(redis_url)
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        http.reset_clients(reset_settings=True)
        http.configure(cache_redis_url=redis_url)
        http.get_json(url, params={"k": "redis"})
        cached = timed(lambda: http.get_json(url, params={"k": "redis"}), calls)
        slow = url.replace("/items", "/slow")
        start_at = str(time.time() + 2.0)
        env = {**os.environ, "DISPATCHGUARD_REDIS_URL": redis_url}
        workers = [
            subprocess.Popen([sys.executable, "-c", STAMPEDE, slow, start_at], env=env) for _ in range(2)
        ]
        for worker in workers:
            worker.wait(timeout=120)
        client.close()
        return {
            "get_json cached (redis)": summary(cached),
            "stampede_calls": 16,
            "stampede_requests_sent": REQUESTS_BY_PATH.get("/slow", 0),
        }
    finally:
        http.reset_clients(reset_settings=True)
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-redis", action="store_true", help="skip the Redis-backed cache figures")
    options = parser.parse_args()
    calls = options.calls

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/items"
    http.reset_clients(reset_settings=True)
    client = http.get_client()
    try:
        for _ in range(200):  # warm up: connection, code paths
            client.get(url).read()
            http.request("GET", url)
            http.get_json(url, cache=False)

        bare, wrapped = interleaved(lambda: client.get(url), lambda: http.request("GET", url), calls)
        cold = timed(lambda: http.get_json(url, cache=False), calls)
        http.get_json(url, params={"k": 1})
        cached = timed(lambda: http.get_json(url, params={"k": 1}), calls)
        binary = None if options.no_redis else redis_server_binary()
        redis_result = redis_figures(binary, url, calls) if binary else None
    finally:
        http.reset_clients()
        server.shutdown()
        server.server_close()

    figures = {
        "client.get": summary(bare),
        "request()": summary(wrapped),
        "get_json cold": summary(cold),
        "get_json cached": summary(cached),
    }
    overhead_us = figures["request()"]["median_us"] - figures["client.get"]["median_us"]
    result = {
        "python": sys.version.split()[0],
        "calls": calls,
        "figures": figures,
        "retry_wrapper_overhead_us": overhead_us,
        "target_us": TARGET_OVERHEAD_US,
        "cached_speedup": figures["get_json cold"]["median_us"] / figures["get_json cached"]["median_us"],
        "redis": redis_result,
    }
    if options.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"dispatchguard.http benchmark, local server, {calls} calls each (median per call)")
        for name, fig in figures.items():
            print(f"  {name:<16} {fig['median_us']:9.1f} us   {fig['per_second']:10.0f} req/s")
        print(f"  cached get_json is {result['cached_speedup']:.0f}x faster than cold")
        verdict = "OK" if overhead_us < TARGET_OVERHEAD_US else "OVER TARGET"
        print(f"  retry wrapper overhead: {overhead_us:.1f} us per successful request "
              f"(target < {TARGET_OVERHEAD_US:.0f} us): {verdict}")
        if redis_result is None:
            print("  redis: skipped (no redis-server found, or --no-redis)")
        else:
            fig = redis_result["get_json cached (redis)"]
            print(f"  get_json cached (redis) {fig['median_us']:9.1f} us   {fig['per_second']:10.0f} req/s")
            print(f"  stampede across 2 processes: {redis_result['stampede_calls']} calls, "
                  f"{redis_result['stampede_requests_sent']} request(s) sent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
