"""CPU time of ``dispatchguard fix`` against ``dispatchguard check`` on a real tree (issue 12:
fix within 3x of check).

The tree (default: crewai-tools, as downloaded into ``benchmarks/.data`` by ``lint_speed.py``) is
copied afresh for every ``fix`` run, since fixing changes it. Both commands run with ``-j1
--no-cache`` in a subprocess from the copy's root; the CPU time is user+sys of the process and its
children (``os.wait4``); the median of ``--repeats`` runs is reported, with the ratio of the two
medians from the same run.

    python benchmarks/fix_speed.py [--tree benchmarks/.data/crewai-tools-1.15.30] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TREE = HERE / ".data" / "crewai-tools-1.15.30"


def cpu_of(argv: list[str], cwd: Path) -> tuple[float, str]:
    """(user+sys seconds of the command and its children, its stderr)."""
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    err = process.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({process.returncode}): {err}")
    return usage.ru_utime + usage.ru_stime, err.strip().splitlines()[-1] if err.strip() else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not args.tree.is_dir():
        raise SystemExit(f"{args.tree}: not there (run benchmarks/lint_speed.py once to download it)")
    exe = [sys.executable, "-m", "dispatchguard"]
    checks, fixes = [], []
    summary = ""
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="fix-speed-") as scratch:
            copy = Path(scratch) / "tree"
            shutil.copytree(args.tree, copy, ignore=shutil.ignore_patterns(".dispatchguard_cache", "__pycache__"))
            checks.append(cpu_of([*exe, "check", "-j1", "--no-cache", "."], copy)[0])
            cpu, summary = cpu_of([*exe, "fix", "-j1", "--no-cache", "--unsafe-fixes", "."], copy)
            fixes.append(cpu)
    check, fix = statistics.median(checks), statistics.median(fixes)
    print(f"tree: {args.tree.name}")
    print(f"check -j1 --no-cache: {check:.3f} s CPU (median of {len(checks)})")
    print(f"fix -j1 --no-cache --unsafe-fixes: {fix:.3f} s CPU (median of {len(fixes)}); {summary}")
    print(f"fix / check: {fix / check:.2f}x (target <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
