"""``dispatchguard verify`` on public CrewAI/LangChain applications, each in its own environment:
tools found / built / verified / with violations, wall and CPU time, and which violating tools the
static rules (DG103/DG104) had no finding for in their file.

The trees and their environments come from ``verify_prepare.py`` (``benchmarks/.data/verify/``,
git-ignored). verify runs under each tree's own interpreter with this checkout's ``src`` and the
checker's dependencies (the overlay) on ``PYTHONPATH``; the static check runs under this venv.
CPU is user+sys of the verify process and its workers (``os.wait4``)::

    .venv/bin/python benchmarks/verify_trees.py [--cases 5] [--json benchmarks/verify_trees.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from verify_prepare import DATA, checker_overlay  # noqa: E402 - a script beside this one

#: (tree as verify_prepare names it, the project folder inside it, the paths to verify, variables set
#: to placeholders for the workers (never real secrets); none today: a tool needing a key is not built)
TREES = [
    ("fjacquet+epic_news@bf74d32", ".", ["src"], ()),
    ("nabba+crewai-team@90e144b", ".", ["app"], ()),
    ("fjacquet+crewai_custom_tools@e43ed28", ".", ["src"], ()),
    ("Wainercrb+langchain-agent@80917e1", "agent", ["."], ()),
]
FAILED = ("violation", "crashed", "hung", "error")


def run_timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[str, float, float]:
    """(stdout, wall seconds, CPU seconds of the process and its children)."""
    started = time.monotonic()
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=devnull)
        out = process.stdout.read() if process.stdout is not None else b""
        _, _, usage = os.wait4(process.pid, 0)
    return out.decode("utf-8", "replace"), time.monotonic() - started, usage.ru_utime + usage.ru_stime


def measure(tree: str, project: str, paths: list[str], passed: tuple[str, ...], cases: int, jobs: int) -> dict:
    root = DATA / tree / project
    python = str(root / ".venv" / "bin" / "python")
    # no configuration of the tree's own, nor of any repository around this folder
    empty = root / ".dispatchguard-empty.toml"
    passed_through = "".join(f"pass-env = {json.dumps(list(passed))}\n" for _ in [0] if passed)
    empty.write_text(f"[tool.dispatchguard]\n[tool.dispatchguard.verify]\n{passed_through}", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{checker_overlay(python)}"}
    env.update(dict.fromkeys(passed, "placeholder"))
    command = [python, "-m", "dispatchguard", "verify", "--config", str(empty), "--output-format", "json",
               "--cases", str(cases), "-j", str(jobs), *paths]  # fmt: skip
    out, wall, cpu = run_timed(command, root, env)
    reports = json.loads(out)
    static = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--config", str(empty), "--no-cache", "--exit-zero",
         "--output-format", "json", "--select", "DG103,DG104", *paths],
        cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    flagged = {(root / item["filename"]).resolve() for item in json.loads(static.stdout)}
    failed = [r for r in reports if r["status"] in FAILED]
    # what a static rule could have seen: a call that answered a value that is not JSON text (not
    # an exception, a hang or a crash)
    answered = [r for r in failed if r["status"] == "violation" and r["detail"].startswith("returned")]
    missed = [r for r in answered if (root / r["filename"]).resolve() not in flagged]
    statuses: dict[str, int] = {}
    for report in reports:
        statuses[report["status"]] = statuses.get(report["status"], 0) + 1
    return {
        "tree": tree,
        "found": len(reports),
        "built": len(reports) - statuses.get("not_built", 0),
        "verified": statuses.get("verified", 0),
        "with_violations": len(failed),
        "statuses": statuses,
        "answered_not_json": len(answered),
        "no_answer": [f"{r['tool']}: {r['detail'][:80]}" for r in failed if r not in answered],
        "static_flagged_file": len(answered) - len(missed),
        "static_missed": [f"{r['filename']}:{r['line']} {r['tool']}: {r['detail'][:120]}" for r in missed],
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--trees", default=",".join(t[0] for t in TREES))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    wanted = set(args.trees.split(","))
    results = []
    for tree, project, paths, passed in TREES:
        if tree not in wanted:
            continue
        if not (DATA / tree / project / ".venv").is_dir():
            print(f"{tree}: no environment (run verify_prepare.py github:{tree.replace('+', '/')}); skipped")
            continue
        result = measure(tree, project, paths, passed, args.cases, args.jobs)
        results.append(result)
        print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"cases": args.cases, "jobs": args.jobs, "trees": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
