"""How fast is the checker? Every figure of one run, against an ast.parse-only floor.

Trees: this interpreter's standard library (test folders left out, about 700 files) and one large
real agent code base (the ``crewai`` package from PyPI, unpacked under ``benchmarks/.data/``; skipped
with a message when it cannot be downloaded). Each tree is copied under ``benchmarks/.data/`` with a
``pyproject.toml`` holding an empty ``[tool.dispatchguard]`` table, so the CLI, the flake8 plugin
and the in-process runs all see the same root, configuration and cache.

Measured (medians of ``BENCH_REPEATS`` runs, default 5; flake8 ``BENCH_FLAKE8_REPEATS``, default 3):

- floor: read + ``ast.parse`` every file, one process;
- ``check_paths(jobs=1, use_cache=False)``, i.e. ``dispatchguard check -j1 --no-cache`` in process;
- the same with the default jobs (all cores);
- warm cache: in process, and the ``dispatchguard check`` CLI (includes interpreter start-up);
- ``ruff check --no-fix`` warm (its own cache);
- ``flake8 -j1 --select E9`` without the dispatchguard plugin vs ``--select E9,DG`` with it.

Targets (issue 3): -j1 no-cache <= 1.5x floor; warm <= 2x ruff warm; default -j < -j1 on 2 cores;
flake8 with the plugin <= 1.05x without.
"""

from __future__ import annotations

import ast
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
FLAKE8_REPEATS = int(os.environ.get("BENCH_FLAKE8_REPEATS", "3"))
TEST_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__"}
BIN = Path(sys.executable).parent

# flake8 run without the dispatchguard plugin: the same flake8, with our entry point filtered out
FLAKE8_WITHOUT = (
    "import sys, flake8.plugins.finder as f\n"
    "orig = f._find_importlib_plugins\n"
    "f._find_importlib_plugins = lambda: (p for p in orig() if p.package != 'dispatchguard')\n"
    "from flake8.main.cli import main\n"
    "sys.exit(main())\n"
)


def median_time(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def copy_tree(source: Path, target: Path, package: str | None = None) -> Path:
    """Copy the Python files of ``source`` to ``target`` (or ``target/package``) and add the config."""
    if not (target / "pyproject.toml").exists():
        if target.exists():
            shutil.rmtree(target)

        def ignore(directory: str, names: list[str]) -> set[str]:
            return {n for n in names if n in TEST_DIRS or (not n.endswith(".py") and not Path(directory, n).is_dir())}

        shutil.copytree(source, target / package if package else target, ignore=ignore, symlinks=False)
        (target / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    return target


def stdlib_tree() -> Path:
    return copy_tree(Path(sysconfig.get_paths()["stdlib"]), DATA / "stdlib")


def crewai_tree() -> Path | None:
    target = DATA / "crewai"
    if (target / "pyproject.toml").exists():
        return target
    download = DATA / "download"
    download.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "crewai", "--no-deps", "--only-binary", ":all:", "-d", str(download), "-q"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    wheels = sorted(download.glob("crewai-*.whl"))
    if result.returncode != 0 or not wheels:
        print(f"  crewai: skipped (pip download failed: {result.stderr.strip()[-200:]})")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheels[-1]) as wheel:
            wheel.extractall(tmp)
        return copy_tree(Path(tmp) / "crewai", target, package="crewai")


def python_files(root: Path) -> list[Path]:
    from dispatchguard.lint import load_config
    from dispatchguard.lint.engine import discover

    config = load_config([root])
    return discover([root], config, config.root)


def floor(files: list[Path]) -> None:
    for path in files:
        try:
            ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            pass


def run(cmd: list[str], cwd: Path) -> None:
    result = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])}... failed ({result.returncode}): {result.stderr[-500:]}")


def bench(name: str, root: Path) -> dict[str, float]:
    from dispatchguard.lint import check_paths, load_config

    config = load_config([root])
    files = python_files(root)
    cache = root / ".dispatchguard_cache"
    print(f"\n== {name}: {len(files)} files under {root}")
    r: dict[str, float] = {}
    r["floor"] = median_time(lambda: floor(files))
    r["j1_nocache"] = median_time(lambda: check_paths([root], config, jobs=1, use_cache=False))
    r["jdefault_nocache"] = median_time(lambda: check_paths([root], config, use_cache=False))
    shutil.rmtree(cache, ignore_errors=True)
    report = check_paths([root], config)  # prime the cache
    r["warm_inprocess"] = median_time(lambda: check_paths([root], config))
    dispatchguard = BIN / "dispatchguard"
    if dispatchguard.exists():
        r["warm_cli"] = median_time(lambda: run([str(dispatchguard), "check", "--exit-zero", "."], root))
    ruff = shutil.which("ruff", path=str(BIN)) or shutil.which("ruff")
    if ruff:
        ruff_cmd = [ruff, "check", "--no-fix", "--exit-zero", "--quiet", "--isolated", "--cache-dir", str(DATA / f"ruff-cache-{name}"), "."]
        run(ruff_cmd, root)  # prime ruff's cache
        r["ruff_warm"] = median_time(lambda: run(ruff_cmd, root))
    flake8_common = ["-j1", "--isolated", "--exit-zero", "."]
    # -P: the tree's own modules (a copy of the stdlib, crewai's `types`) must not shadow flake8's
    with_cmd = [sys.executable, "-P", "-m", "flake8", "--select", "E9,DG", *flake8_common]
    without_cmd = [sys.executable, "-P", "-c", FLAKE8_WITHOUT, "--select", "E9", *flake8_common]
    # interleave the two so that machine noise hits both alike
    with_times, without_times = [], []
    for _ in range(FLAKE8_REPEATS):
        for cmd, bucket in ((without_cmd, without_times), (with_cmd, with_times)):
            start = time.perf_counter()
            run(cmd, root)
            bucket.append(time.perf_counter() - start)
    r["flake8_without"] = statistics.median(without_times)
    r["flake8_with"] = statistics.median(with_times)

    active = sum(not f.suppressed for f in report.findings)
    print(f"  findings: {active} ({report.files_checked} files checked)")
    for key, value in r.items():
        print(f"  {key:<18} {value * 1000:9.1f} ms")
    ratios = {
        "j1_nocache / floor (target <= 1.5)": r["j1_nocache"] / r["floor"],
        "jdefault / j1 (target < 1 on 2 cores)": r["jdefault_nocache"] / r["j1_nocache"],
        "flake8 with / without (target <= 1.05)": r["flake8_with"] / r["flake8_without"],
    }
    if "ruff_warm" in r:
        ratios["warm in-process / ruff warm (target <= 2)"] = r["warm_inprocess"] / r["ruff_warm"]
        if "warm_cli" in r:
            ratios["warm CLI / ruff warm"] = r["warm_cli"] / r["ruff_warm"]
    for label, value in ratios.items():
        print(f"  {label:<44} {value:6.2f}x")
    return r


def main() -> int:
    print(f"lint_speed: {os.cpu_count()} cores, Python {sys.version.split()[0]}, repeats {REPEATS} (flake8 {FLAKE8_REPEATS})")
    DATA.mkdir(exist_ok=True)
    bench("stdlib", stdlib_tree())
    crewai = crewai_tree()
    if crewai is not None:
        bench("crewai", crewai)
    return 0


if __name__ == "__main__":
    sys.exit(main())
