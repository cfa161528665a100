"""`dispatchguard check --stdin-filename PATH -`: a buffer checked as a file of its project, through
the real command with the buffer on standard input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import write_tree

pytestmark = pytest.mark.integration

AGENT = "from app.tools import Search\n\n\ndef plan(q):\n    return Search().run(q)  # noqa: DG102\n"


def check(root: Path, stdin: bytes | str, *args: str) -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", *args],
        cwd=root, input=data, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_unsaved_buffer_is_checked_with_the_projects_knowledge(project: Path) -> None:
    # app/agent.py on disk is something else: the buffer is what counts
    done = check(project, AGENT, "--no-cache", "--stdin-filename", "app/agent.py", "-")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "app/agent.py:5:12: DG101 direct tool call `Search().run(...)` bypasses the dispatcher: "
        "go through `dispatch_tool(ToolAction(...))`"
    ]
    assert done.stderr.strip() == "Found 1 finding in 1 file. 1 silenced by # noqa or the baseline."


def test_a_buffer_for_a_new_file_and_the_filename_alone(project: Path) -> None:
    done = check(project, AGENT, "--stdin-filename", "app/new_module.py")  # no '-': stdin is implied
    assert done.returncode == 1
    assert done.stdout.startswith("app/new_module.py:5:12: DG101 ")


def test_clean_buffer_and_plain_dash(project: Path) -> None:
    done = check(project, "x = 1\n", "-")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.strip() == "All checks passed (1 file checked)."
    done = check(project, "y._run()\n", "-")
    assert done.returncode == 1 and done.stdout.startswith("-:1:1: DG101 ")
    (item,) = json.loads(check(project, "y._run()\n", "--output-format", "json", "-").stdout)
    assert (item["filename"], item["code"]) == ("-", "DG101")


def test_end_positions_in_every_format(project: Path) -> None:
    args = ("--stdin-filename", "app/agent.py", "-")
    (item,) = json.loads(check(project, AGENT, "--output-format", "json", *args).stdout)
    assert (item["location"], item["end_location"]) == ({"row": 5, "column": 12}, {"row": 5, "column": 27})
    assert item["filename"] == str(project / "app" / "agent.py")
    sarif = json.loads(check(project, AGENT, "--output-format", "sarif", *args).stdout)
    active = [r for r in sarif["runs"][0]["results"] if "suppressions" not in r]
    (region,) = [r["locations"][0]["physicalLocation"]["region"] for r in active]
    assert region == {"startLine": 5, "startColumn": 12, "endLine": 5, "endColumn": 27}
    github = check(project, AGENT, "--output-format", "github", *args).stdout
    assert github.startswith(
        "::error title=dispatchguard (DG101),file=app/agent.py,line=5,col=12,endLine=5,endColumn=27::"
    )


def test_syntax_error_and_undecodable_buffer(project: Path) -> None:
    check(project, "")  # a run that caches the project's tool words
    done = check(project, "from app.tools import Search\nSearch(\n", "--stdin-filename", "app/x.py", "-")
    assert done.returncode == 1
    assert done.stdout.strip() == "app/x.py:2:7: DG001 cannot check this file: syntax error: '(' was never closed"
    done = check(project, b"\xff\xfex = 1\n", "--stdin-filename", "app/x.py", "-")
    assert done.returncode == 1 and "DG001 cannot check this file: cannot decode the file" in done.stdout
    # a syntax error in a buffer that names no tool word is the Python linter's to report
    assert check(project, "def f(:\n", "--stdin-filename", "app/x.py", "-").returncode == 0


def test_force_exclude_skips_an_excluded_stdin_filename(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.dispatchguard]\nextend-exclude = ["generated"]\n')
    args = ("--stdin-filename", "generated/agent.py", "-")
    assert check(project, AGENT, *args).returncode == 1  # named explicitly: checked, as ruff does
    done = check(project, AGENT, "--force-exclude", *args)
    assert (done.returncode, done.stdout) == (0, "")


def test_settings_of_the_stdin_filename_project(tmp_path: Path) -> None:
    config = '[tool.dispatchguard]\nper-file-ignores = {"app/legacy/*" = ["DG101"]}\n'
    write_tree(tmp_path, {"pyproject.toml": config, "app/__init__.py": ""})
    done = check(tmp_path, "y._run()\n", "--stdin-filename", "app/legacy/a.py", "-")
    assert (done.returncode, done.stdout) == (0, "")
    done = check(tmp_path, "y._run()\n", "--stdin-filename", "app/a.py", "-")
    assert done.returncode == 1 and done.stdout.startswith("app/a.py:1:1: DG101 ")
    done = check(tmp_path, "y._run()\n", "--stdin-filename", "app/a.py", "--ignore", "DG101", "-")
    assert done.returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-", "app"], "'-' (standard input) cannot be combined with other paths"),
        (["--stdin-filename", "a.py", "app"], "--stdin-filename checks standard input: give '-' instead of the paths"),
        (["--stdin-filename", "app", "-"], "--stdin-filename: app is a directory, not a file"),
        (["--stdin-filename", " ", "-"], "--stdin-filename: the path is empty"),
        (["--fix", "-"], "--fix writes files and cannot be used on standard input"),
        (["--add-noqa", "-"], "--add-noqa writes files and cannot be used on standard input"),
        (["--write-baseline", "b.json", "-"], "--write-baseline writes files and cannot be used on standard input"),
    ],
)
def test_bad_stdin_usage(project: Path, args: list[str], message: str) -> None:
    done = check(project, "x = 1\n", *args)
    assert done.returncode == 2
    assert done.stderr.strip() == f"dispatchguard: error: {message}"
    assert done.stdout == ""
