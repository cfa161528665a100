"""Write the blind evaluation's trees to ``benchmarks/.data/blind12/<dir>`` (git-ignored).

Each ``[[tree]]`` of ``labels.toml`` names a ``github:<owner>/<name>@<commit>`` source. The tree is
written with the existing evaluation's ``git_tree`` (``benchmarks/recall/evaluate.py``): from the
fetch tool's local bare mirror (``$DG_RECALL_MIRROR/<owner>+<name>/repo``, default ``/work/.mirror``)
when there is one, else from a bare clone of ``https://github.com/<owner>/<name>``; blobs a snapshot
lacks are left out. Trees already present are kept.

Usage: .venv/bin/python benchmarks/recall_blind_12/fetch_trees.py [--force]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / ".data" / "blind12"
LABELS = HERE / "labels.toml"
sys.path.insert(0, str(HERE.parent / "recall"))

from evaluate import git_tree  # noqa: E402  (the old evaluation's writer, reused as is)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="write every tree again")
    args = parser.parse_args()
    for tree in tomllib.loads(LABELS.read_text())["tree"]:
        root = DATA / tree["dir"]
        if root.is_dir() and not args.force:
            continue
        shutil.rmtree(root, ignore_errors=True)
        kind, _, where = tree["source"].partition(":")
        if kind != "github":
            raise SystemExit(f"unknown source kind {kind!r} for {tree['dir']}")
        repository, _, commit = where.partition("@")
        print(f"writing {tree['dir']} from {repository}@{commit[:12]}", file=sys.stderr)
        root.parent.mkdir(parents=True, exist_ok=True)
        git_tree(root, repository, commit)


if __name__ == "__main__":
    main()
