"""How fast is the checker, and does it still find the same things? CPU ratios of one run.

Trees (under ``benchmarks/.data/``, git-ignored; third-party code is never committed):

- ``stdlib``: a copy of this interpreter's standard library, test folders left out;
- ``langchain-community``: the 0.4.2 sdist from PyPI (about 2 000 files, tests included);
- ``crewai-tools``: the sdist from PyPI, latest release or the version recorded in
  ``benchmarks/lint_digests.json``.

Only ``.py``/``.pyi`` files are copied, minus the checker's default excludes; each tree gets a
``pyproject.toml`` with an empty ``[tool.dispatchguard]`` table and is made a git repository of its
own, as a checked-out project is (otherwise the ignore files of this repository, which ignores
``benchmarks/.data``, would be read for every path of the tree). A tree whose download fails is
skipped with a message.

Every command runs in its own subprocess, from the tree's root; the median of ``--repeats`` runs
(default ``BENCH_REPEATS`` or 5) is reported for its CPU time (user + sys of the process and of the
children it reaped, from ``os.wait4``), its wall time, the peak RSS of its largest process and the
peak PSS summed over all its processes (both sampled from /proc every 20 ms). The commands of a
group run round-robin, so that noise from the shared machine hits them alike:

- floor: a ``python -c`` script that reads every file and parses it with ``ast.parse``;
- ``dispatchguard check -j1 --no-cache`` and the default parallel ``dispatchguard check --no-cache``;
- flake8 on one stdin buffer (a real tool module of the tree) in the cold project (no
  ``.dispatchguard_cache``): ``--select DG`` against ``--select F`` run without our plugin (flake8
  runs every installed plugin, whatever ``--select`` says);
- warm: ``dispatchguard check`` with its cache primed, against ``ruff check`` with its cache primed.

Ratios are printed against the floor and against the targets of issue 10, with PASS/FAIL. Then the
findings digest of each tree: the sha256 of the sorted lines ``path:line:col: CODE message`` (paths
relative to the tree root) of ``dispatchguard check --output-format json --no-cache`` (so findings
silenced by ``# noqa`` are left out), and the count per code. The lines themselves go to
``benchmarks/.data/findings/<tree>.txt`` (and ``<tree>.recorded.txt`` with ``--write-digests``), so that
``--check-digests`` can show which findings changed.

The checker's bytecode is compiled first (``compileall``), as installing a wheel does: with
``PYTHONDONTWRITEBYTECODE`` set (this machine sets it) an editable checkout would otherwise compile
its 50 modules from source in every measured run, about 0.05 s of CPU (6 % of the floor).

The checker measured is the one the venv imports; to measure another commit without touching the
work tree, put a copy of its ``src`` first: ``PYTHONPATH=/tmp/snapshot/src``.

Usage (with the project's venv)::

    .venv/bin/python benchmarks/lint_speed.py                       # measure all trees, 5 repeats
    .venv/bin/python benchmarks/lint_speed.py --trees stdlib --repeats 3
    .venv/bin/python benchmarks/lint_speed.py --digest-only --check-digests   # findings unchanged?
    .venv/bin/python benchmarks/lint_speed.py --digest-only --write-digests   # record new digests
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import astuple, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
DOWNLOADS = DATA / "download"
DIGESTS = HERE / "lint_digests.json"
FINDINGS = DATA / "findings"  # the lines behind each digest: <tree>.txt (last run), <tree>.recorded.txt
BIN = Path(sys.executable).parent
PYTHON_SUFFIXES = (".py", ".pyi")
# The checker's default excludes (directory names); the tree copy and the floor both leave them out.
EXCLUDED_DIRS = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "*.egg-info", "__pycache__",
    "__pypackages__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".dispatchguard_cache", "build",
    "dist", "node_modules", "site-packages",
)  # fmt: skip
STDLIB_TEST_DIRS = ("test", "tests", "idle_test")
TREE_NAMES = ("stdlib", "langchain-community", "crewai-tools")
# the measured commands, as labelled in the report
FLOOR = "floor (read + ast.parse)"
J1 = "check -j1 --no-cache"
JDEFAULT = "check --no-cache (default -j)"
# the same run reading this interpreter's environment (real crewai, langchain-core, langchain,
# langgraph, langchain-tavily: the libraries at another release than the bundled table's are read)
J1_ENV = "check -j1 --no-cache --python (env)"
FLAKE8_F = "flake8 --select F (stdin)"
FLAKE8_DG = "flake8 --select DG (stdin, cold)"
WARM = "check warm (CLI, cache primed)"
RUFF_WARM = "ruff warm (cache primed)"

FLOOR_SCRIPT = """\
import ast, fnmatch, os, sys
root, excluded = sys.argv[1], sys.argv[2:]
count = 0
for dirpath, dirnames, filenames in os.walk(root):
    dirnames[:] = [d for d in dirnames if not any(fnmatch.fnmatchcase(d, p) for p in excluded)]
    for name in filenames:
        if name.endswith((".py", ".pyi")):
            with open(os.path.join(dirpath, name), "rb") as handle:
                source = handle.read()
            try:
                ast.parse(source)
            except (SyntaxError, ValueError):
                pass
            count += 1
