"""Write the blind evaluation's trees into benchmarks/.data/blind/<dir> (git-ignored): each
``github:owner/name@commit`` source of labels.toml, from a local bare mirror
(``$DG_RECALL_MIRROR/owner+name/repo``, default ``/work/.mirror``) or a bare clone of GitHub,
written out with ``git archive``. Third-party code is never committed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
TREES = HERE.parents[1] / "benchmarks" / ".data" / "blind"
READ_SUFFIXES = (".py", ".pyi", ".ipynb", "pyproject.toml")


def write(source: str, target: Path) -> None:
    repo, _, commit = source.removeprefix("github:").partition("@")
    mirror = Path(os.environ.get("DG_RECALL_MIRROR", "/work/.mirror")) / repo.replace("/", "+") / "repo"
    if not mirror.is_dir():
        mirror = Path(tempfile.mkdtemp()) / "repo"
        subprocess.run(["git", "clone", "--bare", "--quiet", f"https://github.com/{repo}", str(mirror)], check=True)
    # only what the checker reads: a snapshot may lack large blobs (vendored node_modules, data)
    listed = subprocess.run(
        ["git", f"--git-dir={mirror}", "ls-tree", "-r", "-z", "--name-only", commit], capture_output=True, check=True
    )
    wanted = [p for p in listed.stdout.decode().split("\0") if p.endswith(READ_SUFFIXES)]
    archive = subprocess.run(
        ["git", f"--git-dir={mirror}", "archive", commit, "--", *wanted], capture_output=True, check=True
    )
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    with tempfile.TemporaryFile() as fh:
        fh.write(archive.stdout)
        fh.seek(0)
        with tarfile.open(fileobj=fh) as tar:
            tar.extractall(target, filter="data")


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=HERE, help="the folder of the labels.toml (default: this one)")
    labels = tomllib.loads((parser.parse_args(argv).set / "labels.toml").read_text(encoding="utf-8"))
    for tree in labels["tree"]:
        target = TREES / tree["dir"]
        if not target.exists():
            write(tree["source"], target)
        print(f"{tree['dir']}: {sum(1 for _ in target.rglob('*.py'))} Python files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
