"""What the fork server saves (issue 33, item 5): ``dispatchguard verify`` of a prepared tree,
run by this checkout's environment with ``--python <tree>/.venv`` (an install outside the tree's
environment), before (the workers of ``--before``, a git revision: each tool's process imports the
project's frameworks again) and after (this checkout: one server imports them once, a fork per
tool), alternated in the same run. Wall time is the command's; CPU is user+sys of the command and
every process it waited for (``os.wait4``); both divided by the tools built. The statuses of both
sides are printed too: the verdicts must not change::

    .venv/bin/python benchmarks/verify_fork_server.py benchmarks/.data/verify/fjacquet+epic_news@bf74d32 src \
        [--before main] [--cases 5] [-j 1] [--rounds 1] [--json benchmarks/verify_fork_server.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def old_source(revision: str, into: Path) -> Path:
    """``src`` of ``revision``, written out under ``into``."""
    archive = subprocess.run(["git", "archive", revision, "src"], cwd=HERE.parent, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def run(source: Path, root: Path, paths: list[str], args: argparse.Namespace, config: Path) -> dict:
    """One verify run with ``source`` on PYTHONPATH: its reports, wall and CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, "-m", "dispatchguard", "verify", "--config", str(config), "--output-format", "json",
               "--cases", str(args.cases), "-j", str(args.jobs), "--python", str(root / ".venv"), *paths]  # fmt: skip
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = process.stdout.read() if process.stdout is not None else b""
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    reports = json.loads(out)
    statuses: dict[str, int] = {}
    for report in reports:
        statuses[report["status"]] = statuses.get(report["status"], 0) + 1
    built = [r for r in reports if r["status"] != "not_built"]
    return {
        "found": len(reports),
        "built": len(built),
        "statuses": dict(sorted(statuses.items())),
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "wall_per_built_tool": round(wall / max(1, len(built)), 2),
        "cpu_per_built_tool": round((usage.ru_utime + usage.ru_stime) / max(1, len(built)), 2),
        "median_tool_wall": round(statistics.median(r["wall_seconds"] for r in built), 2) if built else None,
        # forked, module imported, tool built (reported since the fork server; None before)
        "median_tool_startup": _median(r.get("startup_seconds") for r in built),
        "max_tool_startup": max((r["startup_seconds"] for r in built if "startup_seconds" in r), default=None),
        "verdicts": {r["tool"]: r["status"] for r in reports},
    }


def _median(values: object) -> float | None:
    known = [v for v in values if v is not None]  # type: ignore[attr-defined]
    return round(statistics.median(known), 3) if known else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path, help="a tree prepared by verify_prepare.py (with its .venv)")
    parser.add_argument("paths", nargs="+", help="the paths to verify, inside the tree")
    parser.add_argument("--before", default="main", help="the git revision measured as before (default: main)")
    parser.add_argument("--cases", type=int, default=5)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    root = args.tree.resolve()
    config = root / ".dispatchguard-empty.toml"  # no configuration of the tree's own
    config.write_text("[tool.dispatchguard]\n[tool.dispatchguard.verify]\n", encoding="utf-8")
    rows: dict[str, list[dict]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as folder:
        sources = {"before": old_source(args.before, Path(folder)), "after": SRC}
        for _ in range(args.rounds):
            for side, source in sources.items():  # alternated: both sides see the same machine load
                rows[side].append(run(source, root, args.paths, args, config))
                shown = {k: v for k, v in rows[side][-1].items() if k != "verdicts"}
                print(side, json.dumps(shown), flush=True)
    before, after = rows["before"][0], rows["after"][0]
    old = before["verdicts"]
    changed = {tool: (old.get(tool), status) for tool, status in after["verdicts"].items() if old.get(tool) != status}
    summary = {
        "tree": root.name,
        "cases": args.cases,
        "jobs": args.jobs,
        "before_revision": args.before,
        "before": [{k: v for k, v in r.items() if k != "verdicts"} for r in rows["before"]],
        "after": [{k: v for k, v in r.items() if k != "verdicts"} for r in rows["after"]],
        "verdicts_changed": changed,
        "wall_ratio": round(
            statistics.median(r["wall_seconds"] for r in rows["before"])
            / statistics.median(r["wall_seconds"] for r in rows["after"]), 2),
        "cpu_ratio": round(
            statistics.median(r["cpu_seconds"] for r in rows["before"])
            / statistics.median(r["cpu_seconds"] for r in rows["after"]), 2),
    }  # fmt: skip
    print(json.dumps({k: v for k, v in summary.items() if k not in ("before", "after")}, indent=2))
    if args.json:
        known = json.loads(args.json.read_text(encoding="utf-8")) if args.json.exists() else {}
        known[root.name] = summary
        args.json.write_text(json.dumps(known, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