print(count)
"""

# flake8 without the dispatchguard plugin: the same flake8, with our entry point filtered out
FLAKE8_WITHOUT_DG = """\
import sys, flake8.plugins.finder as finder
found = finder._find_importlib_plugins
finder._find_importlib_plugins = lambda: (p for p in found() if p.package != "dispatchguard")
from flake8.main.cli import main
sys.exit(main())
"""


@dataclass(frozen=True)
class Sdist:
    requirement: str  # the PyPI project name
    version: str | None  # None: the latest release
    stdin_file: str  # a real tool module of the tree, fed to flake8 on stdin


SDISTS = {
    "langchain-community": Sdist("langchain-community", "0.4.2", "langchain_community/tools/shell/tool.py"),
    "crewai-tools": Sdist("crewai-tools", None, "src/crewai_tools/tools/file_read_tool/file_read_tool.py"),
}


@dataclass(frozen=True)
class Tree:
    name: str
    version: str
    root: Path
    stdin_file: str | None = None

    @property
    def cache(self) -> Path:
        return self.root / ".dispatchguard_cache"


@dataclass(frozen=True)
class Sample:
    cpu: float  # seconds, user + sys of the process and its reaped children
    wall: float  # seconds
    rss_mb: float  # peak RSS of the largest single process of the command, sampled
    pss_mb: float  # peak of the PSS summed over the process and its descendants, sampled


@dataclass
class Job:
    label: str
    cmd: list[str]
    stdin: Path | None = None
    before: Callable[[], None] | None = None  # unmeasured set-up run before every repeat
    samples: list[Sample] = field(default_factory=list)
    output: str = ""

    def median(self) -> Sample:
        return Sample(*(statistics.median(values) for values in zip(*map(astuple, self.samples), strict=True)))


# --- trees -------------------------------------------------------------------------------------


def is_excluded(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def copy_python_files(source: Path, target: Path, skip_dirs: tuple[str, ...] = ()) -> None:
    """Copy the Python files under ``source`` to ``target``, then mark the tree done with the config."""
    if target.exists():
        shutil.rmtree(target)
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if not is_excluded(d, EXCLUDED_DIRS + skip_dirs))
        for name in filenames:
            if name.endswith(PYTHON_SUFFIXES):
                destination = target / Path(dirpath).relative_to(source) / name
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(dirpath, name), destination)
    (target / "pyproject.toml").write_text("[tool.dispatchguard]\n")


def own_repository(root: Path) -> None:
    """Make ``root`` a git repository of its own (an empty one: only its top matters)."""
    if not (root / ".git").exists() and shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)


def stdlib_tree() -> Tree:
    version = platform.python_version()
    root = DATA / f"stdlib-{version}"
    if not (root / "pyproject.toml").exists():
        copy_python_files(Path(sysconfig.get_paths()["stdlib"]), root, skip_dirs=STDLIB_TEST_DIRS)
    return Tree("stdlib", version, root)


def download_sdist(requirement: str) -> Path:
    """The sdist of ``requirement`` in ``DOWNLOADS`` (raises RuntimeError when pip fails)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-qd", tmp, requirement],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        archives = list(Path(tmp).glob("*.tar.gz"))
        if result.returncode != 0 or len(archives) != 1:
            last_line = (result.stderr.strip().splitlines() or ["no sdist"])[-1]
            raise RuntimeError(f"pip download {requirement} failed: {last_line}")
        DOWNLOADS.mkdir(parents=True, exist_ok=True)
        return Path(shutil.move(archives[0], DOWNLOADS / archives[0].name))


