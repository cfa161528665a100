"""Does running the rules' hooks from the walker's dispatch table (issue 36: ``rule.HOOKS``, node
hooks, the class hook) cost the checker anything? CPU of ``dispatchguard check`` against a ref.

The checker of this checkout and the one of ``--ref`` (default ``main``, its ``src`` taken with
``git archive``) each check the same trees: the installed ``crewai`` and ``langchain_core``
packages (tool classes, tool decorators and calls of them: files the walk enters, not the ones the
tool-word gate skips), copied to a temporary folder with an empty ``[tool.dispatchguard]`` table.
Each command is ``python -m dispatchguard check --no-cache -j1 --exit-zero --output-format json``
in its own process, with ``PYTHONPATH`` naming the ``src`` measured; the two run round-robin,
``--repeats`` times (default 7), so that the noise of a shared machine hits both alike. Reported:
the median CPU time (user + sys of the child, from ``os.wait4``) of each, their ratio, and whether
both report the same findings (they must: the change is in how hooks are dispatched, not in what
rules find).

    python benchmarks/hook_dispatch.py [--ref main] [--repeats 7]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("crewai", "langchain_core")


def site_packages() -> Path:
    import crewai

    return Path(crewai.__file__).resolve().parents[1]


def tree(dest: Path) -> Path:
    """The packages' ``.py`` files under ``dest/tree``, a project of their own."""
    root = dest / "tree"
    for package in PACKAGES:
        source = site_packages() / package
        for path in source.rglob("*.py"):
            target = root / package / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    (root / "pyproject.toml").write_text("[tool.dispatchguard]\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)  # its own ignore files, not ours
    return root


def ref_sources(ref: str, dest: Path) -> Path:
    archive = subprocess.run(["git", "archive", ref, "src"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest / "ref", filter="data")
    return dest / "ref" / "src"


def run(src: Path, project: Path) -> tuple[float, str]:
    """(CPU seconds of the child, its stdout) of one check."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    argv = [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "-j1", "--exit-zero", "--output-format"]
    argv += ["json", "."]
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, cwd=project, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{src}: dispatchguard check exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, text


def findings(text: str) -> list[tuple]:
    return sorted((f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in json.loads(text))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp)
        project = tree(dest)
        variants = {"this checkout": ROOT / "src", args.ref: ref_sources(args.ref, dest)}
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        found: dict[str, list[tuple]] = {}
        for name, src in variants.items():  # compile the bytecode once, outside the measure
            found[name] = findings(run(src, project)[1])
        for _ in range(args.repeats):
            for name, src in variants.items():
                cpu[name].append(run(src, project)[0])
        files = sum(1 for _ in project.rglob("*.py"))
        print(f"{files} files ({', '.join(PACKAGES)}), {args.repeats} runs each, round-robin")
        for name, times in cpu.items():
            spread = f"min {min(times):.2f}, max {max(times):.2f}"
            print(f"  {name:>14}: median CPU {statistics.median(times):.2f} s  ({spread})")
        mine, theirs = (statistics.median(cpu[name]) for name in variants)
        print(f"  ratio this checkout / {args.ref}: {mine / theirs:.3f}")
        same = found["this checkout"] == found[args.ref]
        print(f"  findings: {len(found['this checkout'])} here, {len(found[args.ref])} at {args.ref}: "
              f"{'the same' if same else 'DIFFERENT'}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
