"""Run the checker on the blind trees with no configuration and score it against labels.toml.

Precision and recall per rule over the labelled sites (a finding of the rule on a site's line is a
hit), the misses and false alarms, and the findings on no labelled site (to review by hand: they
were not among the scan's candidates). Usage:

    python benchmarks/recall_blind/fetch_trees.py           # write the trees (once)
    python benchmarks/recall_blind/evaluate.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
TREES = HERE.parents[1] / "benchmarks" / ".data" / "blind"
RULES = ("DG101", "DG102", "DG103", "DG104")


OUTCOME = {("flag", True): "tp", ("flag", False): "fn", ("noflag", True): "fp", ("noflag", False): "tn"}


def findings(tree: Path, jobs: int | None = None) -> tuple[set[tuple[str, int, str]], float]:
    """(path, line, code) of every active finding, with no configuration; the run's CPU seconds.

    The checker is the one ``sys.executable`` imports; ``jobs`` is its ``-j`` (default: its own)."""
    empty = tree / ".dispatchguard-empty.toml"
    empty.write_text("[tool.dispatchguard]\n", encoding="utf-8")
    started = time.process_time()
    command = [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "--config", str(empty)]
    command += [] if jobs is None else ["-j", str(jobs)]
    done = subprocess.run([*command, "--output-format", "json", "."], cwd=tree, capture_output=True, text=True)
    cpu = time.process_time() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{tree.name}: the checker failed: {done.stderr}")
    out = set()
    for item in json.loads(done.stdout):
        path = Path(item["filename"]).resolve().relative_to(tree.resolve()).as_posix()
        out.add((path, item["location"]["row"], item["code"]))
    return out, cpu


def outcomes(sites: list, found: set[tuple[str, int, str]]) -> list[tuple[str, int, str, str, str, str]]:
    """Each labelled site ``[path, line, rule, verdict, reason]`` with its outcome: a finding of the
    rule on that line of that file is a hit; ``tp``/``fn`` for a ``flag`` site, ``fp``/``tn`` for a
    ``noflag`` one."""
    return [(p, n, r, v, why, OUTCOME[(v, (p, n, r) in found)]) for p, n, r, v, why in sites]


def off_sites(sites: list, found: set[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """The findings of the four rules on no labelled site, sorted."""
    return sorted(f for f in found - {(p, n, r) for p, n, r, *_ in sites} if f[2] in RULES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    parser.add_argument("--set", type=Path, default=HERE, help="the folder of the labels.toml (default: this one)")
    args = parser.parse_args(argv)
    labels = tomllib.loads((args.set / "labels.toml").read_text(encoding="utf-8"))
    counts = {rule: {"tp": 0, "fp": 0, "fn": 0, "tn": 0} for rule in RULES}
    misses, alarms, unlabelled = [], [], []
    for tree in labels["tree"]:
        root = TREES / tree["dir"]
        found, _ = findings(root)
        for path, line, rule, _, reason, outcome in outcomes(tree["sites"], found):
            counts[rule][outcome] += 1
            if outcome == "fn":
                misses.append(f"{tree['dir']}/{path}:{line} {rule}: {reason}")
            if outcome == "fp":
                alarms.append(f"{tree['dir']}/{path}:{line} {rule}: {reason}")
        unlabelled += [f"{tree['dir']}/{p}:{n} {c}" for p, n, c in off_sites(tree["sites"], found)]
    print(f"{'rule':6} {'tp':>3} {'fp':>3} {'fn':>3} {'tn':>3}  precision  recall")
    figures = {}
    for rule, c in counts.items():
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
        figures[rule] = {**c, "precision": precision, "recall": recall}
        shown = [f"{v:.2f}" if v is not None else "  - " for v in (precision, recall)]
        print(f"{rule:6} {c['tp']:>3} {c['fp']:>3} {c['fn']:>3} {c['tn']:>3}  {shown[0]:>9}  {shown[1]:>6}")
    for title, rows in (("misses", misses), ("false alarms", alarms), ("findings on no labelled site", unlabelled)):
        print(f"\n{title} ({len(rows)}):")
        for row in rows:
            print(f"  {row}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rules": figures, "misses": misses, "false_alarms": alarms,
                                               "unlabelled": unlabelled}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
