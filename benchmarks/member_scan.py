"""Does the byte scan of class bodies find every member the summaries read, and what does it cost?

A run that checks a few files (focused, the editor path, flake8 on one buffer) knows the project's
toolkits by scanning every file's bytes for the names a class body may bind
(``dispatchguard.lint.project.member_names_in``): a name it misses is a toolkit member that run does
not know, and its findings would differ from ``check .``'s. For every ``.py`` file of each tree
given (default: the three trees of ``lint_speed.py`` under ``benchmarks/.data``), this parses the
file, takes the public member names of its summary, and prints the files where the scan misses one
(goal: none), with the scan's CPU time and how many names it gives against the summaries' (the
rest are parsed for nothing when a walk asks about them).

Usage (with the project's venv)::

    .venv/bin/python benchmarks/member_scan.py
    .venv/bin/python benchmarks/member_scan.py path/to/tree another/tree
"""

from __future__ import annotations

import ast
import sys
import time
import warnings
from pathlib import Path

from dispatchguard.lint.index import summarise
from dispatchguard.lint.member_scan import member_names_in, member_names_of

DATA = Path(__file__).resolve().parent / ".data"
TREES = ("stdlib-3.11.7", "langchain-community-0.4.2", "crewai-tools-1.15.30")


def check_tree(root: Path) -> int:
    """Print the tree's figures; return how many files the scan misses a member of."""
    files = sorted(root.rglob("*.py"))
    datas = [path.read_bytes() for path in files]
    started = time.process_time()
    scanned = [member_names_in(data) for data in datas]
    cpu = time.process_time() - started
    missed, members, parsed = 0, 0, 0
    for path, data, found in zip(files, datas, scanned, strict=True):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        parsed += 1
        expected = member_names_of(summarise(tree).get("members", {}))
        members += len(expected)
        if not expected <= found:
            missed += 1
            print(f"  MISSED {path.relative_to(root)}: {sorted(expected - found)}")
    size = sum(len(data) for data in datas) / 1e6
    names = sum(len(found) for found in scanned)
    print(
        f"{root.name}: {len(files)} files ({size:.1f} MB, {parsed} parsed), scan {cpu:.3f} s CPU, "
        f"{names} names found for {members} members, {missed} files missed (goal: none)"
    )
    return missed


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    roots = [Path(a) for a in args] or [DATA / name for name in TREES if (DATA / name).is_dir()]
    if not roots:
        print("no tree: run benchmarks/lint_speed.py --digest-only first, or name a tree")
        return 2
    return 1 if sum(check_tree(root) for root in roots) else 0


if __name__ == "__main__":
    sys.exit(main())
