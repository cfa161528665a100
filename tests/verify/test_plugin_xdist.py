"""The pytest plugin under pytest-xdist (issue 33, item 5): the items of the tools are spread over
the workers, and each worker's fork server imports the project's frameworks once, not once per
tool."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .projects import project_with_framework

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
    project, env = project_with_framework(tmp_path, TOOLS, "fakework", FRAMEWORK)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "2", "-v",
         "--dispatchguard-verify"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    ran = re.findall(r"\[(gw\d)\] .*FAILED ::dispatchguard-verify\[tools\.(\w+)\]", done.stdout)
    assert sorted(name for _, name in ran) == ["first", "fourth", "second", "third"], done.stdout
    assert {worker for worker, _ in ran} == {"gw0", "gw1"}, done.stdout  # spread over both workers
    # each tool's report (its section, and its summary line when the terminal is wide enough)
    reports = set(re.findall(r"tools\.py:(\d+): DG104 violation: raised RuntimeError: 'framework import (\w+)'",
                             done.stdout))
    assert len({line for line, _ in reports}) == 4 and len(reports) == 4, done.stdout
    tokens = {token for _, token in reports}
    assert len(tokens) <= 2, tokens  # one import per worker process, not one per tool
