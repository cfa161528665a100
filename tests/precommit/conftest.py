"""Fixtures for the real-pre-commit tests: a committed copy of this repository (the hook repo), a
session-wide PRE_COMMIT_HOME (hook environments are built once per session), and throw-away git
repositories holding the example project.

The tests run hooks with ``pre-commit run`` and a configuration naming the hook repo at its commit, as
a user's repository does, not with ``pre-commit try-repo``: try-repo builds the hook environment again
in a temporary store at every call (measured: 17 calls, 8-10 s each), ``run`` builds it once in the
session's store."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ABOUT_SELECT, built_once

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "newsroom"


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return proc.stdout


def init_repo(path: Path) -> None:
    git(path, "init", "-q")
    git(path, "config", "user.email", "tests@example.com")
    git(path, "config", "user.name", "tests")
    git(path, "config", "commit.gpgsign", "false")


def clean_env(**extra: str) -> dict[str, str]:
    """No outer coverage/pytest-cov settings (the hook environments must not try to measure)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("COVERAGE_", "PRE_COMMIT", "GIT_")) and k != "PYTHONPATH"
    }
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory) -> Path:
    """One pre-commit store for the run, shared by the xdist workers (pre-commit locks its store
    while it installs): the hook environments are built once."""
    return built_once(tmp_path_factory, "pre-commit-home", lambda folder: None)


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> Path:
    """This repository's current working tree (tracked and untracked, minus ignored files),
    committed in a fresh repository: pre-commit then installs exactly what is on disk, without
    depending on what is committed here or on a shadow commit. One for the run (the workers
    share it, so pre-commit's store knows it once)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    return built_once(tmp_path_factory, "hook-repo", snapshot)


def snapshot(repo: Path) -> None:
    """Commit the working tree's files (what ``git ls-files`` lists) in a new repository at ``repo``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = raw.decode()
        src = ROOT / rel
        if not src.is_file():  # deleted in the working tree
            continue
        dst = repo / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    init_repo(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "snapshot of the working tree")


@pytest.fixture
def example_repo(tmp_path: Path):
    """``example_repo("violating" | "fixed")``: a git repository holding a copy of that twin
    (files staged, as pre-commit sees them before a commit)."""

    def make(twin: str) -> Path:
        repo = tmp_path / twin
        shutil.copytree(EXAMPLE / twin, repo, ignore=shutil.ignore_patterns("__pycache__", ".dispatchguard_cache"))
        # the hooks' tests are about the codes the example shows, not about every rule there will be
        config = repo / "pyproject.toml"
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("[tool.dispatchguard]\n", f"[tool.dispatchguard]\n{ABOUT_SELECT}\n", 1))
        init_repo(repo)
        git(repo, "add", "-A")
        return repo

    return make


@pytest.fixture
def pre_commit(pre_commit_home: Path):
    """Run ``pre-commit <args>`` in ``cwd`` with the session's PRE_COMMIT_HOME."""

    def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", *args],
            cwd=cwd,
            env=clean_env(PRE_COMMIT_HOME=str(pre_commit_home), PRE_COMMIT_COLOR="never"),
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )

    return run


@pytest.fixture
def pre_commit_run(pre_commit, hook_repo: Path):
    """``pre_commit_run(repo, hook_id, *args)``: ``pre-commit run hook_id *args`` in the git repository ``repo``,
    whose ``.pre-commit-config.yaml`` (written and staged at the first call) names every hook of the
    hook repo at its commit."""
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    hook_ids = re.findall(r"^- id: (\S+)$", (hook_repo / ".pre-commit-hooks.yaml").read_text(), flags=re.M)

    def run(repo: Path, hook_id: str, *args: str) -> subprocess.CompletedProcess[str]:
        config = repo / ".pre-commit-config.yaml"
        if not config.exists():
            hooks = "".join(f"      - id: {name}\n" for name in hook_ids)
            config.write_text(f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n{hooks}")
            git(repo, "add", config.name)
        return pre_commit(repo, "run", hook_id, *args)

    return run
