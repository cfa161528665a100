"""The output formats, on findings built by hand (no checker involved)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

from dispatchguard.cli.output import (
    Context,
    github,
    json_format,
    render,
    text,
)
from dispatchguard.cli.output.style import use_colour
from dispatchguard.lint.findings import Finding
from dispatchguard.lint.rules import RULES

SCHEMA = json.loads(
    Path(
        os.environ.get("DG_SARIF_SCHEMA") or Path(__file__).parent / "data" / "sarif-2.1.0-subset.schema.json"
    ).read_text(encoding="utf-8")
)


def finding(path="pkg/agent.py", line=3, col=5, code="DG101", message="direct call of tool `t`", suppressed=False):
    return Finding(path, line, col, code, message, line, col + 10, suppressed)


@pytest.fixture
def findings():
    return [
        finding(),
        finding(line=7, col=1, code="DG102", message="tool `Search` instantiated outside the tool modules"),
        finding(path="pkg/tools.py", line=12, col=9, code="DG103", message="returns a dict", suppressed=True),
    ]


def context(tmp_path, **kw):
    return Context(rules=RULES, cwd=str(tmp_path), version="0.1.0", **kw)


def test_text_lists_unsuppressed_findings_in_order(findings, tmp_path):
    assert render("text", findings, context(tmp_path)) == (
        "pkg/agent.py:3:5: DG101 direct call of tool `t`\n"
        "pkg/agent.py:7:1: DG102 tool `Search` instantiated outside the tool modules\n"
    )


def test_text_show_suppressed_marks_noqa_and_baseline(findings, tmp_path):
    out = render("text", findings, context(tmp_path, show_suppressed=True, baselined=frozenset({id(findings[1])})))
    assert out.splitlines() == [
        "pkg/agent.py:3:5: DG101 direct call of tool `t`",
        "pkg/agent.py:7:1: DG102 tool `Search` instantiated outside the tool modules  [baseline]",
        "pkg/tools.py:12:9: DG103 returns a dict  [noqa]",
    ]


def test_empty_text_output(tmp_path):
    assert render("text", [], context(tmp_path)) == ""


def test_json_has_ruffs_fields(findings, tmp_path):
    items = json.loads(render("json", findings, context(tmp_path)))
    assert len(items) == 2
    first = items[0]
    assert set(first) == {
        "cell",
        "code",
        "name",
        "message",
        "filename",
        "location",
        "end_location",
        "fix",
        "url",
        "noqa_row",
    }
    assert first["cell"] is None  # ruff's key: a notebook's cell, null for a Python file
    assert first["name"] == "direct-tool-call" and items[1]["name"] == "tool-instantiated-outside-tools-module"
    assert first["filename"] == str(tmp_path / "pkg" / "agent.py")
    assert Path(first["filename"]).is_absolute()
    assert first["location"] == {"row": 3, "column": 5}
    assert first["end_location"] == {"row": 3, "column": 15}
    assert first["fix"] is None
    assert first["url"] == RULES["DG101"].url and first["url"].endswith("/docs/rules/DG101.md")
    assert first["noqa_row"] == 3


@dataclass(frozen=True)
class Edit:
    content: str
    line: int
    col: int
    end_line: int
    end_col: int


@dataclass(frozen=True)
class Fix:
    applicability: str
    message: str | None
    edits: tuple[Edit, ...]


def test_json_fix_object_has_ruffs_shape(tmp_path):
    fix = Fix(
        "unsafe",
        "Wrap the return value in `ensure_json_str(...)`",
        (Edit("ensure_json_str(", 3, 12, 3, 12), Edit(")", 3, 20, 3, 20)),
    )
    fixed = dataclasses.replace(finding(code="DG103"), fix=fix)
    (item,) = json.loads(render("json", [fixed], context(tmp_path)))
    assert item["fix"] == {
        "applicability": "unsafe",
        "message": "Wrap the return value in `ensure_json_str(...)`",
        "edits": [
            {
                "content": "ensure_json_str(",
                "location": {"row": 3, "column": 12},
                "end_location": {"row": 3, "column": 12},
            },
            {"content": ")", "location": {"row": 3, "column": 20}, "end_location": {"row": 3, "column": 20}},
        ],
    }


def test_text_colours_path_and_code_when_asked(findings, tmp_path):
    out = render("text", findings[:1], context(tmp_path, colour=True))
    assert out == "\x1b[1mpkg/agent.py\x1b[0m:\x1b[36m3:5:\x1b[0m \x1b[1m\x1b[31mDG101\x1b[0m direct call of tool `t`\n"


@pytest.mark.parametrize(
    ("environ", "tty", "expected"),
    [
        ({}, False, False),
        ({}, True, True),
        ({"TERM": "dumb"}, True, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"NO_COLOR": ""}, True, True),  # empty: not set
        ({"FORCE_COLOR": "1"}, False, True),
        ({"FORCE_COLOR": "1", "TERM": "dumb"}, False, True),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, True, False),
    ],
)
def test_colour_conventions(environ, tty, expected):
    stream = io.StringIO()
    stream.isatty = lambda: tty  # type: ignore[method-assign]
    assert use_colour(stream, environ) is expected


def test_json_leaves_out_baselined(findings, tmp_path):
    items = json.loads(render("json", findings, context(tmp_path, baselined=frozenset({id(findings[0])}))))
    assert [i["code"] for i in items] == ["DG102"]


def test_github_annotation(tmp_path):
    line = render("github", [finding()], context(tmp_path)).rstrip("\n")
    assert line == (
        "::error title=dispatchguard (DG101),file=pkg/agent.py,line=3,col=5,endLine=3,endColumn=15"
        "::pkg/agent.py:3:5: DG101 direct call of tool `t`"
    )


def test_github_escapes_properties_and_message(tmp_path):
    hostile = finding(path="dir,with:odd%chars/a.py", message="100% wrong\r\n::error::injected")
    line = render("github", [hostile], context(tmp_path))
    assert line.count("\n") == 1 and "\r" not in line
    props, _, message = line.rstrip("\n").partition("::")[2].partition("::")
    assert "file=dir%2Cwith%3Aodd%25chars/a.py," in props
    assert message.endswith("100%25 wrong%0D%0A::error::injected")
    assert github.escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    assert github.escape_data("a:b,c%\n") == "a:b,c%25%0A"


def test_github_skips_suppressed(findings, tmp_path):
    assert "DG103" not in render("github", findings, context(tmp_path))


def sarif(findings, tmp_path, **kw):
    log = json.loads(render("sarif", findings, context(tmp_path, **kw)))
    jsonschema.validate(
        log, SCHEMA, cls=jsonschema.validators.validator_for(SCHEMA), format_checker=jsonschema.FormatChecker()
    )
    return log


def test_sarif_is_valid_and_lists_rules(findings, tmp_path):
    log = sarif(findings, tmp_path)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(RULES)
    assert rules[2] == {
        "id": "DG101",
        "name": "direct-tool-call",
        "shortDescription": {"text": "Tool called directly instead of through the dispatcher"},
        "fullDescription": {
            "text": "Tool called directly instead of through the dispatcher: direct tool call `<call>` bypasses "
            "the dispatcher: go through `<dispatcher>`."
        },
        "helpUri": RULES["DG101"].url,
        "defaultConfiguration": {"level": "error"},
    }
    for rule in rules:  # no unfilled `str.format` field reaches a viewer
        assert "{" not in rule["fullDescription"]["text"], rule
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["DG101", "DG102", "DG103"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 15}
    location = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "pkg/agent.py", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"


def test_sarif_lists_suppressions(findings, tmp_path):
    results = sarif(findings, tmp_path, baselined=frozenset({id(findings[1])}))["runs"][0]["results"]
    assert "suppressions" not in results[0]
    assert results[1]["suppressions"][0]["kind"] == "external"
    assert results[2]["suppressions"] == [{"kind": "inSource"}]


def test_sarif_empty_run_and_odd_paths(tmp_path):
    assert sarif([], tmp_path)["runs"][0]["results"] == []
    odd = [finding(path="dir with space/ü%.py"), finding(path=str(tmp_path / "abs.py"), code="DG001")]
    results = sarif(odd, tmp_path)["runs"][0]["results"]
    assert (
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "dir%20with%20space/%C3%BC%25.py"
    )
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": (tmp_path / "abs.py").as_uri()}


def test_sarif_schema_rejects_a_broken_log(tmp_path):
    """The schema is strict enough to catch what a careless writer would get wrong."""
    log = json.loads(render("sarif", [finding()], context(tmp_path)))
    log["runs"][0]["results"][0]["suppressions"] = [{"kind": "noqa"}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SCHEMA, cls=jsonschema.validators.validator_for(SCHEMA))
    del log["runs"][0]["results"][0]["suppressions"]
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SCHEMA, cls=jsonschema.validators.validator_for(SCHEMA))


def test_statistics(findings, tmp_path):
    more = [*findings, finding(line=9)]
    assert text.render_statistics(more, context(tmp_path)).splitlines() == [
        "    2\tDG101\tdirect-tool-call",
        "    1\tDG102\ttool-instantiated-outside-tools-module",
    ]
    assert json.loads(json_format.render_statistics(more, context(tmp_path))) == [
        {"code": "DG101", "name": "direct-tool-call", "count": 2},
        {"code": "DG102", "name": "tool-instantiated-outside-tools-module", "count": 1},
    ]