def unpack_sdist(archive: Path, target: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
        (top,) = Path(tmp).iterdir()
        copy_python_files(top, target)


def sdist_tree(name: str, pinned: str | None) -> Tree | None:
    """The unpacked sdist ``name`` (version from SDISTS, else ``pinned``, else the latest)."""
    spec = SDISTS[name]
    version = spec.version or pinned
    if version and (DATA / f"{name}-{version}" / "pyproject.toml").exists():
        return Tree(name, version, DATA / f"{name}-{version}", spec.stdin_file)
    try:
        archive = download_sdist(f"{spec.requirement}=={version}" if version else spec.requirement)
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"{name}: skipped ({exc})")
        return None
    version = archive.name.removesuffix(".tar.gz").rpartition("-")[2]
    root = DATA / f"{name}-{version}"
    if not (root / "pyproject.toml").exists():
        unpack_sdist(archive, root)
    return Tree(name, version, root, spec.stdin_file)


def prepare_trees(names: list[str], recorded: dict[str, dict]) -> list[Tree]:
    trees = []
    for name in names:
        tree = stdlib_tree() if name == "stdlib" else sdist_tree(name, recorded.get(name, {}).get("version"))
        if tree is not None:
            own_repository(tree.root)  # trees unpacked by an earlier version of this script too
            trees.append(tree)
    return trees


# --- measurement -------------------------------------------------------------------------------


def memory_kb(pid: int) -> tuple[int, int]:
    """(peak RSS, current PSS) of one process in kB; zeros once it is gone (or off Linux)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            hwm = next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0)
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            pss = next((int(line.split()[1]) for line in rollup if line.startswith("Pss:")), 0)
    except (OSError, ValueError):
        return 0, 0
    return hwm, pss


def process_tree(pid: int) -> list[int]:
    pids, pending = [], [pid]
    while pending:
        current = pending.pop()
        pids.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    pending += map(int, children.read().split())
        except OSError:
            continue
    return pids


class TreeMemory(threading.Thread):
    """Memory of a process and its descendants, sampled every 20 ms from /proc: the peak RSS of the
    largest process (VmHWM) and the peak of their summed PSS (shared pages counted once). A thread of
    this process, so it costs the measured command no CPU.

    Not ``ru_maxrss``: Linux carries the forking parent's peak RSS over into the child's, so every
    command would weigh at least as much as this script."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.largest_kb = 0
        self.total_kb = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.02):
            hwms, psss = zip(*map(memory_kb, process_tree(self.pid)), strict=True)
            self.largest_kb = max(self.largest_kb, *hwms)
            self.total_kb = max(self.total_kb, sum(psss))

    def stop(self) -> tuple[float, float]:
        """Stop sampling: (largest process peak RSS, process tree peak PSS) in MB."""
        self.stopped.set()
        self.join()
        return self.largest_kb / 1024, self.total_kb / 1024


