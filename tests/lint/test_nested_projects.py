"""A folder with a configuration of its own is a project of its own: each file's findings come
from its nearest configuration, whatever other paths are given, in the CLI and in real flake8
alike (ruff's model; issue 22)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

TOOL_CALLED_DIRECTLY = '''\
from langchain_core.tools import tool


@tool
def search(q: str) -> str:
    """Search."""
    return q


def main():
    return search.invoke("x")
'''


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """A root configured with the defaults, and ``sub/`` ignoring DG101 in its own pyproject."""
    root = tmp_path / "mono"
    (root / "sub" / "inner").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    (root / "sub" / "pyproject.toml").write_text('[tool.dispatchguard]\nignore = ["DG101"]\n')
    (root / "sub" / "inner" / "app.py").write_text(TOOL_CALLED_DIRECTLY)
    (root / "other.py").write_text(TOOL_CALLED_DIRECTLY)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def check(root: Path, *args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "--output-format", "concise", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return {line.split(":", 1)[0] for line in done.stdout.splitlines() if ": DG" in line}


@pytest.mark.parametrize(
    "paths",
    [(".",), ("sub/inner/app.py",), ("other.py", "sub/inner/app.py"), ("sub",), ("sub/inner",), ("other.py", "sub")],
)
def test_a_files_findings_do_not_depend_on_the_other_paths(monorepo: Path, paths: tuple[str, ...]) -> None:
    expected = {"other.py"} if "other.py" in paths or paths == (".",) else set()
    assert check(monorepo, *paths) == expected


def test_an_explicit_configuration_applies_to_every_file(monorepo: Path) -> None:
    assert check(monorepo, "--config", "pyproject.toml", ".") == {"other.py", "sub/inner/app.py"}


def test_each_nested_project_is_counted_and_cached_in_its_own_root(monorepo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "."], cwd=monorepo, capture_output=True, text=True, timeout=120
    )
    assert "Found 1 finding in 2 files" in done.stdout + done.stderr
    assert (monorepo / "sub" / ".dispatchguard_cache").is_dir()


@pytest.mark.slow
def test_flake8_uses_the_nearest_configuration_too(monorepo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DG", "."],
        cwd=monorepo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    reported = {line.split(":", 1)[0].removeprefix("./") for line in done.stdout.splitlines()}
    assert reported == {"other.py"}, done.stdout + done.stderr
