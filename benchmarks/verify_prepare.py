"""Fetch public CrewAI/LangChain applications at a commit and build each one's own environment,
for ``benchmarks/verify_trees.py``. Nothing third-party is committed: the trees and their
environments live in ``benchmarks/.data/verify/`` (git-ignored through ``benchmarks/.data``).

A tree comes from a local bare mirror (``$DG_RECALL_MIRROR/owner+name/repo``, default
``/work/.mirror``: the layout of the session's fetch tool) or else a bare clone of
``https://github.com/owner/name``, written out with ``git archive``. Its environment is built with
``uv`` (from PyPI: ``pip install uv``) from what the project itself declares, in this order:
``uv.lock`` (``uv sync --frozen``), ``requirements.txt`` (``uv pip install -r``), ``pyproject.toml``
(``uv pip install -e .``), in ``<tree>/<project>/.venv``.

``dispatchguard verify`` runs its workers with the interpreter that runs it, so it must run in the
project's environment: :func:`checker_overlay` installs the checker's own dependencies (not the
project's, not dispatchguard itself) for that interpreter into ``.data/verify/.overlay-<version>``,
and ``verify_trees.py`` puts this checkout's ``src`` and the overlay on ``PYTHONPATH``.

    .venv/bin/python benchmarks/verify_prepare.py github:fjacquet/epic_news@bf74d32 [--project .]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / ".data" / "verify"


def uv() -> list[str]:
    """The uv command (``pip install uv`` puts it beside the interpreter or on PATH)."""
    found = shutil.which("uv") or os.environ.get("DG_UV")
    return [found] if found else [sys.executable, "-m", "uv"]


def fetch(source: str) -> Path:
    spec = source.removeprefix("github:")
    repo, _, commit = spec.partition("@")
    owner, _, name = repo.partition("/")
    dest = DATA / f"{owner}+{name}@{commit}"
    if dest.is_dir():
        return dest
    mirror = Path(os.environ.get("DG_RECALL_MIRROR", "/work/.mirror")) / f"{owner}+{name}" / "repo"
    if not mirror.is_dir():
        mirror = DATA / ".mirrors" / f"{owner}+{name}.git"
        if not mirror.is_dir():
            subprocess.run(["git", "clone", "--bare", f"https://github.com/{repo}", str(mirror)], check=True)
    dest.mkdir(parents=True)
    git = ["git", f"--git-dir={mirror}"]
    archive = subprocess.run([*git, "archive", commit], capture_output=True)
    if archive.returncode != 0:  # a snapshot without some blobs (large data files): the rest
        listing = subprocess.run([*git, "ls-tree", "-r", commit], check=True, capture_output=True, text=True)
        rows = [line.partition("\t") for line in listing.stdout.splitlines()]
        entries = [(meta.split()[2], path) for meta, _, path in rows]
        check = subprocess.run([*git, "cat-file", "--batch-check"], input="\n".join(e[0] for e in entries) + "\n",
                               capture_output=True, text=True, check=True)
        answers = check.stdout.splitlines()
        present = [path for (_, path), answer in zip(entries, answers, strict=True) if not answer.endswith("missing")]
        archive = subprocess.run([*git, "archive", commit, "--", *present], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def build_environment(project: Path, python: str) -> str:
    """Build ``project/.venv`` from the project's own declarations; returns how."""
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(project / ".venv")}
    if (project / "uv.lock").is_file():
        subprocess.run([*uv(), "sync", "--frozen", "--python", python], cwd=project, check=True, env=env)
        return "uv sync --frozen (uv.lock)"
    subprocess.run([*uv(), "venv", "--python", python, ".venv"], cwd=project, check=True, env=env)
    target = ["--python", str(project / ".venv" / "bin" / "python")]
    if (project / "requirements.txt").is_file():
        subprocess.run([*uv(), "pip", "install", *target, "-r", "requirements.txt"], cwd=project, check=True)
        return "uv pip install -r requirements.txt"
    subprocess.run([*uv(), "pip", "install", *target, "-e", "."], cwd=project, check=True)
    return "uv pip install -e ."


#: What ``dispatchguard verify`` and ``fix --verify`` import besides what a CrewAI/LangChain
#: environment already has (pydantic, httpx, tomli...).
CHECKER_DEPENDENCIES = ("libcst", "typeshed_client", "pathspec", "hypothesis", "sortedcontainers", "mypy_extensions")


def checker_overlay(python: str) -> Path:
    """A folder with the checker's own dependencies for ``python`` (built once per version)."""
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], check=True, capture_output=True, text=True
    ).stdout.strip()
    overlay = DATA / f".overlay-{version}"
    if not overlay.is_dir():
        subprocess.run(
            [*uv(), "pip", "install", "--python", python, "--target", str(overlay), "--no-deps",
             *CHECKER_DEPENDENCIES],
            check=True,
        )  # fmt: skip
    return overlay


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="github:owner/name@commit")
    parser.add_argument("--project", default=".", help="the project's folder inside the tree (default: its root)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter the environment is built for")
    args = parser.parse_args()
    tree = fetch(args.source)
    project = tree / args.project
    if not (project / ".venv").is_dir():
        print(f"{project}: {build_environment(project, args.python)}")
    print(checker_overlay(str(project / ".venv" / "bin" / "python")))
    print(project)
    return 0


if __name__ == "__main__":
    sys.exit(main())