def measure(cmd: list[str], cwd: Path, stdin: Path | None = None) -> tuple[Sample, str]:
    """Run ``cmd`` once: its CPU, wall time and memory, and its stdout. Exits on a non-zero status."""
    with (
        open(stdin or os.devnull, "rb") as stdin_file,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        start = time.perf_counter()
        process = subprocess.Popen(cmd, cwd=cwd, stdin=stdin_file, stdout=out, stderr=err)
        memory = TreeMemory(process.pid)
        memory.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        rss_mb, pss_mb = memory.stop()
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait for it
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[:6])} ... exited {process.returncode}:\n{err.read().decode()[-1000:]}")
        sample = Sample(usage.ru_utime + usage.ru_stime, wall, rss_mb, pss_mb)
        return sample, out.read().decode()


def run_round_robin(jobs: list[Job], cwd: Path, repeats: int) -> None:
    for _ in range(repeats):
        for job in jobs:
            if job.before is not None:
                job.before()
            sample, job.output = measure(job.cmd, cwd, job.stdin)
            job.samples.append(sample)


def dispatchguard(*args: str) -> list[str]:
    return [str(BIN / "dispatchguard"), "check", "--exit-zero", *args, "."]


def ruff_command(tree: Tree) -> list[str] | None:
    ruff = shutil.which("ruff", path=str(BIN)) or shutil.which("ruff")
    if ruff is None:
        return None
    cache = DATA / "ruff-cache" / tree.root.name
    # --no-respect-gitignore: the trees live under the repository's git-ignored benchmarks/.data
    return [ruff, "check", "--no-fix", "--exit-zero", "--quiet", "--isolated", "--no-respect-gitignore",
            "--cache-dir", str(cache), "."]  # fmt: skip


def cold_jobs(tree: Tree) -> list[Job]:
    def drop_cache() -> None:
        shutil.rmtree(tree.cache, ignore_errors=True)

    floor = [sys.executable, "-P", "-c", FLOOR_SCRIPT, str(tree.root), *EXCLUDED_DIRS]
    jobs = [
        Job(FLOOR, floor),
        Job(J1, dispatchguard("-j1", "--no-cache")),
        Job(JDEFAULT, dispatchguard("--no-cache")),
        Job(J1_ENV, dispatchguard("-j1", "--no-cache", "--python", sys.prefix)),
    ]
    if tree.stdin_file is not None:
        stdin = tree.root / tree.stdin_file
        stdin_args = ["--exit-zero", "--stdin-display-name", str(stdin), "-"]
        without_dg = [sys.executable, "-P", "-c", FLAKE8_WITHOUT_DG, "--select", "F", *stdin_args]
        with_dg = [sys.executable, "-P", "-m", "flake8", "--select", "DG", *stdin_args]
        jobs += [
            Job(FLAKE8_F, without_dg, stdin, drop_cache),
            Job(FLAKE8_DG, with_dg, stdin, drop_cache),
        ]
    return jobs


def warm_jobs(tree: Tree) -> list[Job]:
    jobs = [Job(WARM, dispatchguard())]
    ruff = ruff_command(tree)
    if ruff is not None:
        jobs.append(Job(RUFF_WARM, ruff))
    return jobs


def measure_tree(tree: Tree, repeats: int) -> dict[str, Sample]:
    cold = cold_jobs(tree)
    run_round_robin(cold, tree.root, repeats)
    shutil.rmtree(tree.cache, ignore_errors=True)
    warm = warm_jobs(tree)
    for job in warm:  # prime each cache once
        measure(job.cmd, tree.root)
    run_round_robin(warm, tree.root, repeats)
    print(f"  files: {cold[0].output.strip()} (floor)")
    return {job.label: job.median() for job in cold + warm}


# --- report ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    label: str
    numerator: str
    denominator: str
    metric: str  # a Sample field
    limit: float
    trees: tuple[str, ...] = TREE_NAMES
    goal: float | None = None


