"""The flake8 front end: real flake8 gives the same findings as ``check_paths``."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import check_paths, flake8_plugin, load_config
from dispatchguard.lint.source import editor_project, forget_editor_state

from ..conftest import about
from .conftest import FIXTURES

pytestmark = pytest.mark.slow
_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>DG\d+) (?P<message>.*)$")


def _flake8(root: Path, *args: str) -> set[tuple[str, int, int, str, str]]:
    out = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DG", *args, "."],
        cwd=root, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode in (0, 1), out.stderr
    found = set()
    for line in out.stdout.splitlines():
        match = _LINE.match(line)
        assert match, line
        path = match["path"].removeprefix("./")
        found.add((path, int(match["line"]), int(match["col"]), match["code"], match["message"]))
    return found


def _core(root: Path, monkeypatch: pytest.MonkeyPatch) -> set[tuple[str, int, int, str, str]]:
    monkeypatch.chdir(root)
    report = check_paths(["."], load_config(["."]), use_cache=False)
    return {(f.path, f.line, f.col, f.code, f.message) for f in report.findings if not f.suppressed}


@pytest.mark.integration
@pytest.mark.parametrize("name", ["crossfile", "registries", "aliases"])
def test_flake8_matches_check_paths(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    core = _core(root, monkeypatch)
    assert core
    assert _flake8(root) == core
    assert _flake8(root, "-j", "2") == core  # several processes, each with its own index


@pytest.mark.integration
def test_flake8_honours_config_and_file_level_noqa(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.dispatchguard]\nignore = ["DG102"]\n')
    body = "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    pass\n\nt = T()\nt.run()\n"
    (tmp_path / "a.py").write_text(body)
    (tmp_path / "b.py").write_text("# dispatchguard: noqa\n" + body)
    assert {(p, c) for p, _, _, c, _ in about(_flake8(tmp_path))} == {("a.py", "DG101")}
    assert {(p, c) for p, _, _, c, _ in about(_flake8(tmp_path, "--extend-ignore", "DG101"))} == set()


def _plugin_findings(root: Path, path: Path, text: str | None = None) -> set[tuple[str, int, str]]:
    text = path.read_text() if text is None else text
    plugin = flake8_plugin.Plugin(ast.parse(text), str(path.relative_to(root)), text.splitlines(keepends=True))
    return {(path.name, line, message.split()[0]) for line, _, message, _ in plugin.run()}


def test_project_is_set_up_once_and_loads_only_what_a_file_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "crossfile"
    shutil.copytree(FIXTURES / "crossfile", root)
    for i in range(30):  # unrelated modules: never parsed for a buffer that does not lead to them
        (root / f"filler{i}.py").write_text(f"import os\nVALUE = {i}\n")
    monkeypatch.chdir(root)
    config = load_config(["."])
    project = editor_project(config)
    assert editor_project(config) is project
    found = _plugin_findings(root, root / "app" / "agent.py")
    assert ("agent.py", 17, "DG101") in found
    assert 0 < project.parsed <= 6  # the modules agent.py leads to, not the 30 others
    found = set()
    for path in sorted(root.rglob("*.py")):
        found |= _plugin_findings(root, path)
    expected = {(Path(f.path).name, f.line, f.code) for f in check_paths(["."], config, use_cache=False).findings}
    assert found == expected  # suppressed ones included: flake8 applies


def test_edited_buffer_is_reindexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    forget_editor_state()
    edited = "from crewai_tools import SerperDevTool\n\nSerperDevTool().run()\n"
    plugin = flake8_plugin.Plugin(ast.parse(edited), "a.py", edited.splitlines(keepends=True))
    codes = sorted(message.split()[0] for _, _, message, _ in plugin.run())
    assert codes == ["DG101", "DG102"]
    stdin = flake8_plugin.Plugin(ast.parse("y._run()\n"), "stdin", ["y._run()\n"])
    assert [m.split()[0] for _, _, m, _ in stdin.run()] == ["DG101"]


def test_broken_config_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\nbogus = 1\n")
    forget_editor_state()
    plugin = flake8_plugin.Plugin(ast.parse("x = 1\n"), "a.py", ["x = 1\n"])
    ((line, col, message, _),) = list(plugin.run())
    assert (line, col) == (1, 0) and message.startswith("DG001") and "bogus" in message


def test_plugin_reuses_the_cli_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "crossfile"
    shutil.copytree(FIXTURES / "crossfile", root)
    monkeypatch.chdir(root)
    config = load_config(["."])
    expected = {(Path(f.path).name, f.line, f.code) for f in check_paths(["."], config).findings}
    found = set()
    for path in sorted(root.rglob("*.py")):
        found |= _plugin_findings(root, path)
    assert found == expected
    assert editor_project(config).parsed == 0  # every summary came from the CLI's cache
    edited = "from app.tools.search import search_tool\nsearch_tool.run('x')\n"
    assert _plugin_findings(root, root / "app" / "agent.py", edited) == {("agent.py", 2, "DG101")}
