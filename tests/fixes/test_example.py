"""The fixer on a copy of the bundled example's violating twin."""

from __future__ import annotations

import ast
import dataclasses
import shutil
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

from ..conftest import about

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "newsroom" / "violating"


@pytest.fixture
def example(tmp_path: Path, monkeypatch) -> Path:
    if not EXAMPLE.is_dir():
        pytest.skip("examples/newsroom/violating is not there")
    copy = tmp_path / "violating"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__", ".dispatchguard_cache"))
    monkeypatch.chdir(copy)
    return copy


def run(dispatcher: bool = True, **kwargs):
    """With ``dispatcher``, the project's own ``newsroom.dispatcher.dispatch_tool(name, args)`` is
    configured (the example's pyproject does not name it)."""
    config = load_config(["."])
    if dispatcher:
        config = dataclasses.replace(config, dispatchers=("newsroom.dispatcher.dispatch_tool",))
    return apply_fixes(["."], config, use_cache=False, **kwargs)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_without_unsafe_fixes_nothing_changes(example):
    before = snapshot(example)
    report = run()
    assert report.applied == [] and report.changed_files == []
    assert {s.kind for s in report.skipped} == {"unsafe", "unfixable"}
    assert report.exit_code == 1  # findings remain
    assert snapshot(example) == before


def test_unsafe_fixes_leave_only_what_has_no_fix(example):
    report = run(unsafe=True)
    assert report.applied
    remaining = {f.code for f in about(report.remaining)}
    assert "DG103" not in remaining
    assert remaining <= {"DG101", "DG102"}
    reasons = {s.code: s.reason for s in report.skipped}
    assert "DG102" in reasons and "tool module" in reasons["DG102"]
    for path, data in snapshot(example).items():
        ast.parse(data, filename=path)
    # idempotent
    before = snapshot(example)
    again = run(unsafe=True)
    assert again.applied == [] and again.changed_files == []
    assert snapshot(example) == before


def test_dg101_rewrites_go_through_the_projects_dispatcher(example):
    report = run(unsafe=True, select=["DG101"])
    assert report.applied
    fixed = [p for p in report.changed_files if "agents" in p]
    assert fixed
    for path in fixed:
        text = (example / path).read_text()
        assert "dispatch_tool(" in text and "ToolAction" not in text
        assert "from newsroom.dispatcher import dispatch_tool" in text


def test_without_a_configured_dispatcher_dg101_has_no_fix(example):
    report = run(dispatcher=False, unsafe=True, select=["DG101"])
    assert report.applied == [] and report.remaining
    assert any("no dispatcher of the project is configured" in s.reason for s in report.skipped if s.code == "DG101")


def test_diff_on_the_example_writes_nothing(example):
    before = snapshot(example)
    report = run(unsafe=True, diff=True)
    assert report.diff.count("+++ b/") == len(report.changed_files) >= 5
    assert snapshot(example) == before