TARGETS = (
    Target("cold -j1 CPU / floor CPU", J1, FLOOR, "cpu", 1.0, ("stdlib", "langchain-community"), goal=0.7),
    Target("cold -j1 CPU with the environment / without", J1_ENV, J1, "cpu", 1.25),
    Target("default -j wall / floor wall", JDEFAULT, FLOOR, "wall", 0.8, ("langchain-community",)),
    Target("flake8 DG stdin CPU / flake8 F CPU", FLAKE8_DG, FLAKE8_F, "cpu", 2.0, ("langchain-community",)),
    Target("warm CLI CPU / ruff warm CPU", WARM, RUFF_WARM, "cpu", 1.0),
    Target("default -j peak RSS / floor (largest proc)", JDEFAULT, FLOOR, "rss_mb", 2.0),
    Target("default -j peak PSS / floor (all procs)", JDEFAULT, FLOOR, "pss_mb", 2.0),
)  # fmt: skip


def print_table(results: dict[str, Sample]) -> None:
    floor = results[FLOOR]
    print(f"  {'command':<34} {'CPU s':>7} {'wall s':>7} {'RSS MB':>10} {'PSS MB':>8} "
          f"{'CPU/floor':>10} {'wall/floor':>11}")  # fmt: skip
    for label, s in results.items():
        print(f"  {label:<34} {s.cpu:7.2f} {s.wall:7.2f} {s.rss_mb:10.0f} {s.pss_mb:8.0f} "
              f"{s.cpu / floor.cpu:9.2f}x {s.wall / floor.wall:10.2f}x")  # fmt: skip


def check_targets(tree: Tree, results: dict[str, Sample]) -> list[str]:
    """Print every target of this tree; return the labels of the failed ones."""
    failed = []
    for target in TARGETS:
        if tree.name not in target.trees or target.numerator not in results or target.denominator not in results:
            continue
        ratio = getattr(results[target.numerator], target.metric) / getattr(results[target.denominator], target.metric)
        verdict = "PASS" if ratio <= target.limit else "FAIL"
        goal = f" (goal {target.goal:.2f})" if target.goal is not None else ""
        print(f"  {verdict}  {target.label:<44} {ratio:6.2f}x  target <= {target.limit:.2f}{goal}")
        if verdict == "FAIL":
            failed.append(f"{tree.name}: {target.label}")
    return failed


def findings_text(tree: Tree) -> str:
    """The sorted ``path:line:col: CODE message`` lines of ``dispatchguard check --no-cache``."""
    _, output = measure(dispatchguard("--no-cache", "--output-format", "json"), tree.root)
    root = os.path.realpath(tree.root)
    lines = sorted(
        f"{Path(os.path.relpath(f['filename'], root)).as_posix()}:{f['location']['row']}:{f['location']['column']}: "
        f"{f['code']} {f['message']}"
        for f in json.loads(output)
    )
    return "".join(line + "\n" for line in lines)


def findings_digest(tree: Tree, text: str) -> dict:
    """The sha256 of the findings lines, and the count per code."""
    codes = Counter(line.split(": ", 1)[1].split(" ", 1)[0] for line in text.splitlines())
    return {
        "version": tree.version,
        "findings": sum(codes.values()),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "codes": dict(sorted(codes.items())),
    }


def compare_digest(tree: Tree, got: dict, recorded: dict | None) -> bool:
    if recorded is None:
        print(f"  digest: nothing recorded for {tree.name} in {DIGESTS.name}")
        return False
    if recorded["version"] != got["version"]:
        print(f"  digest: recorded for {tree.name} {recorded['version']}, this is {got['version']}: not comparable")
        return False
    if recorded["sha256"] != got["sha256"]:
        print(f"  digest MISMATCH: recorded {recorded['sha256']} {recorded['codes']}")
        print_findings_diff(tree)
        return False
    print("  digest matches the recorded one")
    return True


