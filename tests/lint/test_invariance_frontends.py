"""One answer per file, whichever front end asks (issue 32): real flake8, pylint and pre-commit, in
their own processes, on the committed projects of ``test_invariance.py``, give each file the
findings ``dispatchguard check .`` gives it (the language server's side is in
``tests/lsp/test_invariance.py``). flake8 and pylint read modules, not notebooks: they are asked
about the ``.py`` files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dispatchguard.pylint import CODES

pytestmark = pytest.mark.integration
PROJECTS = Path(__file__).parent / "fixtures" / "invariance"
HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"
Found = set[tuple[str, int, int, str, str]]


def run(root: Path, *command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=300, check=False, env=env)


def reference(root: Path, suffix: str = ".py") -> Found:
    done = run(root, sys.executable, "-m", "dispatchguard", "check", "--no-cache", "--output-format", "json", ".")
    assert done.returncode == 1, done.stderr
    found = {
        (Path(item["filename"]).relative_to(root).as_posix(), item["location"]["row"], item["location"]["column"],
         item["code"], item["message"])
        for item in json.loads(done.stdout)
    }  # fmt: skip
    return {f for f in found if f[0].endswith(suffix)}


def lines_found(root: Path, output: str) -> Found:
    """``path:line:col: CODE message`` lines (flake8's default format, dispatchguard's text)."""
    found = set()
    for line in output.splitlines():
        path, _, rest = line.partition(":")
        number, _, rest = rest.partition(":")
        col, _, rest = rest.partition(": ")
        code, _, message = rest.partition(" ")
        if code.startswith("DG") and number.isdigit():
            rel = (root / path).resolve().relative_to(root.resolve()).as_posix()
            found.add((rel, int(number), int(col), code, message))
    return found


def modules(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


@pytest.fixture(params=sorted(p.name for p in PROJECTS.iterdir()))
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    root = tmp_path / request.param
    shutil.copytree(PROJECTS / request.param, root)
    return root


def test_flake8_gives_each_file_the_findings_of_check_dot(project: Path) -> None:
    expected = reference(project)
    files = modules(project)
    # every file at once (flake8's parallel processes), then the first and last alone together
    for named in (files, [files[0], files[-1]]):
        done = run(project, sys.executable, "-m", "flake8", "--select", "DG", *named)
        assert done.returncode in (0, 1), done.stderr
        assert lines_found(project, done.stdout) == {f for f in expected if f[0] in named}, named


def test_pylint_gives_each_file_the_findings_of_check_dot(project: Path) -> None:
    expected = reference(project)
    files = modules(project)
    for named in (files, files[-2:]):
        done = run(
            project, sys.executable, "-m", "pylint", "--load-plugins=dispatchguard.pylint", "--persistent=n",
            "--disable=all", "--enable=dispatchguard", "--score=n", "--output-format=json", *named,
        )  # fmt: skip
        assert done.returncode & (1 | 32) == 0, done.stderr
        found = {
            (item["path"], item["line"], item["column"] + 1, CODES[item["message-id"]], item["message"])
            for item in json.loads(done.stdout)
        }
        assert found == {f for f in expected if f[0] in named}, named


def test_pre_commit_on_any_staged_files_gives_the_findings_of_check_dot(project: Path) -> None:
    """The published hook's entry and file types, run by real pre-commit on staged files (as a
    local hook on this environment's ``dispatchguard``, so that nothing is installed)."""
    (hook,) = (h for h in yaml.safe_load(HOOKS.read_text()) if h["id"] == "dispatchguard")
    config = {"repos": [{"repo": "local", "hooks": [{**hook, "language": "system"}]}]}
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("VIRTUAL_ENV", None)
    for args in (["init", "-q"], ["add", "-A"]):
        assert run(project, "git", *args, env=env).returncode == 0
    expected = reference(project, suffix="")
    files = modules(project)
    for named in (files[:2], files[-3:], files[1::2]):
        done = run(project, sys.executable, "-m", "pre_commit", "run", "dispatchguard", "--files", *named, env=env)
        assert done.returncode in (0, 1), done.stdout + done.stderr
        assert lines_found(project, done.stdout) == {f for f in expected if f[0] in named}, named
