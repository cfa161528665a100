"""Every earlier evaluation set with one checker: per-rule precision and recall, set by set and pooled.

The sets: ``benchmarks/recall`` (the regression set, its default configuration: none) and the blind
sets ``benchmarks/recall_blind``, ``recall_blind_6`` ... ``recall_blind_27``, each scored with no
configuration by its own script's functions (``recall/evaluate.py`` checks each project of a tree
from its own folder; ``recall_blind/evaluate.py`` checks the tree's root). The checker is the one the
running interpreter imports, so one copy of these scripts measures any checker::

    .venv/bin/python benchmarks/recall_blind/evaluate_all.py --prepare --json benchmarks/recall_blind/all_after.json \\
        --compare benchmarks/recall_blind/all_before.json
    /work/wt/eval-before/.venv/bin/python benchmarks/recall_blind/evaluate_all.py --json all_before.json
    .venv/bin/python benchmarks/recall_blind/evaluate_all.py --load all_after.json --compare all_before.json

Every run is ``--no-cache`` and ``-j1``; sets run one after another. A tree the checker fails on
(exit 2) is left out of that run and named (``failures`` in the JSON). ``--compare BEFORE`` prints, as
Markdown, the two runs' tables and every labelled site whose verdict changed (gained: FN->TP or
FP->TN; lost: TP->FN or TN->FP).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
BENCHMARKS = HERE.parent
RULES = ("DG101", "DG102", "DG103", "DG104")
KINDS = ("tp", "fp", "fn", "tn")
LAST_SET = 27  # recall_blind_28 is issue 38's own blind set: its first run is its figure


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regression = load("recall_evaluate", BENCHMARKS / "recall" / "evaluate.py")
blind = load("blind_evaluate", HERE / "evaluate.py")
fetch = load("blind_fetch_trees", HERE / "fetch_trees.py")


def all_sets() -> list[Path]:
    numbered = sorted(BENCHMARKS.glob("recall_blind_*"), key=lambda p: int(p.name.rsplit("_", 1)[1]))
    return [BENCHMARKS / "recall", HERE, *(p for p in numbered if int(p.name.rsplit("_", 1)[1]) <= LAST_SET)]


def checker() -> dict:
    """Where the running interpreter's dispatchguard comes from: its folder, commit and whether it is edited."""
    code = "import dispatchguard, os; print(os.path.dirname(dispatchguard.__file__))"
    source = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    git = ["git", "-C", source]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "."], capture_output=True, text=True, check=False)
    return {"python": sys.executable, "source": source, "commit": commit, "edited": bool(dirty.stdout.strip())}


def tree_root(directory: Path, tree: dict) -> Path:
    return (regression.DATA if directory.name == "recall" else blind.TREES) / tree["dir"]


def prepare(directory: Path, labels: dict) -> None:
    if directory.name == "recall":
        regression.prepare(labels)
        return
    for tree in labels["tree"]:
        if not tree_root(directory, tree).exists():
            fetch.write(tree["source"], tree_root(directory, tree))


def run_set(directory: Path) -> dict:
    """The set's counts per rule, the outcome of every labelled site other than a TN (``"<dir>/<path>:<line>
    <rule> <tp|fp|fn>"``; a labelled site not listed is a TN), its findings on no labelled site, its checker CPU."""
    labels = tomllib.loads((directory / "labels.toml").read_text(encoding="utf-8"))
    outcomes, unlabelled, failures = [], [], []
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    for tree in labels["tree"]:
        root = tree_root(directory, tree)
        if not root.is_dir():
            raise SystemExit(f"{directory.name}: {root} is missing ({tree['source']}); run with --prepare")
        try:
            if directory.name == "recall":
                found = regression.findings(root, "", [])  # its own -j1, one run per project of the tree
            else:
                found, _ = blind.findings(root, jobs=1)
        except SystemExit as failed:  # the checker's exit 2: the tree is left out of this run, and named
            failures.append({"tree": tree["dir"], "sites": len(tree["sites"]), "error": str(failed).strip()[-300:]})
            print(f"{directory.name}: {failures[-1]['error']}", file=sys.stderr)
            continue
        outcomes += [(f"{tree['dir']}/{p}:{n}", r, o) for p, n, r, _, _, o in blind.outcomes(tree["sites"], found)]
        unlabelled += [f"{tree['dir']}/{p}:{n} {c}" for p, n, c in blind.off_sites(tree["sites"], found)]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {
        "trees": len(labels["tree"]),
        "cpu_s": round(cpu, 1),
        "wall_s": round(time.perf_counter() - started, 1),
        "rules": scores(outcomes),
        "failures": failures,
        "sites": [f"{site} {rule} {outcome}" for site, rule, outcome in outcomes if outcome != "tn"],
        "unlabelled": unlabelled,
    }


