"""The formats beside text/json/github/sarif, each checked against what its consumer reads: JUnit
XML through junitparser, GitLab Code Quality and reviewdog's rdjson through their JSON Schemas, the
others by their exact shape (ruff's)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import junitparser
import pytest

from dispatchguard.cli.output import FORMATS, Context, render
from dispatchguard.lint.findings import Finding
from dispatchguard.lint.rules import RULES

from ..conftest import SELECT
from .conftest import run_cli

DATA = Path(__file__).parent / "data"
SOURCE = "from app.tools import Search\n\n\ndef plan(query):\n    tool = Search()\n    return tool.run(query=query)\n"


def load_schema(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def validate(instance: object, schema: dict) -> None:
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    jsonschema.validate(instance, schema, cls=cls, format_checker=jsonschema.FormatChecker())


@dataclasses.dataclass(frozen=True)
class Edit:
    content: str
    line: int
    col: int
    end_line: int
    end_col: int


@dataclasses.dataclass(frozen=True)
class Fix:
    applicability: str
    message: str
    edits: tuple[Edit, ...]


@pytest.fixture
def findings(tmp_path: Path) -> list[Finding]:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "agent.py").write_text(SOURCE, encoding="utf-8")
    return [
        Finding("app/agent.py", 5, 12, "DG102", "tool class `Search` instantiated outside the tool modules", 5, 20),
        Finding("app/agent.py", 6, 12, "DG101", "direct tool call `tool.run(...)` bypasses the dispatcher", 6, 33),
        Finding("app/agent.py", 6, 12, "DG101", "direct tool call `tool.run(...)` bypasses the dispatcher", 6, 33),
        Finding("app/tools.py", 10, 16, "DG103", "`Search._run` returns a dict, not a JSON string", 10, 32, True),
        Finding("app/zé.py", 1, 5, "DG103", "`f` returns a dict, not a JSON string", 1, 9),
    ]


def context(tmp_path: Path, **kw: object) -> Context:
    return Context(rules=RULES, cwd=str(tmp_path), version="0.1.0", **kw)  # type: ignore[arg-type]


def test_every_format_is_registered_and_renders(findings, tmp_path):
    assert set(FORMATS) >= {"concise", "full", "grouped", "json-lines", "junit", "gitlab", "pylint", "rdjson"}
    for name in FORMATS:
        assert render(name, findings, context(tmp_path)), name
    assert render("concise", findings, context(tmp_path)) == render("text", findings, context(tmp_path))


def test_junit_reads_back_through_junitparser(findings, tmp_path):
    xml = junitparser.JUnitXml.fromstring(render("junit", findings, context(tmp_path)))
    assert (xml.name, xml.tests, xml.failures, xml.errors) == ("dispatchguard", 4, 4, 0)
    suites = list(xml)
    assert [(s.name, s.tests, s.failures) for s in suites] == [("app/agent.py", 3, 3), ("app/zé.py", 1, 1)]
    case = next(iter(suites[0]))
    assert (case.name, case.classname) == ("org.dispatchguard.DG102", "app/agent")
    [failure] = case.result
    assert isinstance(failure, junitparser.Failure)
    assert failure.message == "tool class `Search` instantiated outside the tool modules"
    assert failure.text == "line 5, col 12, tool class `Search` instantiated outside the tool modules"
    stated = (xml.tests, xml.failures, [(s.tests, s.failures) for s in suites])
    xml.update_statistics()  # junitparser's own count of the cases must agree with the attributes
    assert stated == (xml.tests, xml.failures, [(s.tests, s.failures) for s in xml])


def test_junit_of_a_clean_run_is_one_passing_case(tmp_path):
    xml = junitparser.JUnitXml.fromstring(render("junit", [], context(tmp_path)))
    [suite] = list(xml)
    [case] = list(suite)
    assert (case.name, case.is_passed, xml.tests, xml.failures) == ("No errors found", True, 1, 0)


def test_junit_escapes_markup(tmp_path):
    hostile = Finding("a.py", 1, 1, "DG101", 'call `x("<a>&]]>")` bypasses', 1, 2)
    xml = junitparser.JUnitXml.fromstring(render("junit", [hostile], context(tmp_path)))
    [failure] = next(iter(next(iter(xml)))).result
    assert failure.message == 'call `x("<a>&]]>")` bypasses'


def test_gitlab_matches_the_code_quality_schema(findings, tmp_path, monkeypatch):
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    issues = json.loads(render("gitlab", findings, context(tmp_path)))
    validate(issues, load_schema("gitlab-codequality.schema.json"))
    assert len(issues) == 4
    assert issues[0] == {
        "check_name": "DG102",
        "description": "DG102: tool class `Search` instantiated outside the tool modules",
        "severity": "major",
        "fingerprint": issues[0]["fingerprint"],
        "location": {
            "path": "app/agent.py",
            "positions": {"begin": {"line": 5, "column": 12}, "end": {"line": 5, "column": 20}},
        },
    }
    # GitLab shows one issue per fingerprint: identical findings must still differ
    assert len({i["fingerprint"] for i in issues}) == 4
    # an edit above a finding does not make it a new issue
    moved = [dataclasses.replace(f, line=f.line + 3, end_line=f.end_line + 3) for f in findings]
    again = json.loads(render("gitlab", moved, context(tmp_path)))
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]
    # paths are relative to the project GitLab checked out
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path.parent))
    nested = json.loads(render("gitlab", findings, context(tmp_path)))
    assert nested[0]["location"]["path"] == f"{tmp_path.name}/app/agent.py"


def test_gitlab_schema_rejects_what_gitlab_would(findings, tmp_path):
    schema = load_schema("gitlab-codequality.schema.json")
    issues = json.loads(render("gitlab", findings, context(tmp_path)))
    for break_it in (
        lambda i: i.update(severity="error"),
        lambda i: i.pop("fingerprint"),
        lambda i: i["location"].update(path="/abs/app.py"),
        lambda i: i["location"].pop("positions"),
    ):
        broken = json.loads(json.dumps(issues))
        break_it(broken[0])
        with pytest.raises(jsonschema.ValidationError):
            validate(broken, schema)


def test_rdjson_matches_reviewdogs_schema(findings, tmp_path):
    result = json.loads(render("rdjson", findings, context(tmp_path)))
    schema = load_schema("reviewdog-rdjson.schema.json")
    validate(result, schema)
    assert result["source"] == {"name": "dispatchguard", "url": "https://github.com/dispatchguard/dispatchguard"}
    assert result["severity"] == "ERROR"
    first = result["diagnostics"][0]
    assert first == {
        "message": "tool class `Search` instantiated outside the tool modules",
        "location": {
            "path": str(tmp_path / "app" / "agent.py"),
            "range": {"start": {"line": 5, "column": 12}, "end": {"line": 5, "column": 20}},
        },
        "code": {"value": "DG102", "url": RULES["DG102"].url},
    }
    assert len(result["diagnostics"]) == 4  # the silenced one is left out
    broken = {**result, "severity": "FATAL"}
    with pytest.raises(jsonschema.ValidationError):
        validate(broken, schema)


def test_rdjson_columns_count_utf8_bytes_and_fixes_become_suggestions(tmp_path):
    (tmp_path / "m.py").write_text('é = t.run("ü")\n', encoding="utf-8")
    fix = Fix("unsafe", "wrap", (Edit("json.dumps(", 1, 5, 1, 5),))
    found = dataclasses.replace(Finding("m.py", 1, 5, "DG101", "direct", 1, 15), fix=fix)
    [item] = json.loads(render("rdjson", [found], context(tmp_path)))["diagnostics"]
    assert item["location"]["range"] == {"start": {"line": 1, "column": 6}, "end": {"line": 1, "column": 17}}
    assert item["suggestions"] == [
        {"range": {"start": {"line": 1, "column": 6}, "end": {"line": 1, "column": 6}}, "text": "json.dumps("}
    ]


def test_pylint_and_json_lines(findings, tmp_path):
    assert render("pylint", findings, context(tmp_path)).splitlines()[:2] == [
        "app/agent.py:5: [DG102] tool class `Search` instantiated outside the tool modules",
        "app/agent.py:6: [DG101] direct tool call `tool.run(...)` bypasses the dispatcher",
    ]
    lines = render("json-lines", findings, context(tmp_path)).splitlines()
    assert [json.loads(line) for line in lines] == json.loads(render("json", findings, context(tmp_path)))


def test_grouped_aligns_positions_under_each_file(findings, tmp_path):
    assert render("grouped", findings, context(tmp_path)) == (
        "app/agent.py:\n"
        "  5:12 DG102 tool class `Search` instantiated outside the tool modules\n"
        "  6:12 DG101 direct tool call `tool.run(...)` bypasses the dispatcher\n"
        "  6:12 DG101 direct tool call `tool.run(...)` bypasses the dispatcher\n"
        "\n"
        "app/zé.py:\n"
        "  1:5 DG103 `f` returns a dict, not a JSON string\n"
        "\n"
    )


def test_full_shows_the_source_and_underlines_the_range(findings, tmp_path):
    blocks = render("full", findings, context(tmp_path)).split("\n\n")
    assert blocks[0] == (
        "DG102 tool class `Search` instantiated outside the tool modules\n"
        " --> app/agent.py:5:12\n"
        "  |\n"
        "4 | def plan(query):\n"
        "5 |     tool = Search()\n"
        "  |            ^^^^^^^^\n"
        "6 |     return tool.run(query=query)\n"
        "  |"
    )
    # a file that cannot be read: the header and where, nothing invented
    assert blocks[-1] == "DG103 `f` returns a dict, not a JSON string\n --> app/zé.py:1:5\n"


@pytest.mark.integration
def test_full_shows_a_buffer_from_standard_input(tmp_path):
    """The frame of a checked buffer comes from the buffer, not from the file on disk."""
    (tmp_path / "agent.py").write_text("on disk\n", encoding="utf-8")
    done = run_cli(
        "check", *SELECT, "--no-cache", "--output-format", "full", "--stdin-filename", "agent.py", "-",
        cwd=tmp_path, stdin="tool._run('x')\n",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "1 | tool._run('x')\n  | ^^^^^^^^^^^^^^" in done.stdout
    assert "on disk" not in done.stdout


@pytest.mark.integration
@pytest.mark.parametrize("fmt", ["junit", "gitlab", "rdjson", "grouped", "full", "pylint", "json-lines"])
def test_each_format_through_the_command(project, fmt):
    done = run_cli("check", *SELECT, "--no-cache", "--output-format", fmt)
    assert done.returncode == 1, done.stderr
    assert "DG101" in done.stdout and "DG102" in done.stdout and "DG103" in done.stdout
    if fmt == "junit":
        assert junitparser.JUnitXml.fromstring(done.stdout).failures == 3
    elif fmt in ("gitlab", "rdjson"):
        schema = "gitlab-codequality.schema.json" if fmt == "gitlab" else "reviewdog-rdjson.schema.json"
        validate(json.loads(done.stdout), load_schema(schema))
    summary = done.stderr.startswith("Found 3 findings")
    assert summary is (fmt in ("grouped", "full"))  # the summary is for people, not for parsers


@pytest.mark.integration
def test_full_shows_a_buffer_whose_coding_cookie_is_unknown(tmp_path):
    done = run_cli(
        "check", *SELECT, "--no-cache", "--output-format", "full", "-", cwd=tmp_path, stdin="# coding: nope\nx = 1\n"
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("DG001 ") and "1 | # coding: nope" in done.stdout
