"""Precision and recall of ``dispatchguard check`` per rule on the blind labels (no configuration).

The labels in ``labels.toml`` were written by reading the code of twelve public trees, before the
checker was ever run on them (the commit that added them precedes the first run: see README.md).
The trees live in ``benchmarks/.data/blind12/<dir>`` (git-ignored; ``fetch_trees.py`` or ``--prepare``
writes them). Each tree is checked the way the old evaluation checks its trees
(``benchmarks/recall/evaluate.py``: every project folder of the tree on its own, with an empty
``[tool.dispatchguard]`` file as configuration and no environment), so a later checker is measured
on exactly the same terms.

A site is ``[path, line, rule, "flag" | "noflag", reason]``; a finding of that rule on that line
counts as a hit. Precision = TP / (TP + FP), recall = TP / (TP + FN). Findings on no labelled site
are counted as *unlabelled* (``--show-unlabelled`` lists them); they are neither right nor wrong here.

Usage (with the project's venv)::

    .venv/bin/python benchmarks/recall_blind_12/evaluate.py --prepare      # write missing trees, then score
    .venv/bin/python benchmarks/recall_blind_12/evaluate.py --json out.json --per-tree
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / ".data" / "blind12"
LABELS = HERE / "labels.toml"
RESULT = HERE / "result.json"
sys.path.insert(0, str(HERE.parent / "recall"))

from evaluate import findings, print_table, rates  # noqa: E402  (the old evaluation's runner, reused)

OUTCOME = {("flag", True): "tp", ("flag", False): "fn", ("noflag", True): "fp", ("noflag", False): "tn"}


def score(labels: dict, extra: list[str]) -> dict:
    per_rule: dict[str, Counter] = defaultdict(Counter)
    per_tree: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    misses: list[dict] = []
    unlabelled: list[str] = []
    for tree in labels["tree"]:
        root = DATA / tree["dir"]
        if not root.is_dir():
            raise SystemExit(f"{root} is missing: run benchmarks/recall_blind_12/fetch_trees.py (or --prepare)")
        found = findings(root, "", extra)
        labelled = set()
        for path, line, rule, verdict, reason in tree["sites"]:
            labelled.add((path, line, rule))
            outcome = OUTCOME[(verdict, (path, line, rule) in found)]
            for counter in (per_rule[rule], per_tree[tree["dir"]][rule]):
                counter[outcome] += 1
                counter["sites"] += 1
            if outcome in ("fn", "fp"):
                misses.append(
                    {"kind": outcome, "tree": tree["dir"], "site": f"{path}:{line}", "rule": rule, "reason": reason}
                )
        for path, line, rule in sorted(found - labelled):
            per_tree[tree["dir"]][rule]["unlabelled"] += 1
            per_rule[rule]["unlabelled"] += 1
            unlabelled.append(f"{tree['dir']}/{path}:{line}:{rule}")
    return {
        "rules": {rule: {**rates(c), "unlabelled": c["unlabelled"]} for rule, c in sorted(per_rule.items())},
        "trees": {name: {rule: rates(c) for rule, c in sorted(rules.items())} for name, rules in per_tree.items()},
        "misses": misses,
        "unlabelled": unlabelled,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=RESULT, help=f"write the scores here (default {RESULT.name})")
    parser.add_argument("--prepare", action="store_true", help="write the trees missing from benchmarks/.data/blind12")
    parser.add_argument("--per-tree", action="store_true", help="also print the table of each tree")
    parser.add_argument("--show-unlabelled", action="store_true", help="list findings on no labelled site")
    parser.add_argument("--python", type=Path, help="check with this installed environment (default: none)")
    args = parser.parse_args()
    if args.prepare:
        import fetch_trees  # the same folder; imported only when asked so scoring needs no network

        sys.argv = [sys.argv[0]]
        fetch_trees.main()
    # a checker run must not pick up the caller's virtualenv as the trees' environment
    os.environ.pop("VIRTUAL_ENV", None)
    labels = tomllib.loads(LABELS.read_text())
    # each project is checked from its own folder: a relative --python would point into the tree
    extra = ["--python", str(args.python.resolve())] if args.python else []
    wall = time.perf_counter()
    result = score(labels, extra)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["run"] = {
        "sites": sum(len(t["sites"]) for t in labels["tree"]),
        "trees": len(labels["tree"]),
        "checker_cpu_seconds": round(used.ru_utime + used.ru_stime, 2),
        "wall_seconds": round(time.perf_counter() - wall, 2),
        "configuration": "none (empty [tool.dispatchguard])",
        "environment": str(args.python) if args.python else "none",
    }
    print(f"{result['run']['sites']} labelled sites in {result['run']['trees']} trees, no configuration:")
    print_table(result["rules"])
    if args.per_tree:
        for name, rules in result["trees"].items():
            print(f"  {name}:")
            print_table(rules, indent="    ")
    for miss in result["misses"]:
        print(f"  {miss['kind'].upper()} {miss['rule']} {miss['tree']}/{miss['site']} ({miss['reason']})")
    if args.show_unlabelled:
        for item in result["unlabelled"]:
            print(f"  unlabelled {item}")
    print(f"checker CPU {result['run']['checker_cpu_seconds']} s (user+sys), wall {result['run']['wall_seconds']} s")
    args.json.write_text(json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