def scores(outcomes: list[tuple[str, str, str]]) -> dict:
    return {rule: rates({k: sum(1 for _, r, o in outcomes if (r, o) == (rule, k)) for k in KINDS}) for rule in RULES}


def rates(c: dict) -> dict:
    precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
    recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
    return {**c, "precision": precision, "recall": recall}


def pooled(per_set: dict[str, dict], names: list[str]) -> dict:
    """Each rule's counts summed over the sets ``names`` of ``per_set`` (set name -> its rules' counts)."""
    return {rule: rates({k: sum(per_set[n][rule][k] for n in names) for k in KINDS}) for rule in RULES}


def rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_tables(run: dict) -> None:
    blind_names = [n for n in run["sets"] if n != "recall"]
    rows = {
        **{n: s["rules"] for n, s in run["sets"].items()},
        "blind sets": pooled({n: s["rules"] for n, s in run["sets"].items()}, blind_names),
        "all sets": pooled({n: s["rules"] for n, s in run["sets"].items()}, list(run["sets"])),
    }
    for rule in RULES:
        print(f"\n{rule}\n{'set':16} {'tp':>4} {'fp':>4} {'fn':>4} {'tn':>4}  precision  recall")
        for name, figures in rows.items():
            f = figures[rule]
            print(
                f"{name:16} {f['tp']:4} {f['fp']:4} {f['fn']:4} {f['tn']:4}  {rate(f['precision']):>9}  "
                f"{rate(f['recall']):>6}"
            )
    for name, figures in run["sets"].items():
        for failure in figures["failures"]:
            print(f"\nleft out: {name} {failure['tree']} ({failure['sites']} sites): {failure['error']}")
    cpu = sum(s["cpu_s"] for s in run["sets"].values())
    print(f"\nchecker {run['checker']['commit'][:7]} ({run['checker']['source']}): {cpu:.0f} s CPU in the checker")


def paired_sites(name: str, before: dict, after: dict) -> list[tuple[str, str, str, str, str, str]]:
    """(site, rule, label, before, after, reason) of each labelled site of the set, the label and its
    reason read from the set's labels.toml; the trees left out of either run are left out of both."""
    directory = BENCHMARKS / name
    labels = tomllib.loads((directory / "labels.toml").read_text(encoding="utf-8"))
    skipped = {f["tree"] for run in (before, after) for f in run["sets"][name]["failures"]}
    outcomes = [dict(site.rsplit(" ", 1) for site in run["sets"][name]["sites"]) for run in (before, after)]
    out = []
    for tree in labels["tree"]:
        if tree["dir"] in skipped:
            continue
        for path, line, rule, label, reason in tree["sites"]:
            key = f"{tree['dir']}/{path}:{line} {rule}"
            was, now = (outcome.get(key, "tn") for outcome in outcomes)
            out.append((f"{tree['dir']}/{path}:{line}", rule, label, was, now, reason))
    return out


