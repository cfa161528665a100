"""Precision and recall of the checker per rule, on hand-labelled sites of real trees.

The trees are public code fetched or downloaded into ``benchmarks/.data/<dir>`` (git-ignored;
``labels.toml`` records where each comes from: a GitHub commit or a PyPI sdist). Only the labels
and this script are kept in the repository.

Each tree is checked as a user would check it: every *project* of the tree (a folder with its own
``pyproject.toml``, ``setup.py`` or ``requirements.txt`` that no other project contains; the tree's
root when there is none) is checked from its own folder; files outside every project belong to the
script folder (``main.py``) above them, or the root. Two configurations:

- ``default``: no configuration at all (any ``[tool.dispatchguard]`` table the tree might have is
  ignored: the configuration used is an empty file);
- ``minimal``: the tree's ``minimal`` table from ``labels.toml`` (a few lines a user would write).

A labelled site is ``[path, line, rule, verdict, reason]`` with ``verdict`` ``flag`` (a reader finds
that finding there) or ``noflag`` (a decoy: the rule must stay silent). A finding of the rule on
that line of that file counts; anything else the checker reports is *unlabelled* and listed with
``--show-unlabelled`` (the whole-tree sample). Precision = TP / (TP + FP), recall = TP / (TP + FN).

Getting the trees: ``--prepare`` fetches every missing tree into ``benchmarks/.data/<dir>``. A
``github:<owner>/<name>@<commit>`` tree is read from a local bare mirror when there is one
(``$DG_RECALL_MIRROR/<owner>+<name>/repo``, default ``/work/.mirror``: the fetch tool's layout), else
cloned bare from ``https://github.com/<owner>/<name>`` into ``benchmarks/.data/.git-mirrors``; the
commit is then written out with ``git archive`` (blobs a snapshot lacks, such as large binaries, are
left out). A ``pypi:<name>==<version> (sdist)`` tree is downloaded and unpacked the way
``benchmarks/lint_speed.py`` does it (its Python files only). A missing tree is skipped with a message.

The whole-tree sample: ``--sample N`` draws N findings on *unlabelled* lines (default configuration,
all trees; the N with the smallest hash of ``--seed`` and the finding, so that a finding keeps its
draw when the checker's other findings change) and prints each with its source line;
``sample_verdicts.toml`` records a reader's verdict for each (``ok`` or ``false-alarm`` and a reason).
The run prints the false alarms among the reviewed findings of the sample, and the estimate for the
whole trees (the false alarms on labelled sites plus the sample's rate over the unlabelled findings).

Usage (with the project's venv)::

    .venv/bin/python benchmarks/recall/evaluate.py                 # both configurations
    .venv/bin/python benchmarks/recall/evaluate.py --prepare          # fetch the missing trees first
    .venv/bin/python benchmarks/recall/evaluate.py --json out.json --show-misses
    .venv/bin/python benchmarks/recall/evaluate.py --config default --sample 80   # whole-tree sample
    .venv/bin/python benchmarks/recall/evaluate.py --python .venv   # with an installed environment
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / ".data"
LABELS = HERE / "labels.toml"
VERDICTS = HERE / "sample_verdicts.toml"
MIRROR = Path(os.environ.get("DG_RECALL_MIRROR", "/work/.mirror"))
BIN = Path(sys.executable).parent
PROJECT_FILES = ("pyproject.toml", "setup.py", "requirements.txt")
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__"}


def git_tree(root: Path, repository: str, commit: str) -> None:
    """Write ``commit`` of ``owner/name`` to ``root`` from a local mirror or a bare clone."""
    local = MIRROR / repository.replace("/", "+") / "repo"
    git_dir = local / ".git" if (local / ".git").is_dir() else local
    if not (git_dir / "objects").is_dir():
        git_dir = DATA / ".git-mirrors" / repository.replace("/", "+")
        if not git_dir.is_dir():
            url = f"https://github.com/{repository}"
            subprocess.run(["git", "clone", "-q", "--bare", url, str(git_dir)], check=True)
    git = ["git", "--git-dir", str(git_dir)]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", commit], capture_output=True, check=True).stdout
    entries = [entry.split(b"\t", 1) for entry in listing.split(b"\0") if entry]
    blobs = [(meta.split()[2], path) for meta, path in entries if meta.split()[1] == b"blob"]
    present = subprocess.run(
        [*git, "cat-file", "--batch-check"], input=b"\n".join(sha for sha, _ in blobs), capture_output=True, check=True
    ).stdout.splitlines()
    # a snapshot may lack its largest blobs (images, vector stores): leave those files out
    missing = [path.decode() for (_, path), line in zip(blobs, present, strict=True) if line.endswith(b" missing")]
    excludes = [f":(exclude,literal){path}" for path in missing]
    with tempfile.NamedTemporaryFile(suffix=".tar") as archive:
        # git still names an excluded missing blob on stderr; only the exit status tells a failure
        command = [*git, "archive", "-o", archive.name, commit, "--", ".", *excludes]
        written = subprocess.run(command, capture_output=True, check=False)
        if written.returncode != 0:
            raise SystemExit(f"git archive {repository}@{commit} failed: {written.stderr.decode()}")
        root.mkdir(parents=True)
        subprocess.run(["tar", "-xf", archive.name, "-C", str(root)], check=True)


def sdist_tree(root: Path, requirement: str) -> None:
    """Download and unpack the sdist ``requirement`` to ``root`` as benchmarks/lint_speed.py does."""
    sys.path.insert(0, str(HERE.parent))
    import lint_speed

    lint_speed.unpack_sdist(lint_speed.download_sdist(requirement), root)


def prepare(labels: dict) -> None:
    for tree in labels["tree"]:
        root = DATA / tree["dir"]
        if root.is_dir():
            continue
        kind, _, where = tree["source"].partition(":")
        print(f"preparing {tree['dir']} from {tree['source']}", file=sys.stderr)
        if kind == "github":
            repository, _, commit = where.partition("@")
            git_tree(root, repository, commit)
        elif kind == "pypi":
            sdist_tree(root, where.split()[0])
        else:
            raise SystemExit(f"unknown source kind {kind!r} for {tree['dir']}")


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


def rates(c: Counter) -> dict:
    precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
    recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
    return {**dict(c), "precision": precision, "recall": recall}


def score(
    labels: dict, configuration: str, show_misses: bool, show_unlabelled: bool, extra: list[str]
) -> tuple[dict, dict, list]:
    """Per-rule and per-tree counts, and the findings on no labelled site ``(dir, path, line, rule)``."""
    counts: dict[str, Counter] = defaultdict(Counter)
    per_tree: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    unlabelled: list[tuple[str, str, int, str]] = []
    for tree in labels["tree"]:
        root = DATA / tree["dir"]
        if not root.is_dir():
            print(f"skipped {tree['dir']}: not in {DATA} ({tree['source']}; run with --prepare)", file=sys.stderr)
            continue
        text = tree.get("minimal", "") if configuration == "minimal" else ""
        found = findings(root, text, extra)
        labelled = set()
        for path, line, rule, verdict, reason in tree["sites"]:
            hit = (path, line, rule) in found
            labelled.add((path, line, rule))
            outcome = {("flag", True): "tp", ("flag", False): "fn", ("noflag", True): "fp", ("noflag", False): "tn"}[
                (verdict, hit)
            ]
            for c in (counts[rule], per_tree[tree["dir"]][rule]):
                c[outcome] += 1
                c["sites"] += 1
            if show_misses and outcome in ("fn", "fp"):
                print(f"  {configuration} {outcome.upper()} {tree['dir']}/{path}:{line} {rule} ({reason})")
        for path, line, rule in sorted(found - labelled):
            unlabelled.append((tree["dir"], path, line, rule))
            if show_unlabelled:
                print(f"  {configuration} unlabelled {tree['dir']}/{path}:{line} {rule}")
    unlabelled_counts = Counter(rule for *_, rule in unlabelled)
    result = {rule: {**rates(counts[rule]), "unlabelled": unlabelled_counts[rule]} for rule in sorted(counts)}
    for directory, *_, rule in unlabelled:
        per_tree[directory][rule]["unlabelled"] += 1
    trees = {name: {rule: rates(c) for rule, c in sorted(rules.items())} for name, rules in per_tree.items()}
    return result, trees, unlabelled


def finding_id(item: tuple[str, str, int, str]) -> str:
    directory, path, line, rule = item
    return f"{directory}/{path}:{line}:{rule}"


def sample(unlabelled: list, size: int, seed: int, labelled: dict) -> None:
    """Print a seeded sample of unlabelled findings with their source lines, and the whole-tree figure."""
    # the N findings with the smallest seeded hash: a finding keeps its draw when the others change, so
    # verdicts recorded for one checker still cover most of the sample of the next
    chosen = sorted(unlabelled, key=lambda item: hashlib.sha256(f"{seed}:{finding_id(item)}".encode()).digest())[:size]
    verdicts = tomllib.loads(VERDICTS.read_text()).get("finding", {}) if VERDICTS.exists() else {}
    reviewed = false_alarms = 0
    print(f"sample of {len(chosen)} of {len(unlabelled)} unlabelled findings (seed {seed}):")
    for item in sorted(chosen):
        directory, path, line, _ = item
        lines = (DATA / directory / path).read_text(errors="replace").splitlines()
        verdict = verdicts.get(finding_id(item))
        mark = "unreviewed" if verdict is None else verdict["verdict"]
        if verdict is not None:
            reviewed += 1
            false_alarms += verdict["verdict"] == "false-alarm"
        print(f"  [{mark}] {finding_id(item)}: {lines[line - 1].strip()[:120]}")
    print(f"whole-tree sample: {false_alarms} false alarms in {reviewed} reviewed findings ({len(chosen)} drawn)")
    # every finding of the trees is on a labelled site (its verdict known) or unlabelled (the sample's rate)
    on_sites = sum(r.get("tp", 0) + r.get("fp", 0) for r in labelled.values())
    wrong_on_sites = sum(r.get("fp", 0) for r in labelled.values())
    if reviewed:
        estimate = wrong_on_sites + len(unlabelled) * false_alarms / reviewed
        total = on_sites + len(unlabelled)
        print(
            f"whole trees: {total} findings = {on_sites} on labelled sites ({wrong_on_sites} false alarms) + "
            f"{len(unlabelled)} unlabelled; estimated false alarms {estimate:.1f} = {estimate / total:.1%} of findings"
        )


def print_table(result: dict, indent: str = "  ") -> None:
    header = ("rule", "sites", "tp", "fp", "fn", "tn", "precision", "recall", "unlab")
    print(indent + " ".join(f"{h:>{w}}" for h, w in zip(header, (6, 5, 4, 4, 4, 4, 9, 6, 5), strict=True)))
    for rule, r in result.items():
        p = "-" if r["precision"] is None else f"{r['precision']:.2f}"
        q = "-" if r["recall"] is None else f"{r['recall']:.2f}"
        unlab = r.get("unlabelled", 0)
        print(
            f"{indent}{rule:6} {r.get('sites', 0):5} {r.get('tp', 0):4} {r.get('fp', 0):4} {r.get('fn', 0):4} "
            f"{r.get('tn', 0):4} {p:>9} {q:>6} {unlab:>5}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=("default", "minimal", "both"), default="both")
    parser.add_argument("--json", type=Path, help="also write the scores to this file")
    parser.add_argument("--prepare", action="store_true", help="fetch the trees missing from benchmarks/.data")
    parser.add_argument("--per-tree", action="store_true", help="also print the table of each tree")
    parser.add_argument("--show-misses", action="store_true", help="list false negatives and false positives")
    parser.add_argument("--show-unlabelled", action="store_true", help="list findings on no labelled site")
    parser.add_argument("--sample", type=int, metavar="N", help="print N unlabelled findings (default config)")
    parser.add_argument("--seed", type=int, default=11, help="seed of the --sample draw (default 11)")
    parser.add_argument(
        "--python", type=Path, help="check every tree with this installed environment (default: none)"
    )
    args = parser.parse_args()
    labels = tomllib.loads(LABELS.read_text())
    if args.prepare:
        prepare(labels)
    total = sum(len(t["sites"]) for t in labels["tree"])
    print(f"{total} labelled sites in {len(labels['tree'])} trees")
    configurations = ("default", "minimal") if args.config == "both" else (args.config,)
    scores = {}
    for configuration in configurations:
        extra = ["--python", str(args.python)] if args.python else []
        result, trees, unlabelled = score(labels, configuration, args.show_misses, args.show_unlabelled, extra)
        scores[configuration] = result
        print(f"{configuration}:")
        print_table(result)
        if args.per_tree:
            for name, rules in trees.items():
                print(f"  {name}:")
                print_table(rules, indent="    ")
        if args.sample and configuration == "default":
            sample(unlabelled, args.sample, args.seed, result)
    if args.json:
        args.json.write_text(json.dumps(scores, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
