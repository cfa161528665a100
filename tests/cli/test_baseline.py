"""Baseline files: format, matching that survives line drift, and broken files."""

from __future__ import annotations

import json
import os

import pytest

from dispatchguard.cli import baseline
from dispatchguard.lint.findings import Finding

SOURCE = """\
import tools

def plan(t):
    t.run(x=1)
    t.run(x=1)
    b = t.run(x=2)
    return t._run()
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(SOURCE)
    return tmp_path


def findings_for(source: str, needle: str = ".run(", code: str = "DG101"):
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        if needle in line:
            col = line.index(needle)
            out.append(Finding("agent.py", number, col, code, "direct tool call", number, col + 8))
    return out


def test_written_file_is_versioned_sorted_and_counted(project):
    found = findings_for(SOURCE) + findings_for(SOURCE, "._run(", "DG103")
    assert baseline.write("baseline.json", reversed(found)) == 4
    text = (project / "baseline.json").read_text()
    data = json.loads(text)
    assert data["version"] == 1 and data["generator"] == "dispatchguard"
    entries = data["findings"]
    assert sorted((e["code"], e["count"]) for e in entries) == [("DG101", 1), ("DG101", 2), ("DG103", 1)]
    assert entries == sorted(entries, key=lambda e: (e["path"], e["code"], e["message"], e["source_hash"]))
    assert set(entries[0]) == {"path", "code", "message", "source_hash", "count"}
    assert {e["path"] for e in entries} == {"agent.py"}
    twice = next(e for e in entries if e["count"] == 2)
    assert twice["source_hash"] == baseline.line_hash("t.run(x=1)") != baseline.line_hash("b = t.run(x=2)")
    # Same input, same bytes: stable diffs.
    baseline.write("again.json", found)
    assert (project / "again.json").read_text() == text
    assert text.endswith("\n")


def test_suppressed_findings_are_not_recorded(project):
    found = findings_for(SOURCE)
    quiet = Finding(
        *[getattr(found[0], f) for f in ("path", "line", "col", "code", "message", "end_line", "end_col")],
        suppressed=True,
    )
    assert baseline.write("b.json", [quiet, found[1]]) == 1


def test_matching_ignores_line_drift_and_whitespace(project):
    found = findings_for(SOURCE)
    baseline.write("b.json", found)
    known = baseline.load("b.json")
    drifted = "# a new header comment\n\n" + SOURCE.replace("b = t.run(x=2)", "b  =  t.run(x=2)   ")
    (project / "agent.py").write_text(drifted)
    moved = findings_for(drifted)
    assert [f.line for f in moved] != [f.line for f in found]
    assert baseline.match(moved, "b.json", known) == {id(f) for f in moved}


def test_changed_line_or_extra_copy_is_new(project):
    baseline.write("b.json", findings_for(SOURCE))
    known = baseline.load("b.json")
    edited = SOURCE.replace("b = t.run(x=2)", "b = t.run(x=3)") + "    t.run(x=1)\n"
    (project / "agent.py").write_text(edited)
    now = findings_for(edited)
    covered = baseline.match(now, "b.json", known)
    new_lines = [edited.splitlines()[f.line - 1].strip() for f in now if id(f) not in covered]
    # The edited line is new; of three identical `t.run(x=1)` lines, the baseline covers two.
    assert new_lines == ["b = t.run(x=3)", "t.run(x=1)"]


def test_paths_are_relative_to_the_baseline_file(project):
    (project / "ci").mkdir()
    baseline.write("ci/baseline.json", findings_for(SOURCE))
    data = json.loads((project / "ci" / "baseline.json").read_text())
    assert {e["path"] for e in data["findings"]} == {"../agent.py"}
    # Run from another directory: the finding paths differ, the keys do not.
    os.chdir(project / "ci")
    found = [
        Finding("../agent.py", f.line, f.col, f.code, f.message, f.end_line, f.end_col) for f in findings_for(SOURCE)
    ]
    assert len(baseline.match(found, "baseline.json", baseline.load("baseline.json"))) == 3


def test_unreadable_source_still_gets_a_key(project):
    gone = Finding("missing.py", 1, 1, "DG001", "cannot read", 1, 2)
    baseline.write("b.json", [gone])
    assert baseline.match([gone], "b.json", baseline.load("b.json")) == {id(gone)}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[]", "not a dispatchguard baseline"),
        ('{"version": 2, "findings": []}', "has version 2"),
        ('{"version": 1, "findings": {}}', '"findings" must be a list'),
        ('{"version": 1, "findings": [1]}', "finding 1 is not an object"),
        (
            '{"version": 1, "findings": [{"path": "a", "code": "DG101", "message": "m"}]}',
            "needs a string 'source_hash'",
        ),
        (
            '{"version": 1, "findings": [{"path": "a", "code": "DG101", "message": "m", "source_hash": "x", '
            '"count": 0}]}',
            "invalid count 0",
        ),
        (
            '{"version": 1, "findings": [{"path": "a", "code": "DG101", "message": "m", "source_hash": "x", '
            '"count": true}]}',
            "invalid count True",
        ),
    ],
)
def test_broken_files_raise_a_clear_error(project, content, message):
    (project / "b.json").write_text(content)
    with pytest.raises(baseline.BaselineError, match=r"baseline file b\.json") as info:
        baseline.load("b.json")
    assert message in str(info.value)


def test_missing_and_undecodable_files(project):
    with pytest.raises(baseline.BaselineError, match=r"not found \(create it with --write-baseline nope\.json"):
        baseline.load("nope.json")
    (project / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(baseline.BaselineError, match=r"cannot read baseline file bin\.json"):
        baseline.load("bin.json")


def test_write_failure_is_a_baseline_error(project):
    with pytest.raises(baseline.BaselineError, match="cannot write baseline file"):
        baseline.write("no/such/dir/b.json", findings_for(SOURCE))
    assert not list(project.glob(".baseline-*"))


def test_count_defaults_to_one(project):
    key = baseline.keys_for(findings_for(SOURCE)[:1], "b.json")[0][1]
    entry = {**key._asdict()}
    (project / "b.json").write_text(json.dumps({"version": 1, "findings": [entry]}))
    assert baseline.load("b.json") == {key: 1}
