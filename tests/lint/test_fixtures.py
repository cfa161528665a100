"""Multi-file fixture projects with inline expectations (``# error: DG101``, ``# noqa: DG101``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths, engine, load_config

from ..conftest import about
from .conftest import FIXTURES, project_expectations

PROJECTS = ["crossfile", "aliases", "registries", "strict", "returns", "returns_strict", "toolkits"]


def _config(root: Path) -> LintConfig:
    if (root / "pyproject.toml").exists():
        return load_config([root])
    return LintConfig(root=root)


def _observed(root: Path, report) -> tuple[set, set]:
    active, suppressed = set(), set()
    for f in about(report.findings):
        rel = Path(f.path).resolve().relative_to(root).as_posix()
        (suppressed if f.suppressed else active).add((rel, f.line, f.code))
    return active, suppressed


@pytest.mark.parametrize("name", PROJECTS)
@pytest.mark.parametrize("jobs", [1, 2])
def test_fixture_project(name: str, jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    root = FIXTURES / name
    monkeypatch.setattr(engine, "PARALLEL_BYTES", 0)  # share out even these small rounds
    monkeypatch.chdir(root)
    report = check_paths(["."], _config(root), jobs=jobs, use_cache=False)
    active, suppressed = _observed(root, report)
    expected_active, expected_suppressed = project_expectations(root)
    assert active == expected_active
    assert suppressed == expected_suppressed
    assert report.findings == sorted(report.findings, key=lambda f: (f.path, f.line, f.col, f.code, f.message))


def test_only_requested_files_are_reported_but_whole_project_is_known(monkeypatch: pytest.MonkeyPatch) -> None:
    root = FIXTURES / "crossfile"
    monkeypatch.chdir(root)
    report = check_paths(["app/agent.py"], load_config(["app/agent.py"]), jobs=1, use_cache=False)
    assert report.files_checked == 1
    assert {f.path for f in about(report.findings)} == {"app/agent.py"}
    assert sum(not f.suppressed for f in about(report.findings)) == 6


def test_broken_files_give_dg001_and_other_files_are_checked() -> None:
    root = FIXTURES / "broken"
    report = check_paths([root], LintConfig(root=root), jobs=1, use_cache=False)
    by_file = {}
    for f in about(report.findings):
        by_file.setdefault(Path(f.path).name, []).append(f)
    assert [f.code for f in by_file["good.py"]] == ["DG101"]
    for name in ("syntax.py", "undecodable.py", "nullbyte.py"):
        assert [f.code for f in by_file[name]] == ["DG001"], name
    assert by_file["syntax.py"][0].line == 1
    assert "syntax error" in by_file["syntax.py"][0].message
    assert "decode" in by_file["undecodable.py"][0].message
    assert "syntax_plain.py" not in by_file  # names no tool word: not parsed (E999 is the linter's)
    assert report.files_checked == 5


def test_paths_are_relative_to_cwd_when_below_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = FIXTURES / "broken"
    monkeypatch.chdir(tmp_path)
    report = check_paths([root / "good.py"], LintConfig(root=root), use_cache=False)
    assert about(report.findings)[0].path == (root / "good.py").as_posix()
    monkeypatch.chdir(root.parent)
    report = check_paths([root / "good.py"], LintConfig(root=root), use_cache=False)
    assert about(report.findings)[0].path == "broken/good.py"
    assert os.sep not in about(report.findings)[0].path or os.sep == "/"


@pytest.mark.parametrize("name", PROJECTS)
def test_a_file_checked_alone_has_the_findings_of_the_whole_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A few files are checked *focused* (modules loaded as their names lead to them, issue 20):
    a file's findings never depend on which other paths are given."""
    root = FIXTURES / name
    monkeypatch.chdir(root)
    config = _config(root)
    whole = check_paths(["."], config, jobs=1, use_cache=False)
    for path in sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")):
        alone = check_paths([path], config, jobs=1, use_cache=False)
        assert about(alone.findings) == [f for f in about(whole.findings) if f.path == path], path
        assert alone.files_parsed <= whole.files_parsed, path  # never more than the whole run


def test_a_focused_run_knows_toolkit_members_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file checked alone (focused: no word rounds over the project) reads the toolkits' members
    from the summaries a whole run cached, and reports what the whole run reports."""
    root = FIXTURES / "toolkits"
    monkeypatch.chdir(root)
    config = _config(root)
    whole = check_paths(["."], config, jobs=1, cache_dir=tmp_path)
    path = "app/a_analyzer.py"
    expected = [f for f in about(whole.findings) if f.path == path]
    assert [(f.line, f.code) for f in expected] == [(13, "DG101")]
    (root / path).touch()  # not unchanged: the run is focused, not the cache's report
    alone = check_paths([path], config, jobs=1, cache_dir=tmp_path)
    assert about(alone.findings) == expected
