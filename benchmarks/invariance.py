"""Does a file get the findings ``check .`` gives it, however it is asked? (issue 32)

On real trees, fetched at pinned commits (never committed): the findings of ``dispatchguard check
--no-cache .`` at the tree's root are the reference. Then random batches of 1-8 paths (files and
folders, in random order) are checked as pre-commit checks them (``--force-exclude``), alternating
a cold run (``--no-cache``), a run on a cache shared by the batches before it (warm or half-warm),
``-j1`` and the default ``-j``; a batch of one file is also sent on standard input
(``--stdin-filename``) every third time. Each batch's findings must be exactly the reference's
findings of the files under its paths. The files whose findings differ are printed with both
answers (goal: none).

Trees (under ``~/.cache/dispatchguard-invariance/`` or ``$DG_INVARIANCE_DATA``: outside this
repository, whose configuration a tree inside it would take for its own):

- ``epic_news``: fjacquet/epic_news at ``bf74d32`` (a CrewAI application, src layout);
- ``crewai-examples``: crewAIInc/crewAI-examples at ``da94a91`` (a monorepo: one project per folder,
  each with its own ``pyproject.toml``: nested configurations);
- ``langchain-community``: the 0.4.2 sdist from PyPI (about 2 000 files), as ``lint_speed.py``
  prepares it.

A repository comes from the search tool's mirror (``/work/.mirror/<owner>+<name>/repo``, or
``--mirrors``) through ``git archive``; a tree whose source is missing is skipped with a message.

Usage (with the project's venv)::

    .venv/bin/python benchmarks/invariance.py                    # all trees, 40 batches each
    .venv/bin/python benchmarks/invariance.py --trees epic_news --batches 100 --seed 7

Last, per tree, the whole-tree CPU of ``flake8 --select DG`` against ``flake8 --select F`` run
without the plugin (median of ``--flake8-repeats`` alternating runs, cold cache; target <= 2x).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: outside this repository: a tree inside it would take this project's configuration as its own (the
#: nearest [tool.dispatchguard] table above it), not the one it has when checked out
DATA = Path(os.environ.get("DG_INVARIANCE_DATA", Path.home() / ".cache" / "dispatchguard-invariance"))
DOWNLOADS = HERE / ".data" / "download"
BIN = Path(sys.executable).parent
READ_SUFFIXES = (".py", ".pyi", ".ipynb", ".toml", ".cfg")
READ_NAMES = {".gitignore", ".ignore", "setup.py"}
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".dispatchguard_cache"}

#: name -> (mirror folder name, commit) for repositories
REPOSITORIES = {
    "epic_news": ("fjacquet+epic_news", "bf74d32"),
    "crewai-examples": ("crewAIInc+crewAI-examples", "da94a91e691e1cf5b3151416bb15b5b62729bea8"),
}
SDISTS = {"langchain-community": ("langchain-community", "0.4.2")}


def prepare(name: str, mirrors: Path) -> Path | None:
    """The tree's folder, extracted once; None (with a message) when its source is missing."""
    tree = DATA / name
    if tree.is_dir():
        return tree
    DATA.mkdir(parents=True, exist_ok=True)
    scratch = DATA / f".{name}.partial"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    if name in REPOSITORIES:
        mirror, commit = REPOSITORIES[name]
        git_dir = mirrors / mirror / "repo"
        if not git_dir.is_dir():
            print(f"{name}: skipped, no mirror at {git_dir} (fetch github:{mirror.replace('+', '/')})")
            return None
        # only what the checker reads: a mirror may lack the large files of a repository
        listed = subprocess.run(
            ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", "--name-only", commit],
            capture_output=True, check=True,
        ).stdout.decode().split("\0")
        wanted = [p for p in listed if p.endswith(READ_SUFFIXES) or p.rpartition("/")[2] in READ_NAMES]
        archive = subprocess.run(
            ["git", f"--git-dir={git_dir}", "archive", commit, "--", *wanted], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive.stdout, check=True)
    else:
        package, version = SDISTS[name]
        DOWNLOADS.mkdir(parents=True, exist_ok=True)
        found = list(DOWNLOADS.glob(f"{package.replace('-', '_')}-{version}.tar.gz"))
        if not found:
            done = subprocess.run(
                [str(BIN / "python"), "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                 "-d", str(DOWNLOADS), f"{package}=={version}"],
                capture_output=True, text=True,
            )
            found = list(DOWNLOADS.glob(f"{package.replace('-', '_')}-{version}.tar.gz"))
            if done.returncode != 0 or not found:
                print(f"{name}: skipped, the sdist could not be downloaded: {done.stderr.strip()[-200:]}")
                return None
        with tarfile.open(found[0]) as archive:
            archive.extractall(scratch, filter="data")
        (top,) = scratch.iterdir()
        for item in top.iterdir():
            item.rename(scratch / item.name)
        top.rmdir()
        (scratch / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    # a checked-out project: its own git repository, so that this repository's ignore files stay out
    subprocess.run(["git", "init", "-q", str(scratch)], check=True)
    scratch.rename(tree)
    return tree


def python_paths(tree: Path) -> tuple[list[str], list[str]]:
    """(the tree's Python files, its folders holding some), relative, sorted."""
    files, folders = [], set()
    for folder, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in names:
            if name.endswith((".py", ".pyi")):
                rel = (Path(folder) / name).relative_to(tree).as_posix()
                files.append(rel)
                parent = Path(rel).parent
                while parent != Path("."):
                    folders.add(parent.as_posix())
                    parent = parent.parent
    return sorted(files), sorted(folders)


def findings(tree: Path, args: list[str], stdin: bytes | None = None) -> dict[str, set[str]]:
    """file (relative to the tree) -> its findings as ``line:col: CODE message``."""
    command = [str(BIN / "dispatchguard"), "check", "--output-format", "json", "--exit-zero", *args]
    done = subprocess.run(command, cwd=tree, input=stdin, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}: {done.stderr.decode()[-500:]}")
    out: dict[str, set[str]] = defaultdict(set)
    for item in json.loads(done.stdout):
        path = Path(item["filename"])
        rel = (path if not path.is_absolute() else path.relative_to(tree.resolve())).as_posix()
        out[rel].add(f"{item['location']['row']}:{item['location']['column']}: {item['code']} {item['message']}")
    return out


def under(rel: str, paths: list[str]) -> bool:
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in paths)


def run_tree(name: str, tree: Path, batches: int, rng: random.Random) -> dict[str, int]:
    files, folders = python_paths(tree)
    shutil.rmtree(tree / ".dispatchguard_cache", ignore_errors=True)
    started = time.perf_counter()
    reference = findings(tree, ["--no-cache", "."])
    print(f"{name}: {len(files)} files, {sum(len(v) for v in reference.values())} findings in "
          f"{len(reference)} files by `check .` ({time.perf_counter() - started:.1f} s)")
    cache = DATA / f".{name}.cache"
    shutil.rmtree(cache, ignore_errors=True)
    differing: dict[str, list[str]] = {}
    checked: set[str] = set()
    for number in range(batches):
        size = rng.randint(1, 8)
        paths = [rng.choice(folders) if folders and rng.random() < 0.15 else rng.choice(files) for _ in range(size)]
        paths = list(dict.fromkeys(paths))
        how = ["--no-cache"] if number % 2 == 0 else ["--cache-dir", str(cache)]
        how += ["-j1"] if number % 4 < 2 else []
        stdin = None
        if len(paths) == 1 and paths[0] in files and number % 3 == 0:
            how, stdin = ["--stdin-filename", paths[0]], (tree / paths[0]).read_bytes()
            got = findings(tree, [*how, "-"], stdin)
        else:
            got = findings(tree, ["--force-exclude", *how, *paths])
        for rel in set(got) | {rel for rel in reference if under(rel, paths)}:
            checked.add(rel)
            if got.get(rel, set()) != reference.get(rel, set()):
                differing.setdefault(rel, []).append(
                    f"  asked as {' '.join(how)} {' '.join(paths)}\n"
                    f"    check . : {sorted(reference.get(rel, set()))}\n    this run: {sorted(got.get(rel, set()))}"
                )
    for rel, lines in sorted(differing.items()):
        print(f"DIFFERS {name}/{rel}")
        print("\n".join(lines[:2]))
    print(f"{name}: {batches} batches, {len(checked)} files with findings compared, {len(differing)} differ")
    return {"batches": batches, "compared": len(checked), "differ": len(differing)}


#: flake8 without the dispatchguard plugin: the same flake8, with our entry point filtered out
#: (flake8 runs every installed plugin, whatever --select says)
FLAKE8_WITHOUT_DG = """\
import sys, flake8.plugins.finder as finder
found = finder._find_importlib_plugins
finder._find_importlib_plugins = lambda: (p for p in found() if p.package != "dispatchguard")
from flake8.main.cli import main
sys.exit(main())
"""


def child_cpu(command: list[str], cwd: Path) -> float:
    """user+sys CPU seconds of a command and the children it reaped."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def flake8_ratio(name: str, tree: Path, repeats: int) -> float:
    """Whole-tree CPU of ``flake8 --select DG`` over ``flake8 --select F`` (without our plugin),
    medians of alternating runs; the tree's cache is removed first (a cold editor path)."""
    python = str(BIN / "python")
    with_dg, without = [], []
    for _ in range(repeats):
        shutil.rmtree(tree / ".dispatchguard_cache", ignore_errors=True)
        with_dg.append(child_cpu([python, "-m", "flake8", "--select", "DG", "."], tree))
        without.append(child_cpu([python, "-c", FLAKE8_WITHOUT_DG, "--select", "F", "."], tree))
    ratio = statistics.median(with_dg) / statistics.median(without)
    print(f"{name}: whole-tree flake8 CPU: --select DG {statistics.median(with_dg):.2f} s, --select F "
          f"{statistics.median(without):.2f} s: {ratio:.2f}x (target <= 2x)")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", nargs="*", default=[*REPOSITORIES, *SDISTS], choices=[*REPOSITORIES, *SDISTS])
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--flake8-repeats", type=int, default=3, help="0: do not measure flake8's CPU")
    options = parser.parse_args()
    rng = random.Random(options.seed)
    total = 0
    for name in options.trees:
        tree = prepare(name, options.mirrors)
        if tree is not None:
            total += run_tree(name, tree, options.batches, rng)["differ"]
            if options.flake8_repeats:
                flake8_ratio(name, tree, options.flake8_repeats)
    print(f"files that differ: {total} (goal: none)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
