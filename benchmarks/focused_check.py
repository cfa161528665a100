"""What checking one file costs in a project that also holds a large generated module (issue 20).

The tree (``benchmarks/.data/generated-module``, written by this script) is a small app module
with two findings beside a 5 MB generated module that names a tool class. Each command runs in its
own subprocess from the tree's root; the median of ``--repeats`` runs of its CPU time (user + sys,
from ``os.wait4``) and its peak RSS are printed (Linux keeps the forked benchmark's own high-water
mark, about 30 MB, across ``exec``: that is the lowest figure it can show):

- ``floor``: ``ast.parse`` of the one file;
- ``one file``: ``dispatchguard check --no-cache app/agent.py`` (checked *focused*);
- ``whole tree``: ``dispatchguard check --no-cache .``;
- ``ruff``: ``ruff check --no-cache app/agent.py``, when ruff is installed.

With ``--tree PATH FILE [FILE ...]`` the same is measured on a tree of your own (one ``one file``
row per file, relative to the tree's root, and no ruff): a large real project such as
``benchmarks/.data/langchain-community-0.4.2`` (``lint_speed.py`` fetches it), where a focused run
reads every file's bytes for the toolkit members it is asked about (docs/rules/DG101.md).

To measure another commit, put a copy of its ``src`` first: ``PYTHONPATH=/tmp/snapshot/src``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

TREE = Path(__file__).resolve().parent / ".data" / "generated-module"
AGENT = """\
from crewai.tools import BaseTool


class Lookup(BaseTool):
    def _run(self, q: str):
        return {"q": q}


Lookup().run("x")
"""


def write_tree() -> None:
    (TREE / "app").mkdir(parents=True, exist_ok=True)
    (TREE / "generated").mkdir(exist_ok=True)
    (TREE / "pyproject.toml").write_text("[tool.dispatchguard]\n", encoding="utf-8")
    (TREE / "app" / "agent.py").write_text(AGENT, encoding="utf-8")
    rows = [f"ROW_{i} = {{'name': 'x{i}', 'values': [{i}, {i + 1}], 'kind': 'BaseTool'}}\n" for i in range(64000)]
    table = "from crewai.tools import BaseTool\n" + "".join(rows)
    (TREE / "generated" / "table.py").write_text(table, encoding="utf-8")
    if not (TREE / ".git").exists():
        subprocess.run(["git", "init", "-q", str(TREE)], check=True)


def measure(command: list[str], tree: Path = TREE) -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of one run of ``command`` in the tree."""
    process = subprocess.Popen(command, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=int(os.environ.get("BENCH_REPEATS", "5")))
    parser.add_argument("--tree", nargs="+", metavar=("PATH", "FILE"), help="a tree of your own and files in it")
    args = parser.parse_args(argv)
    python = sys.executable
    check = [python, "-m", "dispatchguard", "check", "--no-cache"]
    if args.tree:
        tree, files = Path(args.tree[0]).resolve(), args.tree[1:] or ["."]
        parse = "import ast, sys; [ast.parse(open(f, 'rb').read()) for f in sys.argv[1:]]"
        commands = {"floor": [python, "-c", parse, *files]}
        commands.update({f"one file: {f}": [*check, f] for f in files})
        commands["whole tree"] = [*check, "."]
        title = f"{tree}, median of {args.repeats}"
    else:
        write_tree()
        tree = TREE
        commands = {
            "floor": [python, "-c", "import ast; ast.parse(open('app/agent.py', 'rb').read())"],
            "one file": [*check, "app/agent.py"],
            "whole tree": [*check, "."],
        }
        beside = Path(python).with_name("ruff")
        ruff = str(beside) if beside.exists() else shutil.which("ruff")
        if ruff:
            commands["ruff"] = [ruff, "check", "--no-cache", "--isolated", "app/agent.py"]
        title = f"{TREE} (5 MB generated module), median of {args.repeats}"
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.repeats):  # round-robin: the shared machine's noise hits all alike
        for name, command in commands.items():
            runs[name].append(measure(command, tree))
    print(f"focused_check: {title}")
    for name, samples in runs.items():
        cpu = statistics.median(s[0] for s in samples)
        rss = statistics.median(s[1] for s in samples)
        print(f"  {name:<11} CPU {cpu:6.3f} s   peak RSS {rss:7.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