def compare(before: dict, after: dict) -> None:
    """Markdown: P/R per set and rule before -> after, pooled counts, and every changed verdict, over
    the trees both runs read."""
    names = [n for n in after["sets"] if n in before["sets"]]
    paired = {name: paired_sites(name, before, after) for name in names}
    old = {n: scores([(site, rule, was) for site, rule, _, was, _, _ in sites]) for n, sites in paired.items()}
    new = {n: scores([(site, rule, now) for site, rule, _, _, now, _ in sites]) for n, sites in paired.items()}
    print(
        f"before: {before['checker']['commit'][:7]}, after: {after['checker']['commit'][:7]}"
        f"{' (edited)' if after['checker']['edited'] else ''}\n"
    )
    for label, run in (("before", before), ("after", after)):
        for name in names:
            for failure in run["sets"][name]["failures"]:
                print(
                    f"The checker failed {label} on {name} `{failure['tree']}` ({failure['sites']} sites): "
                    "the comparison leaves it out of both runs.\n"
                )
    print("| set | " + " | ".join(RULES) + " |\n|---|" + "---|" * len(RULES))
    for name in names:
        cells = []
        for rule in RULES:
            b, a = (f"{rate(r[rule]['precision'])}/{rate(r[rule]['recall'])}" for r in (old[name], new[name]))
            cells.append(b if a == b else f"{b} → **{a}**")
        print(f"| {name} | " + " | ".join(cells) + " |")
    for title, chosen in (("blind sets", [n for n in names if n != "recall"]), ("all sets", names)):
        print(f"\nPooled, {title} ({len(chosen)}):\n")
        print("| rule | TP | FP | FN | TN | precision | recall |\n|---|---|---|---|---|---|---|")
        for rule in RULES:
            b, a = pooled(old, chosen)[rule], pooled(new, chosen)[rule]
            cells = [str(b[k]) if b[k] == a[k] else f"{b[k]} → {a[k]}" for k in KINDS]
            cells += [
                rate(b[k]) if rate(b[k]) == rate(a[k]) else f"{rate(b[k])} → {rate(a[k])}"
                for k in ("precision", "recall")
            ]
            print(f"| {rule} | " + " | ".join(cells) + " |")
    changed = {"gained": [], "lost": []}
    for name in names:
        for site, rule, label, was, now, reason in (s for s in paired[name] if s[3] != s[4]):
            kind = "gained" if now in ("tp", "tn") else "lost"
            changed[kind].append(f"| {name} | `{site}` | {rule} | {label} | {was.upper()} | {now.upper()} | {reason} |")
    for kind, rows in changed.items():
        print(
            f"\n{kind.capitalize()} ({len(rows)}):\n\n| set | site | rule | label | before | after | label's reason |"
            "\n|---|---|---|---|---|---|---|"
        )
        print("\n".join(rows))
    skipped = tuple(f"{f['tree']}/" for run in (before, after) for n in names for f in run["sets"][n]["failures"])
    for rule in RULES:
        b, a = (
            {u for n in names for u in run["sets"][n]["unlabelled"] if u.endswith(rule) and not u.startswith(skipped)}
            for run in (before, after)
        )
        print(f"\n{rule} findings on no labelled site: {len(b)} → {len(a)} (+{len(a - b)} new, -{len(b - a)} gone)")
        for finding in sorted(a - b):
            print(f"- new: `{finding}`")
        for finding in sorted(b - a):
            print(f"- gone: `{finding}`")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="OUT", type=Path, help="write the run (every site's outcome) as JSON")
    parser.add_argument("--prepare", action="store_true", help="write the trees missing from benchmarks/.data first")
    parser.add_argument("--sets", nargs="+", metavar="NAME", help="only these sets (folder names)")
    parser.add_argument("--compare", metavar="BEFORE", type=Path, help="print the changes from this earlier --json")
    parser.add_argument("--load", metavar="RUN", type=Path, help="read this --json instead of running the checker")
    args = parser.parse_args(argv)
    if args.load:
        run = json.loads(args.load.read_text(encoding="utf-8"))
    else:
        sets = [d for d in all_sets() if not args.sets or d.name in args.sets]
        if args.sets and len(sets) != len(args.sets):
            parser.error(f"unknown set among {args.sets}; the sets: {', '.join(d.name for d in all_sets())}")
        run = {"checker": checker(), "sets": {}}
        for directory in sets:
            labels = tomllib.loads((directory / "labels.toml").read_text(encoding="utf-8"))
            if args.prepare:
                prepare(directory, labels)
            run["sets"][directory.name] = run_set(directory)
            figures = run["sets"][directory.name]
            sites = sum(sum(r[k] for k in KINDS) for r in figures["rules"].values())
            print(
                f"{directory.name}: {figures['trees']} trees, {sites} sites, {figures['cpu_s']} s CPU", file=sys.stderr
            )
        if args.json:
            args.json.write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    print_tables(run)
    if args.compare:
        print()
        compare(json.loads(args.compare.read_text(encoding="utf-8")), run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
