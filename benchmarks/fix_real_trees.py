"""``dispatchguard fix`` on real trees, all rules (issue 21): findings before, fixes per tier,
files changed, every changed file compiled, ``ruff check --select F,I,E9`` before and after,
idempotence (a second ``--unsafe-fixes`` run changes nothing), the findings left and why, and
optionally the tree's own test suite before and after ``--unsafe-fixes``. With ``--dispatch``
(issue 35), every fixed tool a dispatcher of the project's own serves (configured, or the dispatch
point ``check`` detects; see ``dispatchguard.verify.fixing.dispatch_plans``) is called through that
dispatcher in ``verify``'s workers, on the fixed files and on the originals with the same arguments:
whether its answer stayed byte for byte the same.

Each tree is copied twice into a scratch directory (the trees themselves are never written): the
first copy gets ``fix`` (safe fixes only), the second ``fix --unsafe-fixes``, from the copy's root
as a user runs them, through :func:`dispatchguard.fix.apply_fixes` (no cache). With ``--tests``
the command (run from each copy's root through the shell, e.g. ``RAPIDAPI_KEY=x
/path/.venv/bin/python -m pytest -q -p no:cacheprovider``) runs on a pristine copy and on the
fixed one; the tests whose outcome changed are listed (``-rA`` output lines ``PASSED``/``FAILED``/
``ERROR``). ``--diff DIR`` writes each tree's unified diff there, for reading the fixes by hand.

The trees are public code (never committed): sdists in ``benchmarks/.data`` or GitHub trees checked
out at a commit (``git --git-dir=<mirror> archive <commit> | tar -x -C <dir>``).

    .venv/bin/python benchmarks/fix_real_trees.py TREE [TREE ...] [--tests CMD] [--diff DIR] [--dispatch]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import check_paths, load_config

IGNORED = shutil.ignore_patterns(".git", ".venv", "node_modules", "__pycache__", ".dispatchguard_cache")
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)", re.MULTILINE)


@contextmanager
def inside(path: Path) -> Any:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def ruff_codes(root: Path) -> Counter[str]:
    proc = subprocess.run(
        [RUFF, "check", "--no-cache", "--select", "F,I,E9", "--output-format", "json", "--exit-zero", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return Counter(item["code"] or "E999" for item in json.loads(proc.stdout or "[]"))


def outcomes(root: Path, command: str) -> dict[str, str]:
    proc = subprocess.run(f"{command} -rA", cwd=root, shell=True, capture_output=True, text=True, check=False)
    return {test: outcome for outcome, test in OUTCOME.findall(proc.stdout)}


def python_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py") if ".venv" not in p.parts}


def through_dispatchers(copy: Path, originals: dict[str, bytes], changed: list[str], cases: int) -> dict[str, Any]:
    """The fixed tools a project dispatcher serves, each called through it on the fixed files and
    on the originals (written back for the while) with the same arguments: what it answered."""
    from dispatchguard.verify.discover import verify_targets
    from dispatchguard.verify.fixing import dispatch_plans, dispatcher_change, replay_plans
    from dispatchguard.verify.runner import VerifyOptions, verify_tools

    with inside(copy):
        config = load_config(["."])
        targets = verify_targets(changed, config)
        plans = dispatch_plans(targets, config)
        reach = [t for t in targets if t.label in plans]
        out: dict[str, Any] = {"fixed tools": len(targets), "reachable through a project dispatcher": len(reach),
                               "dispatchers": sorted({p["label"] for p in plans.values()}), "tools": []}  # fmt: skip
        if not plans:
            out["why no dispatcher"] = no_dispatcher(config)
        if not reach:
            return out
        options = VerifyOptions.from_settings(config.verify, cases=cases)
        after = verify_tools(reach, dataclasses.replace(options, dispatch=plans))
        fixed = {p: (copy / p).read_bytes() for p in changed}
        for p in changed:
            (copy / p).write_bytes(originals[p])
        try:
            before = verify_tools(reach, dataclasses.replace(options, dispatch=replay_plans(plans, after)))
        finally:
            for p, data in fixed.items():
                (copy / p).write_bytes(data)
    for was, now in zip(before, after, strict=True):
        answered = {json.dumps(r.get("arguments"), sort_keys=True): r.get("answers") or [] for r in was.dispatched}
        pairs = [(answered.get(json.dumps(r.get("arguments"), sort_keys=True)), r.get("answers") or [])
                 for r in now.dispatched]  # fmt: skip
        stable = [(old[0], new[0]) for old, new in pairs if old and new and all(a == old[0] for a in old)]
        plan = plans[now.target.label]
        out["tools"].append({
            "tool": now.target.label,
            "dispatcher": plan["label"],
            "name": plan["name"],
            "calls compared": len(stable),
            "answered (not raised) before": sum(1 for old, _ in stable if "raised" not in old and "timeout" not in old),
            "identical": sum(1 for old, new in stable if old == new),
            "taken back by fix --verify": dispatcher_change(was, now, plan),
        })  # fmt: skip
    return out


def no_dispatcher(config: Any) -> str:
    """Why ``fix --verify`` has no dispatcher of the project's own to call: none configured and
    none detected, or each dispatch point ``check`` detects with why it is not of a callable shape."""
    from dispatchguard.lint.engine import project_files
    from dispatchguard.lint.tool_facts import ToolFacts, Unknown

    files = project_files([config.root], config)[0]
    facts = ToolFacts(config, files)
    keys = {Path(key).resolve(): key for key in facts.project.files}
    entries = []
    for shown, _, function in check_paths([str(config.root)], config, nested=False).dispatch_points:
        key = keys.get(Path(shown).resolve())
        if key is not None and function != "<module>":
            entries.append(f"{facts.module_name(key)}.{function}")
    if config.dispatchers_configured:
        entries = list(config.dispatchers)
    if not entries:
        return "no dispatchers configured and no dispatch point detected by check"
    found = ToolFacts(dataclasses.replace(config, dispatchers=tuple(dict.fromkeys(entries))), files).dispatchers
    if isinstance(found, Unknown):
        return found.reason
    return "dispatchers " + ", ".join(d.label for d in found) + " serve none of the fixed tools under one name"


def measure(
    tree: Path, scratch: Path, tests: str | None, diff_dir: Path | None, dispatch: int | None = None
) -> dict[str, Any]:
    safe_copy, unsafe_copy, pristine = scratch / "safe", scratch / "unsafe", scratch / "pristine"
    for target in (safe_copy, unsafe_copy, pristine):
        shutil.copytree(tree, target, ignore=IGNORED, symlinks=True)
    with inside(safe_copy):
        config = load_config(["."])
        before = [f for f in check_paths(["."], config, use_cache=False).findings if not f.suppressed]
        safe = apply_fixes(["."], config, use_cache=False)
    originals = python_files(unsafe_copy)
    ruff_before = ruff_codes(unsafe_copy)
    with inside(unsafe_copy):
        config = load_config(["."])
        unsafe = apply_fixes(["."], config, unsafe=True, use_cache=False)
        again = apply_fixes(["."], config, unsafe=True, use_cache=False)
    not_compiling = []
    for relpath in unsafe.changed_files:
        try:
            py_compile.compile(str(unsafe_copy / relpath), doraise=True)
        except py_compile.PyCompileError as exc:
            not_compiling.append(f"{relpath}: {exc.msg.strip().splitlines()[-1]}")
    after = python_files(unsafe_copy)
    if diff_dir is not None:
        diff_dir.mkdir(parents=True, exist_ok=True)
        text = "".join(
            "".join(difflib.unified_diff(
                originals[p].decode("utf-8", "replace").splitlines(keepends=True),
                after[p].decode("utf-8", "replace").splitlines(keepends=True),
                f"a/{p}", f"b/{p}",
            ))
            for p in sorted(after) if originals.get(p) != after[p]
        )  # fmt: skip
        (diff_dir / f"{tree.name}.diff").write_text(text)
    result: dict[str, Any] = {
        "tree": tree.name,
        "files checked": unsafe.files_checked,
        "findings before": dict(sorted(Counter(f.code for f in before).items())),
        "applied by fix (safe only)": dict(sorted(Counter(a.code for a in safe.applied).items())),
        "applied by fix --unsafe-fixes": {
            "safe": dict(sorted(Counter(a.code for a in unsafe.applied if a.safe).items())),
            "unsafe": dict(sorted(Counter(a.code for a in unsafe.applied if not a.safe).items())),
        },
        "by kind": dict(Counter(re.sub(r"`[^`]*`|'[^']*'|; unsafe:.*", "…", a.description) for a in unsafe.applied)),
        "files changed": len(unsafe.changed_files),
        "files not compiling": not_compiling,
        "ruff F,I,E9 before": dict(ruff_before),
        "ruff F,I,E9 after": dict(ruff_codes(unsafe_copy)),
        "second run changes": len(again.changed_files),
        "findings after": dict(sorted(Counter(f.code for f in unsafe.remaining).items())),
        "not fixed, by reason": dict(
            Counter(
                re.sub(r"`[^`]*`|'[^']*'|\([^)]*\)|\S+\.py:\d+", "…", s.reason) for s in unsafe.skipped
            ).most_common()
        ),
    }
    if dispatch:
        changed = [p for p in unsafe.changed_files if p.endswith(".py")]
        result["through the project's dispatcher"] = through_dispatchers(unsafe_copy, originals, changed, dispatch)
    if tests:
        old, new = outcomes(pristine, tests), outcomes(unsafe_copy, tests)
        result["tests before"] = dict(Counter(old.values()))
        result["tests after"] = dict(Counter(new.values()))
        result["tests changed"] = {
            t: f"{old.get(t)} -> {new.get(t)}" for t in sorted({*old, *new}) if old.get(t) != new.get(t)
        }
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--tests", help="the tree's test command, run from its root (shell syntax)")
    parser.add_argument("--diff", type=Path, help="write each tree's diff of --unsafe-fixes into this directory")
    parser.add_argument("--dispatch", type=int, metavar="CASES", help="call the fixed tools through the project's "
                        "dispatcher, CASES arguments each, before and after")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    for tree in args.trees:
        with tempfile.TemporaryDirectory(prefix="fix-trees-") as scratch:
            results.append(measure(tree.resolve(), Path(scratch), args.tests, args.diff, args.dispatch))
        print(json.dumps(results[-1], indent=2, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps({"command": "benchmarks/fix_real_trees.py", "trees": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
