"""The plain git hook script (hooks/pre-commit) in a real throw-away repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import SELECT

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "hooks" / "pre-commit"

RECORDER = """\
import json, os, sys
with open(os.environ["RECORD_TO"], "w") as fh:
    json.dump(sys.argv[1:], fh)
sys.exit(int(os.environ.get("RECORD_EXIT", "0")))
"""

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("git") is None, reason="needs bash and git"
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    git(repo, "config", "commit.gpgsign", "false")
    hook = repo / ".git" / "hooks" / "pre-commit"
    shutil.copy(HOOK, hook)
    hook.chmod(0o755)
    return repo


def run_hook(repo: Path, tmp_path: Path, exit_code: int = 0, **env: str):
    record = tmp_path / "argv.json"
    recorder = tmp_path / "recorder.py"
    recorder.write_text(RECORDER)
    environ = {
        **os.environ,
        "DISPATCHGUARD": f"{sys.executable} {recorder}",
        "RECORD_TO": str(record),
        "RECORD_EXIT": str(exit_code),
        **env,
    }
    proc = subprocess.run(
        ["bash", str(repo / ".git" / "hooks" / "pre-commit")],
        cwd=repo,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    argv = json.loads(record.read_text()) if record.exists() else None
    return proc, argv


def test_no_staged_python_file_is_a_no_op(repo, tmp_path):
    (repo / "README.md").write_text("hi\n")
    (repo / "untracked.py").write_text("x = 1\n")
    git(repo, "add", "README.md")
    proc, argv = run_hook(repo, tmp_path)
    assert proc.returncode == 0 and argv is None


def test_passes_staged_python_files_including_spaces(repo, tmp_path):
    (repo / "pkg dir").mkdir()
    (repo / "pkg dir" / "my tool.py").write_text("x = 1\n")
    (repo / "plain.py").write_text("y = 2\n")
    (repo / "stub.pyi").write_text("z: int\n")
    (repo / "notes.txt").write_text("n\n")
    (repo / "unstaged.py").write_text("u = 1\n")
    git(repo, "add", "pkg dir/my tool.py", "plain.py", "stub.pyi", "notes.txt")
    proc, argv = run_hook(repo, tmp_path, DISPATCHGUARD_ARGS="--baseline base.json")
    assert proc.returncode == 0, proc.stderr
    assert argv[:5] == ["check", "--force-exclude", "--baseline", "base.json", "--"]
    assert sorted(argv[5:]) == ["pkg dir/my tool.py", "plain.py", "stub.pyi"]


def test_deleted_files_are_not_passed(repo, tmp_path):
    (repo / "gone.py").write_text("x = 1\n")
    git(repo, "add", "gone.py")
    git(repo, "commit", "-q", "-m", "init", "--no-verify")
    git(repo, "rm", "-q", "gone.py")
    proc, argv = run_hook(repo, tmp_path)
    assert proc.returncode == 0 and argv is None


def test_findings_block_the_commit(repo, tmp_path):
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    proc, argv = run_hook(repo, tmp_path, exit_code=1)
    assert proc.returncode == 1
    assert argv == ["check", "--force-exclude", "--", "a.py"]
    assert "commit blocked" in proc.stderr and "dispatchguard fix" in proc.stderr


def test_skip_variable(repo, tmp_path):
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    proc, argv = run_hook(repo, tmp_path, exit_code=1, SKIP_DISPATCHGUARD="1")
    assert proc.returncode == 0 and argv is None


def test_real_dispatchguard_on_a_file_with_spaces(repo, tmp_path):
    """The script with the real command: a staged tool file whose name has spaces."""
    (repo / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    tools = repo / "my tools"
    tools.mkdir()
    (tools / "kpi tool.py").write_text(
        "from crewai.tools import BaseTool\n\n\nclass Kpi(BaseTool):\n"
        "    name: str = 'KPI'\n\n    def _run(self):\n        return {'a': 1}\n"
    )
    git(repo, "add", "-A")
    exe = Path(sys.executable).with_name("dispatchguard")
    environ = {**os.environ, "DISPATCHGUARD": f"{exe}", "DISPATCHGUARD_ARGS": " ".join(["--no-cache", *SELECT])}
    proc = subprocess.run(
        ["bash", str(repo / ".git" / "hooks" / "pre-commit")],
        cwd=repo,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "my tools/kpi tool.py:8:16: DG103" in proc.stdout
    # fixed: the hook passes
    (tools / "kpi tool.py").write_text(
        (tools / "kpi tool.py").read_text().replace("return {'a': 1}", "return '{\"a\": 1}'")
    )
    git(repo, "add", "-A")
    proc = subprocess.run(
        ["bash", str(repo / ".git" / "hooks" / "pre-commit")],
        cwd=repo,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
