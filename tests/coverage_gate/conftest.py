"""Fixtures that produce *real* coverage data: code run under ``coverage run`` in a temp project."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# models.py: 6 statements, 2 branches. run.py calls f(1) only, so line 4 and 7 are missed and
# the 2->4 branch is partial: lines 4/6 covered (66.67%), branches 1/2, total 5/8 = 62.5%.
MODELS = """\
def f(x):
    if x:
        return 1
    return 2

def g():
    return 3
"""

DISPATCHER = """\
def dispatch(name):
    if name == "a":
        return "A"
    return "other"
"""

RUNNER = """\
import sys
sys.path.insert(0, "src")
from app import models, tool_dispatcher
models.f(1)
tool_dispatcher.dispatch("a")
tool_dispatcher.dispatch("b")
"""


def clean_env() -> dict[str, str]:
    """The environment minus the outer pytest-cov/coverage settings, so the child's data goes
    only where the test says."""
    return {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_") and k != "PYTHONPATH"}


def run_under_coverage(project: Path, *args: str, script: str = "run.py") -> None:
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", *args, script],
        cwd=project,
        env=clean_env(),
        check=True,
        capture_output=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project with src/app/{models,tool_dispatcher,unused}.py and real branch data."""
    app = tmp_path / "src" / "app"
    app.mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "models.py").write_text(MODELS)
    (app / "tool_dispatcher.py").write_text(DISPATCHER)
    (app / "unused.py").write_text("def h():\n    return 1\n")
    (tmp_path / "run.py").write_text(RUNNER)
    run_under_coverage(tmp_path, "--branch")
    assert (tmp_path / ".coverage").is_file()
    return tmp_path


@pytest.fixture
def cov_run():
    """``cov_run(project, *coverage_run_args, script="run.py")``: run a script under coverage."""
    return run_under_coverage


@pytest.fixture
def write():
    def _write(path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        return path

    return _write
