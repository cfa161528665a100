"""Real flake8 honours ``exclude``/``extend-exclude`` and ignore files, as ``dispatchguard check``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

VIOLATION = "from crewai.tools import BaseTool\n\n\nclass T(BaseTool):\n    pass\n\n\nT().run()\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    files = {
        "pyproject.toml": '[tool.dispatchguard]\nextend-exclude = ["generated", "legacy/*.py"]\nignore = ["DG102"]\n',
        ".gitignore": "build_out/\n",
        "app/a.py": VIOLATION,
        "app/b.py": VIOLATION,
        "generated/x.py": VIOLATION,
        "generated/deep/y.py": VIOLATION,
        "legacy/old.py": VIOLATION,
        "build_out/z.py": VIOLATION,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def flake8(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DG", *args],
        cwd=root, input=stdin, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def reported(done: subprocess.CompletedProcess[str]) -> set[str]:
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    return {line.split(":")[0].removeprefix("./") for line in done.stdout.splitlines()}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_excluded_and_ignored_files_are_not_reported(project: Path, jobs: str) -> None:
    assert reported(flake8(project, "-j", jobs, ".")) == {"app/a.py", "app/b.py"}


def test_named_files_are_excluded_too(project: Path) -> None:
    """flake8 cannot tell a named file from one it found: the plugin acts as with force-exclude."""
    done = flake8(project, "generated/x.py", "legacy/old.py", "build_out/z.py", "app/a.py")
    assert reported(done) == {"app/a.py"}


def test_stdin_is_excluded_by_its_display_name(project: Path) -> None:
    assert reported(flake8(project, "--stdin-display-name", "generated/new.py", "-", stdin=VIOLATION)) == set()
    assert reported(flake8(project, "--stdin-display-name", "app/new.py", "-", stdin=VIOLATION)) == {"app/new.py"}
