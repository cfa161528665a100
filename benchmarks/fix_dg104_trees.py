"""DG104 fixes on real trees: findings before, fixes applied per tier, what was skipped and why,
whether every fixed file still compiles, and the DG104 findings left.

Each tree is copied twice into a scratch directory (the trees themselves are never written): the
first copy gets ``dispatchguard fix --select DG104`` (safe fixes only), the second
``--unsafe-fixes``, both from the copy's root as a user runs them, through the same entry point the
CLI uses (:func:`dispatchguard.fix.apply_fixes`, no cache). Every changed file of the second copy
is compiled with :mod:`py_compile`, and the copy is checked again for DG104.

The trees are public code (never committed): the sdists in ``benchmarks/.data`` and GitHub trees
checked out at a commit, e.g.
``git --git-dir=<mirror>/repo archive <commit> | tar -x -C benchmarks/.data/<owner>+<name>``.

    .venv/bin/python benchmarks/fix_dg104_trees.py TREE [TREE ...] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import py_compile
import shutil
import tempfile
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import check_paths, load_config

IGNORED = shutil.ignore_patterns(".git", ".venv", "node_modules", "__pycache__", ".dispatchguard_cache")


@contextmanager
def inside(path: Path) -> Any:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def dg104(findings: list[Any]) -> int:
    return sum(1 for f in findings if f.code == "DG104" and not f.suppressed)


def measure(tree: Path, scratch: Path) -> dict[str, Any]:
    safe_copy, unsafe_copy = scratch / "safe", scratch / "unsafe"
    shutil.copytree(tree, safe_copy, ignore=IGNORED, symlinks=True)
    shutil.copytree(tree, unsafe_copy, ignore=IGNORED, symlinks=True)
    with inside(safe_copy):
        config = load_config(["."])
        before = dg104(check_paths(["."], config, use_cache=False).findings)
        safe = apply_fixes(["."], config, select=["DG104"], use_cache=False)
    with inside(unsafe_copy):
        config = load_config(["."])
        unsafe = apply_fixes(["."], config, unsafe=True, select=["DG104"], use_cache=False)
        after = dg104(check_paths(["."], config, use_cache=False).findings)
        not_compiling = []
        for path in unsafe.changed_files:
            try:
                py_compile.compile(path, cfile=str(scratch / "compiled.pyc"), doraise=True)
            except py_compile.PyCompileError as exc:
                not_compiling.append(f"{path}: {exc.msg}")
    skipped = Counter(s.reason for s in unsafe.skipped if s.code == "DG104")
    return {
        "tree": tree.name,
        "files checked": unsafe.files_checked,
        "DG104 before": before,
        "applied by fix (safe only)": len(safe.applied),
        "applied by fix --unsafe-fixes": len(unsafe.applied),
        "of which safe": sum(1 for a in unsafe.applied if a.safe),
        "of which unsafe": sum(1 for a in unsafe.applied if not a.safe),
        "by kind": dict(Counter(a.description.split(" (")[0] for a in unsafe.applied)),
        "files changed": len(unsafe.changed_files),
        "files not compiling": not_compiling,
        "skipped": dict(skipped),
        "DG104 after": after,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    results = []
    for tree in args.trees:
        if not tree.is_dir():
            print(f"{tree}: not there, skipped")
            continue
        with tempfile.TemporaryDirectory(prefix="fix-dg104-") as scratch:
            results.append(measure(tree.resolve(), Path(scratch)))
        row = results[-1]
        print(
            f"{row['tree']}: {row['DG104 before']} DG104 -> safe {row['applied by fix (safe only)']}, "
            f"with --unsafe-fixes {row['applied by fix --unsafe-fixes']} ({row['of which safe']} safe, "
            f"{row['of which unsafe']} unsafe), {sum(row['skipped'].values())} skipped, "
            f"{row['files changed']} files changed, {len(row['files not compiling'])} not compiling, "
            f"{row['DG104 after']} DG104 after",
            flush=True,
        )
    totals = Counter()
    reasons: Counter[str] = Counter()
    for row in results:
        for key in ("DG104 before", "applied by fix (safe only)", "applied by fix --unsafe-fixes", "of which safe",
                    "of which unsafe", "files changed", "DG104 after"):  # fmt: skip
            totals[key] += row[key]
        totals["files not compiling"] += len(row["files not compiling"])
        reasons.update(row["skipped"])
    print("total:", dict(totals))
    for reason, count in reasons.most_common():
        print(f"  skipped {count}x: {reason}")
    if args.json:
        args.json.write_text(json.dumps({"trees": results, "total": totals, "skipped": reasons}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
