"""Write the notebook benchmark's trees to ``benchmarks/.data/notebooks/<dir>`` (git-ignored).

Public agent repositories holding Jupyter notebooks (LangGraph, LangChain Academy, CrewAI
examples), each at a pinned commit, written whole (a notebook imports its repository's modules)
with the recall evaluation's ``git_tree`` (``benchmarks/recall/evaluate.py``): from the fetch
tool's local bare mirror (``$DG_RECALL_MIRROR/<owner>+<name>/repo``, default ``/work/.mirror``)
when there is one, else from a bare clone of ``https://github.com/<owner>/<name>``. Trees already
present are kept. Nothing of them is committed: only this script and the figures.

Usage: .venv/bin/python benchmarks/notebooks_fetch.py [--force]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data" / "notebooks"
sys.path.insert(0, str(HERE / "recall"))

from evaluate import git_tree  # noqa: E402  (the recall evaluation's writer, reused as is)

#: (folder under DATA, owner/name, commit)
TREES = [
    ("langgraph", "langchain-ai/langgraph", "f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f"),
    ("langchain-academy", "langchain-ai/langchain-academy", "fa15bec4a51c541c40c261586b037c9d134977b1"),
    ("crewai-examples", "crewAIInc/crewAI-examples", "da94a91e691e1cf5b3151416bb15b5b62729bea8"),
]


def fetch(force: bool = False) -> None:
    for folder, repository, commit in TREES:
        root = DATA / folder
        if root.is_dir() and not force:
            continue
        shutil.rmtree(root, ignore_errors=True)
        print(f"writing {folder} from {repository}@{commit[:12]}", file=sys.stderr)
        root.parent.mkdir(parents=True, exist_ok=True)
        git_tree(root, repository, commit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="write every tree again")
    fetch(parser.parse_args().force)


if __name__ == "__main__":
    main()
