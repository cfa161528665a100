"""`make demo`: the checker on the newsroom example, then the runtime at work.

1. `dispatchguard check` on the violating twin: prints its findings, expects exit status 1.
2. `dispatchguard check` on the fixed twin: expects no findings and exit status 0.
3. One tool call of the fixed twin through `dispatch_tool`, and one invalid call, both JSON text.

Exits 0 when everything behaved as expected, 1 otherwise (with the reason).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXED = HERE / "fixed"
VIOLATING = HERE / "violating"


def banner(text: str) -> None:
    print(f"\n== {text}", flush=True)


def check(twin: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "."]
    print(f"$ cd {twin.relative_to(HERE.parent.parent)} && dispatchguard check --no-cache .", flush=True)
    done = subprocess.run(command, cwd=twin, capture_output=True, text=True, check=False)
    sys.stdout.write(done.stdout)
    sys.stdout.write(done.stderr)
    print(f"(exit status {done.returncode})", flush=True)
    return done


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # keep our lines and the log lines in order
    logging.basicConfig(level=logging.WARNING, format="    (log) %(name)s: %(message)s", stream=sys.stdout)
    problems: list[str] = []
    print("dispatchguard demo: the newsroom example project (examples/newsroom)")
    print("A CrewAI-style news agent: metrics, KPI, chart, report and RSS tools, a planner, a registry.")

    banner("1. the violating twin: direct tool calls, tools built in agent code, non-JSON returns")
    done = check(VIOLATING)
    codes = {line.split()[1] for line in done.stdout.splitlines() if line.count(":") >= 3}
    if done.returncode != 1:
        problems.append(f"checking the violating twin exited {done.returncode}, expected 1")
    if not {"DG101", "DG102", "DG103"} <= codes:
        problems.append(f"the violating twin should show DG101, DG102 and DG103, got {sorted(codes)}")

    banner("2. the fixed twin: every call goes through dispatch_tool(ToolAction(...))")
    done = check(FIXED)
    if done.returncode != 0 or done.stdout.strip():
        problems.append(f"the fixed twin should be clean, got exit {done.returncode}")

    banner("3. the runtime: one tool call through dispatch_tool, then an invalid one")
    sys.path.insert(0, str(FIXED))
    from newsroom.tool_registry import TOOL_REGISTRY

    from dispatchguard import ToolAction, dispatch_tool

    action = ToolAction(name="KPI Tracker", args={"name": "paid subscriptions", "current": 8700, "target": 10000})
    print(f">>> dispatch_tool(ToolAction(name={action.name!r}, args={action.args!r}))")
    result = dispatch_tool(action, registry=TOOL_REGISTRY)
    print(result)
    if json.loads(result).get("status") != "at_risk":
        problems.append("the KPI Tracker call did not return the expected JSON")

    bad = '{"name": "KPI Tracker", "args": {"name": "paid subscriptions", "current": "8700", "target": 10000}}'
    print(f">>> dispatch_tool({bad!r})")
    error = dispatch_tool(bad, registry=TOOL_REGISTRY)
    print(error)
    if json.loads(error).get("kind") != "invalid_args":
        problems.append("the invalid call did not come back as an invalid_args error object")

    banner("result")
    for problem in problems:
        print(f"UNEXPECTED: {problem}")
    print("demo failed" if problems else "demo OK: the checker flags the violating twin, the fixed twin is clean.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