def print_findings_diff(tree: Tree, limit: int = 40) -> None:
    recorded = FINDINGS / f"{tree.name}.recorded.txt"
    if not recorded.exists():
        print(f"  (no {recorded.relative_to(HERE.parent)} on this machine to show which findings changed)")
        return
    current = FINDINGS / f"{tree.name}.txt"
    diff = list(difflib.unified_diff(
        recorded.read_text().splitlines(), current.read_text().splitlines(), str(recorded), str(current), lineterm="",
    ))  # fmt: skip
    print("\n".join(f"    {line}" for line in diff[:limit]))
    if len(diff) > limit:
        print(f"    ... {len(diff) - limit} more lines: diff {recorded} {current}")


def save_findings(tree: Tree, text: str, recorded: bool) -> None:
    FINDINGS.mkdir(parents=True, exist_ok=True)
    (FINDINGS / f"{tree.name}.txt").write_text(text)
    if recorded:
        (FINDINGS / f"{tree.name}.recorded.txt").write_text(text)


def load_recorded() -> dict[str, dict]:
    return json.loads(DIGESTS.read_text())["trees"] if DIGESTS.exists() else {}


def write_digests(digests: dict[str, dict]) -> None:
    trees = {**load_recorded(), **digests}
    data = {"python": platform.python_version(), "trees": dict(sorted(trees.items()))}
    DIGESTS.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {DIGESTS.relative_to(HERE.parent)}")


# --- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trees", default=",".join(TREE_NAMES), help=f"comma-separated, of {', '.join(TREE_NAMES)}")
    parser.add_argument("--repeats", type=int, default=int(os.environ.get("BENCH_REPEATS", "5")))
    parser.add_argument("--digest-only", action="store_true", help="only the findings digests (one run per tree)")
    parser.add_argument("--check-digests", action="store_true", help=f"exit 1 unless they match {DIGESTS.name}")
    parser.add_argument("--write-digests", action="store_true", help=f"record them in {DIGESTS.name}")
    args = parser.parse_args(argv)
    args.trees = [name.strip() for name in args.trees.split(",") if name.strip()]
    unknown = sorted(set(args.trees) - set(TREE_NAMES))
    if unknown:
        parser.error(f"unknown tree(s): {', '.join(unknown)}; choose from {', '.join(TREE_NAMES)}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def compile_checker() -> None:
    """Write the bytecode of the package the venv imports (see the module docstring)."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("dispatchguard")
    assert spec is not None and spec.submodule_search_locations, "dispatchguard is not importable"
    for location in spec.submodule_search_locations:
        compileall.compile_dir(location, quiet=1)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # the trees are checked as checked-out projects without an environment (J1_ENV names one)
    os.environ.pop("VIRTUAL_ENV", None)
    compile_checker()
    recorded = load_recorded()
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"lint_speed: {os.cpu_count()} cores (load average {load}), Python {platform.python_version()}, "
          f"repeats {args.repeats}")  # fmt: skip
    trees = prepare_trees(args.trees, recorded)
    digests: dict[str, dict] = {}
    failed_targets: list[str] = []
    digests_ok = True
    for tree in trees:
        print(f"\n== {tree.name} {tree.version} ({tree.root.relative_to(HERE.parent)})")
        if not args.digest_only:
            results = measure_tree(tree, args.repeats)
            print_table(results)
            failed_targets += check_targets(tree, results)
        text = findings_text(tree)
        save_findings(tree, text, recorded=args.write_digests)
        digests[tree.name] = digest = findings_digest(tree, text)
        print(f"  findings: {digest['findings']}  sha256 {digest['sha256']}")
        print(f"  per code: {digest['codes']}")
        if args.check_digests:
            digests_ok &= compare_digest(tree, digest, recorded.get(tree.name))
    missing = [name for name in args.trees if name not in digests]
    if args.check_digests and missing:
        print(f"\ndigests not checked (tree missing): {', '.join(missing)}")
        digests_ok = False
    if not args.digest_only:
        print(f"\ntargets failed: {len(failed_targets)}" + "".join(f"\n  {label}" for label in failed_targets))
    if args.write_digests:
        write_digests(digests)
    return 0 if digests_ok else 1


if __name__ == "__main__":
    sys.exit(main())
