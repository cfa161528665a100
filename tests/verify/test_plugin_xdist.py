"""The pytest plugin under pytest-xdist (issue 33, item 5): the items of the tools are spread over
the workers, and each worker's fork server imports the project's frameworks once, not once per
tool."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

#: A framework of the project's environment (outside the project): a fresh token per import.
FRAMEWORK = """
import uuid

TOKEN = uuid.uuid4().hex
"""

TOOLS = """
import os

import fakework


def tool(function):
    return function


@tool
def first(q: str) -> str:
    '''Says which import of the framework it runs with.'''
    raise RuntimeError(f"framework import {fakework.TOKEN}")


@tool
def second(q: str) -> str:
    '''The same.'''
    raise RuntimeError(f"framework import {fakework.TOKEN}")


@tool
def third(q: str) -> str:
    '''The same.'''
    raise RuntimeError(f"framework import {fakework.TOKEN}")


@tool
def fourth(q: str) -> str:
    '''The same.'''
    raise RuntimeError(f"framework import {fakework.TOKEN}")
"""


def test_the_plugin_runs_under_xdist_with_one_framework_import_per_worker(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.dispatchguard]\ntool-decorators = ["tools.tool"]\n[tool.dispatchguard.verify]\ncases = 2\n',
        encoding="utf-8",
    )
    (project / "tools.py").write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / "fakework.py").write_text(textwrap.dedent(FRAMEWORK), encoding="utf-8")
    inherited = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *([inherited] if inherited else [])])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "2", "-v",
         "--dispatchguard-verify"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    ran = re.findall(r"\[(gw\d)\] .*FAILED ::dispatchguard-verify\[tools\.(\w+)\]", done.stdout)
    assert sorted(name for _, name in ran) == ["first", "fourth", "second", "third"], done.stdout
    assert {worker for worker, _ in ran} == {"gw0", "gw1"}, done.stdout  # spread over both workers
    tokens = re.findall(r"raised RuntimeError: 'framework import (\w+)'", done.stdout)
    assert len(tokens) == 4, done.stdout
    assert len(set(tokens)) <= 2, tokens  # one import per worker process, not one per tool
