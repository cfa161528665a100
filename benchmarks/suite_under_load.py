"""The suite under CPU load: are there tests that depend on the machine's speed?

Starts ``--busy`` processes that spin on the CPU (a ``stress --cpu N``-like load, by default 2: as
many as a CI machine's cores), runs the chosen tests ``--runs`` times under that load, and reports
each run's wall and CPU time (user+sys of the pytest processes and their children) and every test
that failed in some run: *flaky* when it passed in another run, *failing* when it failed in all.

The default selection is the fast layer of the whole suite (``-m "not integration"``) and then the
whole of the areas whose tests wait for threads, servers and timeouts (agent, server, http, mcp,
integrations); ``--part PATH`` replaces that second part (repeatable), ``--part none`` drops it and
``--all`` runs the whole suite instead. Exit status: 0 when every test passed in every run, 1 when
one failed, 2 on a usage error. The busy processes are ended (by PID) however the script ends.

    .venv/bin/python benchmarks/suite_under_load.py --runs 3
    .venv/bin/python benchmarks/suite_under_load.py --runs 5 --part tests/agent --busy 4
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PARTS = ["tests/agent", "tests/server", "tests/http", "tests/mcp", "tests/integrations"]
SPIN = "while True: pass"


def outcomes(junit: Path) -> dict[str, str]:
    """``{test id: "passed" | "failed" | "skipped"}`` from a JUnit XML report (errors count as failed)."""
    results: dict[str, str] = {}
    for case in ET.parse(junit).iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            results[test] = "failed"
        elif case.find("skipped") is not None:
            results.setdefault(test, "skipped")
        else:
            results.setdefault(test, "passed")
    return results


def run_pytest(args: list[str], junit: Path, workers: str) -> tuple[dict[str, str], float, float, int]:
    """Run pytest once: (outcomes, wall seconds, CPU seconds of it and its children, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *args]
    if workers != "0":
        command[3:3] = ["-n", workers, "--dist", "worksteal"]
    # bytecode written and read again, as `make test` does whatever the machine sets
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    proc = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = outcomes(junit) if junit.is_file() else {}
    return found, wall, cpu, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="how many times to run the selection (default 3)")
    parser.add_argument("--busy", type=int, default=2, help="CPU-spinning processes during the runs (default 2)")
    parser.add_argument("--workers", default="0", help="pytest-xdist workers (-n); 0: one process (default)")
    parser.add_argument("--part", action="append", metavar="PATH",
                        help="the second part, run whole (repeatable; 'none' drops it); default: "
                        + " ".join(DEFAULT_PARTS))
    parser.add_argument("--all", action="store_true", help="run the whole suite instead of the two parts")
    options = parser.parse_args(argv)
    if options.runs < 1 or options.busy < 0:
        parser.error("--runs must be at least 1 and --busy at least 0")
    parts = [p for p in (options.part or DEFAULT_PARTS) if p != "none"]
    for part in parts:
        if not (ROOT / part).exists():
            parser.error(f"--part {part}: no such path under {ROOT}")
    selections = [("whole suite", [])] if options.all else [("fast layer", ["-m", "not integration"])]
    if parts and not options.all:
        selections.append((" ".join(parts), parts))

    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(options.busy)]
    history: dict[str, list[str]] = defaultdict(list)
    statuses = []
    try:
        with tempfile.TemporaryDirectory(prefix="suite-under-load-") as scratch:
            for number in range(1, options.runs + 1):
                for label, args in selections:
                    junit = Path(scratch) / f"run{number}-{len(statuses)}.xml"
                    found, wall, cpu, status = run_pytest(args, junit, options.workers)
                    statuses.append(status)
                    failed = sorted(t for t, o in found.items() if o == "failed")
                    load = os.getloadavg()[0]
                    print(f"run {number} {label}: {len(found)} tests, {len(failed)} failed, exit {status}, "
                          f"wall {wall:.1f} s, CPU {cpu:.1f} s, load {load:.1f} (1 min, {options.busy} busy)",
                          flush=True)
                    for test in failed:
                        print(f"    failed: {test}", flush=True)
                    for test, outcome in found.items():
                        history[test].append(outcome)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()

    flaky = sorted(t for t, seen in history.items() if "failed" in seen and "passed" in seen)
    failing = sorted(t for t, seen in history.items() if "failed" in seen and "passed" not in seen)
    print(f"\n{len(history)} tests, {options.runs} runs under {options.busy} busy processes: "
          f"{len(flaky)} flaky, {len(failing)} failing in every run")
    for test in flaky:
        print(f"  flaky ({history[test].count('failed')}/{len(history[test])} failed): {test}")
    for test in failing:
        print(f"  failing: {test}")
    if not history or (any(status not in (0, 5) for status in statuses) and not (flaky or failing)):
        print("pytest ended without a report of failed tests (exit statuses: "
              f"{statuses}): run the selection by hand", file=sys.stderr)
        return 1
    return 1 if flaky or failing else 0


if __name__ == "__main__":
    sys.exit(main())
