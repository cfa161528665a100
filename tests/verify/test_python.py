"""`verify --python` (issue 33, item 4): dispatchguard runs from its own environment, the tools'
processes from the project's, which needs only the standard library and the project: here an
environment made with `venv --without-pip`, without pydantic or hypothesis."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

TOOLS = '''
import importlib.util
import json
import sys
from typing import Optional

from lib import tool


@tool
def add(a: int, b: int, note: Optional[str] = None) -> str:
    """Add."""
    return json.dumps(a + b)


@tool
def where(q: str) -> str:
    """Says which environment runs it, and which of dispatchguard's dependencies it can import."""
    found = [name for name in ("pydantic", "hypothesis") if importlib.util.find_spec(name) is not None]
    raise RuntimeError(f"{sys.prefix} {found}")
'''


@pytest.fixture(scope="module")
def bare_environment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An environment of the standard library alone (the base interpreter's, without pip)."""
    folder = tmp_path_factory.mktemp("bare") / "env"
    base = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    return folder


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[tool.dispatchguard]\ntool-decorators = ["lib.tool"]\n[tool.dispatchguard.verify]\ncases = 3\n',
        encoding="utf-8",
    )
    (root / "lib.py").write_text("def tool(function):\n    return function\n", encoding="utf-8")
    (root / "tools.py").write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    return root


def _verify(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json", *options],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_the_tools_run_under_the_given_interpreter_without_dispatchguards_dependencies(
    tmp_path: Path, bare_environment: Path
) -> None:
    done = _verify(_project(tmp_path / "project"), "--python", str(bare_environment))
    assert done.returncode == 1, done.stderr
    reports = {r["tool"]: r for r in json.loads(done.stdout)}
    assert (reports["tools.add"]["status"], reports["tools.add"]["calls"]) == ("verified", 3)
    where = reports["tools.where"]
    assert where["detail"] == f"raised RuntimeError: '{bare_environment} []'", where
    assert f"Tools run by {bare_environment}/bin/python." in done.stderr


def test_the_projects_venv_is_found_as_check_finds_it(tmp_path: Path, bare_environment: Path) -> None:
    root = _project(tmp_path / "project")
    (root / ".venv").symlink_to(bare_environment, target_is_directory=True)
    done = _verify(root)
    reports = {r["tool"]: r for r in json.loads(done.stdout)}
    assert reports["tools.where"]["detail"] == f"raised RuntimeError: '{root / '.venv'} []'", done.stderr


def test_a_python_that_does_not_exist_is_exit_2(tmp_path: Path) -> None:
    done = _verify(_project(tmp_path / "project"), "--python", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert "does not exist" in done.stderr


def test_the_verify_tables_python_key_names_the_interpreter(tmp_path: Path, bare_environment: Path) -> None:
    """``python`` under ``[tool.dispatchguard.verify]``, relative to the configuration's folder,
    runs the tools; it comes before a ``.venv`` at the root."""
    root = _project(tmp_path / "project")
    (tmp_path / "elsewhere").symlink_to(bare_environment, target_is_directory=True)
    (root / ".venv").mkdir()  # not an environment: found, it would fail the run
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + 'python = "../elsewhere"\n', encoding="utf-8")
    done = _verify(root)
    reports = {r["tool"]: r for r in json.loads(done.stdout)}
    assert reports["tools.where"]["detail"] == f"raised RuntimeError: '{tmp_path / 'elsewhere'} []'", done.stderr
    assert f"Tools run by {tmp_path / 'elsewhere'}/bin/python." in done.stderr


def test_a_verify_python_that_names_no_environment_is_exit_2(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + 'python = "nowhere"\n', encoding="utf-8")
    done = _verify(root)
    assert done.returncode == 2, done.stderr
    assert "[tool.dispatchguard.verify]: key 'python': python = " in done.stderr, done.stderr
    assert f"{root / 'nowhere'} does not exist" in done.stderr, done.stderr
