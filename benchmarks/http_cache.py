"""Benchmark of dispatchguard.http against a local threaded server on 127.0.0.1.

Reports:
  * requests per second through the shared client (bare ``client.get`` and ``request()``);
  * ``get_json`` cold (every call goes to the server) versus cached (served by the TTL cache);
  * the overhead of the retry wrapper on a successful request: median per call of ``request()``
    minus median per call of a bare ``client.get()``, interleaved in the same run (target < 50 us).

Usage: python benchmarks/http_cache.py [--calls N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from dispatchguard import http

BODY = json.dumps({"items": [{"id": i, "title": f"item {i}"} for i in range(10)]}).encode()
TARGET_OVERHEAD_US = 50.0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real API
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

    def do_GET(self) -> None:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
