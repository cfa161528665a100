"""DG002 unused-noqa: the CLI engine, the in-memory checker and real flake8 agree."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths, check_source, load_config

TOOL = "from crewai.tools import BaseTool\n\nclass T(BaseTool):\n    def _run(self, q):\n        return q\n\n"
FILES = {
    # a used and an unused code on one line; a typo; a stale code on a clean line
    "app/agent.py": TOOL
    + "T()._run('x')  # noqa: DG101, DG103\n"
    + "T()._run('y')  # noqa: DG11\n"
    + "z = 1  # noqa: DG102\n"
    + "w = 2  # noqa: DG102, DG002\n"
    + "v = 3  # noqa\n"
    + "u = 4  # noqa: E501, F401\n"
    + "s = '# noqa: DG101'\n",
    # names no tool word: the gate skips its walk, so its DG codes silence nothing
    "app/plain.py": "import os\n\nos.getcwd()  # NOQA:DG101\n",
    # the whole file silenced, DG002 included
    "app/quiet.py": "# dispatchguard: noqa\nx = 1  # noqa: DG101\n",
}
EXPECTED = {
    ("app/agent.py", 7, 16, 36, "unused `noqa` directive (unused: DG103)"),
    ("app/agent.py", 8, 16, 28, "unused `noqa` directive (unknown: DG11)"),
    ("app/agent.py", 9, 8, 21, "unused `noqa` directive (unused: DG102)"),
    ("app/plain.py", 3, 14, 26, "unused `noqa` directive (unused: DG101)"),
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.dispatchguard]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _dg002(findings) -> set[tuple[str, int, int, int, str]]:
    return {(f.path, f.line, f.col, f.end_col, f.message) for f in findings if f.code == "DG002" and not f.suppressed}


def test_engine_reports_unused_directives_with_their_span(project: Path) -> None:
    config = load_config(["."])
    cold = check_paths(["."], config, jobs=1, use_cache=True)
    assert _dg002(cold.findings) == EXPECTED
    # the used code still suppresses its finding; the silenced file's DG002 is suppressed
    assert [(f.line, f.code, f.suppressed) for f in cold.findings if f.path == "app/quiet.py"] == [(2, "DG002", True)]
    warm = check_paths(["."], config, jobs=1, use_cache=True)
    assert warm.findings == cold.findings


def test_check_source_matches_the_engine(project: Path) -> None:
    config = LintConfig(root=project)
    found = set()
    for name, text in FILES.items():
        found |= _dg002(check_source(text, config, path=name, extra={n: t for n, t in FILES.items() if n != name}))
    assert found == EXPECTED


def test_disabled_codes_are_not_judged_unknown_ones_are(project: Path) -> None:
    config = dataclasses.replace(load_config(["."]), ignore=("DG102", "DG103"))
    found = _dg002(check_paths(["."], config, jobs=1, use_cache=False).findings)
    assert found == {
        ("app/agent.py", 8, 16, 28, "unused `noqa` directive (unknown: DG11)"),
        ("app/plain.py", 3, 14, 26, "unused `noqa` directive (unused: DG101)"),
    }


def test_dg002_can_be_turned_off(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.dispatchguard]\nper-file-ignores = {"app/plain.py" = ["DG002"]}\n')
    found = _dg002(check_paths(["."], load_config(["."]), jobs=1, use_cache=False).findings)
    assert found == {item for item in EXPECTED if item[0] != "app/plain.py"}
    config = dataclasses.replace(load_config(["."]), ignore=("DG002",))
    assert _dg002(check_paths(["."], config, jobs=1, use_cache=False).findings) == set()


@pytest.mark.integration
@pytest.mark.slow
def test_flake8_reports_the_same(project: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "DG", "."],
        cwd=project, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    found = set()
    for line in out.stdout.splitlines():
        path, row, col, rest = line.split(":", 3)
        code, message = rest.strip().split(" ", 1)
        if code == "DG002":
            found.add((path.removeprefix("./"), int(row), int(col), message))
    assert found == {(p, line, col, message) for p, line, col, _, message in EXPECTED}
