"""The fork server (issue 33, item 5): the frameworks a project's tools import are imported once
per run, in the server, and each tool runs in a fresh fork of it, also when a framework starts
threads at import or after every fork (unshare(CLONE_NEWUSER) refuses a process with threads)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .projects import LEVELS, project_with_framework

pytestmark = pytest.mark.integration


#: A framework of the project's environment (outside the project): a token per import, a thread
#: started at import and one more in every child forked after it.
FRAMEWORK = """
import os
import threading
import uuid

TOKEN = uuid.uuid4().hex
_idle = threading.Event()


def _start():
    threading.Thread(target=_idle.wait, daemon=True).start()


_start()
os.register_at_fork(after_in_child=_start)
"""

TOOLS = """
import json

import threadwork


def tool(function):
    return function


@tool
def plain(q: str) -> str:
    '''Keeps the contract.'''
    return json.dumps({"q": q})


@tool
def first(q: str) -> str:
    '''Says which import of the framework it runs with.'''
    raise RuntimeError(f"framework import {threadwork.TOKEN}")


@tool
def second(q: str) -> str:
    '''The same.'''
    raise RuntimeError(f"framework import {threadwork.TOKEN}")
"""


@pytest.mark.parametrize("level", LEVELS)
def test_the_framework_is_imported_once_and_its_threads_do_not_stop_the_tools(tmp_path: Path, level: str) -> None:
    project, env = project_with_framework(tmp_path, TOOLS, "threadwork", FRAMEWORK)
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json", "-j", "2",
         "--isolation", level],
        cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    reports = {r["tool"]: r for r in json.loads(done.stdout or "[]")}
    assert reports["tools.plain"]["status"] == "verified", (reports, done.stderr)
    tokens = set()
    for name in ("first", "second"):
        report = reports[f"tools.{name}"]
        assert report["status"] == "violation", report
        tokens.add(report["detail"].removeprefix("raised RuntimeError: 'framework import ").rstrip("'"))
    assert len(tokens) == 1, tokens  # one import for the run: the tools' processes are forks of the server


STUCK = """
import signal
import threading


def tool(function):
    return function


@tool
def stuck(q: str) -> str:
    '''Ignores the call's timer (as C code that holds the GIL's signals would) and never answers.'''
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    threading.Event().wait()
    return "{}"
"""


@pytest.mark.parametrize("level", LEVELS)
def test_a_tool_that_never_answers_is_hung_and_killed(tmp_path: Path, level: str) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.dispatchguard]\ntool-decorators = ["tools.tool"]\n'
        "[tool.dispatchguard.verify]\ncases = 1\ntimeout = 0.5\n",
        encoding="utf-8",
    )
    (tmp_path / "tools.py").write_text(textwrap.dedent(STUCK), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "verify", "--output-format", "json", "--isolation", level],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    (report,) = json.loads(done.stdout)
    assert (report["status"], report["detail"]) == ("hung", "no answer in 6 s: the tool's process was killed")
    assert done.returncode == 1


SLOW_TO_BUILD = """
import threading


def tool(function):
    return function


threading.Event().wait()  # the module never finishes importing: the tool is never built


@tool
def never(q: str) -> str:
    '''Never reached.'''
    return "{}"
"""


def test_a_tool_that_never_gets_built_is_hung_after_the_startup_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first answer (the module imported, the tool built) has its own limit, named in the report."""
    from dispatchguard.lint import load_config
    from dispatchguard.verify import runner
    from dispatchguard.verify.discover import verify_targets

    (tmp_path / "pyproject.toml").write_text('[tool.dispatchguard]\ntool-decorators = ["tools.tool"]\n', "utf-8")
    (tmp_path / "tools.py").write_text(textwrap.dedent(SLOW_TO_BUILD), encoding="utf-8")
    (target,) = verify_targets([str(tmp_path)], load_config([tmp_path]))
    monkeypatch.setattr(runner, "STARTUP_SECONDS", 1.0)  # the setting, lowered: not a stand-in
    report = runner.verify_tool(target, runner.VerifyOptions(cases=1, isolation="seal"))
    assert (report.status, report.detail) == ("hung", "no answer in 1 s: the tool's process was killed")


@pytest.mark.parametrize("level", LEVELS)
def test_a_shared_server_imports_the_framework_once_and_reads_the_projects_files_each_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    """`fix --verify`'s server serves the fixed files and the originals: one import of the
    framework for both runs, and each run's tools as the files are when it runs."""
    from dispatchguard.lint import load_config
    from dispatchguard.verify import runner
    from dispatchguard.verify.discover import verify_targets

    project, env = project_with_framework(tmp_path, TOOLS, "threadwork", FRAMEWORK)
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    monkeypatch.chdir(project)
    targets = [t for t in verify_targets([str(project)], load_config([project])) if t.label == "tools.first"]
    options = runner.VerifyOptions(cases=1, isolation=level)
    with runner.shared_server(targets, options) as server:
        (before,) = runner.verify_tools(targets, options, server=server)
        tools = project / "tools.py"
        tools.write_text(tools.read_text(encoding="utf-8").replace("framework import", "now: import"), "utf-8")
        (after,) = runner.verify_tools(targets, options, server=server)
    assert before.detail.startswith("raised RuntimeError: 'framework import "), before.detail
    assert after.detail.startswith("raised RuntimeError: 'now: import "), after.detail
    assert before.detail.split()[-1] == after.detail.split()[-1]  # the same import's token
