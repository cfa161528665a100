"""Two versions of the checker on the same trees, in the same run: does a change cost CPU, does it
change a finding?

``--base`` and ``--head`` are ``src`` folders: the work tree's (``--head`` defaults to it) and a
snapshot of another commit, made without touching the work tree::

    git archive main src | tar -x -C /tmp/base
    .venv/bin/python benchmarks/lint_ab.py --base /tmp/base/src
    .venv/bin/python benchmarks/lint_ab.py --base /tmp/base/src --trees stdlib --repeats 3

The trees are those of ``lint_speed.py`` (prepared by it, under ``benchmarks/.data``). On each,
``dispatchguard check -j1 --no-cache`` and the default parallel ``check --no-cache`` of both
versions run round-robin, ``--repeats`` times (default ``BENCH_REPEATS`` or 5), so that noise from
the shared machine hits them alike; each command runs as ``env PYTHONPATH=<src> dispatchguard``
(``env`` execs the checker: the process measured is the checker's). Printed per tree and command:
the median CPU time (user + sys, reaped children included, from ``os.wait4``) and wall time of
each version, and the ratio head / base of the CPU. The findings (``--output-format json``) of the
two versions must be the same, command by command: the exit status is 1 when they differ.

Both ``src`` folders are compiled first (``compileall``), as installing a wheel does (this
machine sets ``PYTHONDONTWRITEBYTECODE``).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import sys
from pathlib import Path

from lint_speed import BIN, TREE_NAMES, Job, load_recorded, prepare_trees, run_round_robin

HERE = Path(__file__).resolve().parent
COMMANDS = {"check -j1 --no-cache": ["-j1", "--no-cache"], "check --no-cache (default -j)": ["--no-cache"]}


def command(src: Path, args: list[str]) -> list[str]:
    return ["env", f"PYTHONPATH={src}", str(BIN / "dispatchguard"), "check", "--exit-zero",
            "--output-format", "json", *args, "."]  # fmt: skip


def findings(output: str) -> list[tuple[str, int, int, str, str]]:
    return sorted(
        (f["filename"], f["location"]["row"], f["location"]["column"], f["code"], f["message"])
        for f in json.loads(output)
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the src folder of the version to compare with")
    parser.add_argument("--head", type=Path, default=HERE.parent / "src", help="the src folder measured")
    parser.add_argument("--trees", default=",".join(TREE_NAMES), help=f"comma-separated, of {', '.join(TREE_NAMES)}")
    parser.add_argument("--repeats", type=int, default=int(os.environ.get("BENCH_REPEATS", "5")))
    args = parser.parse_args(argv)
    args.trees = [name for name in args.trees.split(",") if name]
    for folder in (args.base, args.head):
        if not (folder / "dispatchguard" / "__init__.py").is_file():
            parser.error(f"{folder} is not a src folder holding dispatchguard")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.pop("VIRTUAL_ENV", None)  # the trees are checked without an environment, as in lint_speed.py
    base, head = args.base.resolve(), args.head.resolve()
    for folder in (base, head):
        compileall.compile_dir(folder / "dispatchguard", quiet=1)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"lint_ab: {os.cpu_count()} cores (load average {load}), repeats {args.repeats}")
    print(f"  base {base}\n  head {head}")
    same = True
    for tree in prepare_trees(args.trees, load_recorded()):
        print(f"\n== {tree.name} {tree.version}")
        print(f"  {'command':32} {'base CPU s':>10} {'head CPU s':>10} {'head/base':>9} {'base wall':>9} "
              f"{'head wall':>9}")  # fmt: skip
        jobs = {
            (label, version): Job(f"{label} ({version})", command(src, extra))
            for label, extra in COMMANDS.items()
            for version, src in (("base", base), ("head", head))
        }
        run_round_robin(list(jobs.values()), tree.root, args.repeats)
        for label in COMMANDS:
            old, new = jobs[label, "base"], jobs[label, "head"]
            old_cpu, new_cpu = (statistics.median(s.cpu for s in job.samples) for job in (old, new))
            old_wall, new_wall = (statistics.median(s.wall for s in job.samples) for job in (old, new))
            print(f"  {label:32} {old_cpu:10.3f} {new_cpu:10.3f} {new_cpu / old_cpu:9.3f} {old_wall:9.3f} "
                  f"{new_wall:9.3f}")  # fmt: skip
            old_found, new_found = findings(old.output), findings(new.output)
            if old_found != new_found:
                same = False
                print(f"  FINDINGS DIFFER: base {len(old_found)}, head {len(new_found)}, "
                      f"{len(set(old_found) ^ set(new_found))} not in both")  # fmt: skip
            else:
                print(f"  {'':32} findings the same ({len(new_found)})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
