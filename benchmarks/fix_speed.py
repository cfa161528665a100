"""CPU time of ``dispatchguard fix`` against ``dispatchguard check`` on a real tree (issue 12:
fix within 3x of check).

The tree (default: crewai-tools, as downloaded into ``benchmarks/.data`` by ``lint_speed.py``) is
copied afresh for every ``fix`` run, since fixing changes it. Both commands run with ``-j1
--no-cache`` in a subprocess from the copy's root; the CPU time is user+sys of the process and its
children (``os.wait4``); the median of ``--repeats`` runs is reported, with the ratio of the two
medians from the same run.

    python benchmarks/fix_speed.py [--tree benchmarks/.data/crewai-tools-1.15.30] [--repeats 3]

``--generated`` (issue 35: fixing a file costs at most 3x checking it, whatever its size) measures
instead one generated module of 0.2, 0.9 and 5 MB each: CrewAI tool classes whose ``_run`` returns
a dict (one DG103 fix each, about 160 per MB) between plain helper functions, alone in a project::

    python benchmarks/fix_speed.py --generated [--repeats 3]
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


def generated_module(megabytes: float) -> str:
    """A module of about ``megabytes`` MB: tool classes returning a dict, each followed by plain helpers."""
    parts = ["import json\nfrom crewai.tools import BaseTool\n\n"]
    size, index = len(parts[0]), 0
    while size < megabytes * 1_000_000:
        parts.append(
            f"\nclass Tool{index}(BaseTool):\n    name: str = \"tool_{index}\"\n"
            f"    description: str = \"Tool number {index}.\"\n\n    def _run(self, query: str) -> str:\n"
            f"        data = {{\"query\": query, \"index\": {index}}}\n        return data\n"
        )
        parts.extend(
            f"\ndef helper_{index}_{j}(x, y):\n    total = x + y * {j}\n    for k in range(10):\n"
            f"        total += k\n    return total\n"
            for j in range(55)
        )
        size += sum(len(p) for p in parts[-56:])
        index += 1
    return "".join(parts)


def measure_generated(exe: list[str], repeats: int) -> int:
    for megabytes in (0.2, 0.9, 5.0):
        source = generated_module(megabytes)
        checks, fixes = [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="fix-speed-") as scratch:
                root = Path(scratch)
                (root / "pyproject.toml").write_text("[tool.dispatchguard]\n")
                (root / "generated.py").write_text(source)
                checks.append(cpu_of([*exe, "check", "-j1", "--no-cache", "generated.py"], root)[0])
                cpu, summary = cpu_of([*exe, "fix", "-j1", "--no-cache", "--unsafe-fixes", "generated.py"], root)
                fixes.append(cpu)
        check, fix = statistics.median(checks), statistics.median(fixes)
        print(f"{len(source) / 1e6:.1f} MB: check {check:.2f} s, fix {fix:.2f} s CPU ({summary}): "
              f"fix / check {fix / check:.2f}x (target <= 3x)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--generated", action="store_true", help="generated modules of 0.2, 0.9 and 5 MB")
    args = parser.parse_args()
    if args.generated:
        return measure_generated([sys.executable, "-m", "dispatchguard"], args.repeats)
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
