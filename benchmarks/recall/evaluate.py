"""Precision and recall of the checker per rule, on hand-labelled sites of real trees.

The trees are public code fetched or downloaded into ``benchmarks/.data/<dir>`` (git-ignored;
``labels.toml`` records where each comes from: a GitHub commit or a PyPI sdist). Only the labels
and this script are kept in the repository.

Each tree is checked as a user would check it: every *project* of the tree (a folder with its own
``pyproject.toml``, ``setup.py`` or ``requirements.txt`` that no other project contains; the tree's
root when there is none) is checked from its own folder, with

Files outside every project belong to the script folder (``main.py``) above them, or the root.

- ``default``: no configuration at all (any ``[tool.dispatchguard]`` table the tree might have is
  ignored: the configuration used is an empty file);
- ``minimal``: the tree's ``minimal`` table from ``labels.toml`` (a few lines a user would write).

A labelled site is ``[path, line, rule, verdict, reason]`` with ``verdict`` ``flag`` (a reader finds
that finding there) or ``noflag`` (a decoy: the rule must stay silent). A finding of the rule on
that line of that file counts; anything else the checker reports is *unlabelled* and listed with
``--show-unlabelled`` (the whole-tree sample). Precision = TP / (TP + FP), recall = TP / (TP + FN).

Getting the trees: the sdists are the ones ``benchmarks/lint_speed.py`` downloads (copied to
``benchmarks/.data/crewai-tools-1.15.30`` and ``langchain-community-0.4.2``); a GitHub tree is
``git clone https://github.com/<owner>/<name> && git -C <name> checkout <commit>`` into
``benchmarks/.data/<dir>`` (``git archive <commit> | tar -x`` works too). A missing tree is
skipped with a message.

Usage (with the project's venv)::

    .venv/bin/python benchmarks/recall/evaluate.py                 # both configurations
    .venv/bin/python benchmarks/recall/evaluate.py --json out.json --show-misses
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / ".data"
LABELS = HERE / "labels.toml"
BIN = Path(sys.executable).parent
PROJECT_FILES = ("pyproject.toml", "setup.py", "requirements.txt")
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__"}


def projects(tree: Path) -> list[Path]:
    found = sorted(
        {p.parent for name in PROJECT_FILES for p in tree.rglob(name) if not SKIP_DIRS & set(p.relative_to(tree).parts)}
    )
    outer = [p for p in found if not any(q != p and q in p.parents for q in found)]
    if not outer:
        return [tree]
    # files outside every project: each belongs to the script folder above it (or the tree's root)
    scripts = {p.parent for p in tree.rglob("main.py")}
    for path in tree.rglob("*.py"):
        if SKIP_DIRS & set(path.relative_to(tree).parts) or any(p in path.parents for p in outer):
            continue
        folder = next((d for d in path.parents if d in scripts), tree)
        if folder not in outer:
            outer.append(folder)
    return outer


def findings(tree: Path, config_text: str, extra: list[str]) -> set[tuple[str, int, str]]:
    seen: set[tuple[str, int, str]] = set()
    for project in projects(tree):
        # the configuration file sits in the project's folder so that relative globs mean the same
        local = project / ".dg-recall.toml"
        local.write_text("[tool.dispatchguard]\n" + config_text)
        try:
            out = subprocess.run(
                [
                    str(BIN / "dispatchguard"),
                    "check",
                    "--no-cache",
                    "--exit-zero",
                    "--output-format",
                    "json",
                    "-j1",
                    "--config",
                    str(local),
                    *extra,
                    ".",
                ],
                cwd=project,
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            local.unlink()
        if out.returncode != 0:
            raise SystemExit(f"dispatchguard failed in {project}: {out.stderr}")
        for item in json.loads(out.stdout or "[]"):
            path = (project / item["filename"]).resolve().relative_to(tree.resolve()).as_posix()
            seen.add((path, item["location"]["row"], item["code"]))
    return seen


def score(labels: dict, configuration: str, show_misses: bool, show_unlabelled: bool) -> dict:
    counts: dict[str, Counter] = defaultdict(Counter)
    unlabelled: Counter = Counter()
    for tree in labels["tree"]:
        root = DATA / tree["dir"]
        if not root.is_dir():
            print(f"skipped {tree['dir']}: not in {DATA} ({tree['source']})", file=sys.stderr)
            continue
        text = tree.get("minimal", "") if configuration == "minimal" else ""
        found = findings(root, text, [])
        labelled = set()
        for path, line, rule, verdict, reason in tree["sites"]:
            hit = (path, line, rule) in found
            labelled.add((path, line, rule))
            outcome = {("flag", True): "tp", ("flag", False): "fn", ("noflag", True): "fp", ("noflag", False): "tn"}[
                (verdict, hit)
            ]
            counts[rule][outcome] += 1
            counts[rule]["sites"] += 1
            if show_misses and outcome in ("fn", "fp"):
                print(f"  {configuration} {outcome.upper()} {tree['dir']}/{path}:{line} {rule} ({reason})")
        for path, line, rule in sorted(found - labelled):
            unlabelled[rule] += 1
            if show_unlabelled:
                print(f"  {configuration} unlabelled {tree['dir']}/{path}:{line} {rule}")
    result = {}
    for rule in sorted(counts):
        c = counts[rule]
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
        result[rule] = {**dict(c), "precision": precision, "recall": recall, "unlabelled": unlabelled[rule]}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=("default", "minimal", "both"), default="both")
    parser.add_argument("--json", type=Path, help="also write the scores to this file")
    parser.add_argument("--show-misses", action="store_true", help="list false negatives and false positives")
    parser.add_argument("--show-unlabelled", action="store_true", help="list findings on no labelled site")
    args = parser.parse_args()
    labels = tomllib.loads(LABELS.read_text())
    total = sum(len(t["sites"]) for t in labels["tree"])
    print(f"{total} labelled sites in {len(labels['tree'])} trees")
    configurations = ("default", "minimal") if args.config == "both" else (args.config,)
    scores = {}
    for configuration in configurations:
        scores[configuration] = result = score(labels, configuration, args.show_misses, args.show_unlabelled)
        print(f"{configuration}:")
        header = ("rule", "sites", "tp", "fp", "fn", "tn", "precision", "recall", "unlab")
        print("  " + " ".join(f"{h:>{w}}" for h, w in zip(header, (6, 5, 4, 4, 4, 4, 9, 6, 5), strict=True)))
        for rule, r in result.items():
            p = "-" if r["precision"] is None else f"{r['precision']:.2f}"
            q = "-" if r["recall"] is None else f"{r['recall']:.2f}"
            print(
                f"  {rule:6} {r.get('sites', 0):5} {r.get('tp', 0):4} {r.get('fp', 0):4} {r.get('fn', 0):4} "
                f"{r.get('tn', 0):4} {p:>9} {q:>6} {r['unlabelled']:5}"
            )
    if args.json:
        args.json.write_text(json.dumps(scores, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
