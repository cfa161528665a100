"""The fix hook under the real pre-commit on the fixture projects (tests/fixes/projects): the
default (safe fixes only) never breaks the project's tests; `args: [--unsafe-fixes]` in the user's
config opts in. Slow: builds the hook environments (pip install from PyPI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..fixes.conftest import copy_project, run_tests
from .conftest import git, init_repo

pytestmark = pytest.mark.slow


def project_repo(name: str, tmp_path: Path) -> Path:
    """A git repository holding a copy of a fixture project, its files staged."""
    repo = copy_project(name, tmp_path)
    init_repo(repo)
    git(repo, "add", "-A")
    return repo


def output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


def sources(repo: Path) -> dict[str, str]:
    return {p.relative_to(repo).as_posix(): p.read_text() for p in sorted(repo.rglob("*.py"))}


def test_default_hook_on_shop_changes_nothing_and_keeps_tests(pre_commit_run, tmp_path):
    repo = project_repo("shop", tmp_path)
    before_tests, before = run_tests(repo), sources(repo)
    assert before_tests == (8, set())
    proc = pre_commit_run(repo, "dispatchguard-fix", "--all-files")
    assert proc.returncode == 1, output(proc)  # findings remain: every fix here is unsafe
    assert "files were modified by this hook" not in output(proc)
    assert "6 more fixable with --unsafe-fixes" in output(proc)
    assert sources(repo) == before and run_tests(repo) == before_tests


def test_default_hook_on_notes_fixes_and_keeps_tests(pre_commit_run, tmp_path):
    repo = project_repo("notes", tmp_path)
    assert run_tests(repo) == (4, set())
    proc = pre_commit_run(repo, "dispatchguard-fix", "--all-files")
    assert proc.returncode == 1 and "files were modified by this hook" in output(proc), output(proc)
    assert run_tests(repo) == (4, set())
    git(repo, "add", "-A")
    assert pre_commit_run(repo, "dispatchguard-fix", "--all-files").returncode == 0
    proc = pre_commit_run(repo, "dispatchguard", "--all-files")
    assert proc.returncode == 0 and "Passed" in proc.stdout, output(proc)
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "I", "--no-cache", "."], cwd=repo)
    assert ruff.returncode == 0


def test_opting_in_to_unsafe_fixes_in_the_config(hook_repo, pre_commit, tmp_path):
    repo = project_repo("shop", tmp_path)
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n"
        "      - id: dispatchguard-fix\n        args: [--unsafe-fixes]\n      - id: dispatchguard\n"
    )
    git(repo, "add", "-A")
    proc = pre_commit(repo, "run", "dispatchguard-fix", "--all-files")
    assert proc.returncode == 1 and "files were modified by this hook" in output(proc), output(proc)
    service = (repo / "shop" / "service.py").read_text()
    assert 'run_tool("calculator", {"a": a, "b": b})' in service and "ToolAction" not in service
    passed, failed = run_tests(repo)
    assert failed == {"test_in_stock", "test_price", "test_level_tool_directly"} and passed == 5
    git(repo, "add", "-A")
    assert pre_commit(repo, "run", "dispatchguard-fix", "--all-files").returncode == 0
    proc = pre_commit(repo, "run", "dispatchguard", "--all-files")
    assert proc.returncode == 0, output(proc)
