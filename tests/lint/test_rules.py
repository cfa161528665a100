"""Every rule's cases (``tests/lint/cases/<CODE>.py``, flake8-bugbear's eval files) and canonical
examples become tests; ``# error: CODE:COL MESSAGE`` pins the column and the message of a finding,
``# error: CODE`` (canonical examples) its line only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dispatchguard.lint import RULES, LintConfig
from dispatchguard.lint.rule import Rule
from dispatchguard.lint.source import check_source

CASES_DIR = Path(__file__).parent / "cases"
CASE = re.compile(r"^# case: (?P<kind>valid|invalid) (?P<title>.+)$")
PINNED = re.compile(r"# error: (?P<code>DG\d{3}):(?P<col>\d+) (?P<message>.+?)(?=\s+# error: |$)")
LINE_ONLY = re.compile(r"#\s*error:\s*(?P<codes>DG\d+(?:\s*,\s*DG\d+)*)\s*$")


def read_cases(path: Path) -> list[tuple[str, str, str]]:
    """(kind, title, source) of each case; a case's source keeps the lines above it blank, so
    line numbers are the file's."""
    lines = path.read_text(encoding="utf-8").splitlines()
    starts = [(n, CASE.match(line)) for n, line in enumerate(lines) if CASE.match(line)]
    cases = []
    for index, (start, match) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        source = "\n" * (start + 1) + "\n".join(lines[start + 1 : end]) + "\n"
        cases.append((match["kind"], match["title"], source))
    return cases


def pinned(source: str, code: str) -> set[tuple[int, int, str]]:
    return {
        (number, int(m["col"]), m["message"])
        for number, line in enumerate(source.splitlines(), start=1)
        for m in PINNED.finditer(line)
        if m["code"] == code
    }


def line_only(source: str, code: str) -> set[int]:
    return {
        number
        for number, line in enumerate(source.splitlines(), start=1)
        if (m := LINE_ONLY.search(line)) and code in re.split(r"\s*,\s*", m["codes"])
    }


FILE = re.compile(r"^# file: (?P<path>[\w/]+\.py)$")
#: a line of a case that checks it with ``preview = true`` (a behaviour of a stable rule in preview)
PREVIEW = "# preview"


def case_files(source: str) -> dict[str, str]:
    """A case as the modules of a project: ``# file: app/x.py`` lines start a module (a case without
    them is ``snippet.py``); each module keeps the case's other lines blank, so its line numbers are
    the case file's."""
    lines = source.split("\n")
    starts = [(n, m["path"]) for n, line in enumerate(lines) if (m := FILE.match(line))]
    if not starts:
        return {"snippet.py": source}
    files = {}
    for index, (start, path) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        files[path] = "\n" * (start + 1) + "\n".join(lines[start + 1 : end]) + "\n"
    return files


def findings(source: str, code: str) -> set[tuple[int, int, str]]:
    """The rule's findings, the rule selected by its code (a rule in preview runs only so), in every
    module of the case (:func:`case_files`), each checked with the others as its project; with
    ``preview = true`` when the case has a ``# preview`` line."""
    config = LintConfig(extend_select=(code,), preview=PREVIEW in source.split("\n"))
    files = case_files(source)
    found = []
    for path, text in files.items():
        extra = {other: other_text for other, other_text in files.items() if other != path}
        found += check_source(text, config, path=path, extra=extra)
    return {(f.line, f.col, f.message) for f in found if f.code == code and not f.suppressed}


CASE_PARAMS = [
    pytest.param(code, kind, source, id=f"{code}-{kind}-{title}")
    for code in RULES
    for kind, title, source in read_cases(CASES_DIR / f"{code}.py")
]


@pytest.mark.parametrize(("code", "kind", "source"), CASE_PARAMS)
def test_case(code: str, kind: str, source: str) -> None:
    found = findings(source, code)
    assert found == pinned(source, code)
    assert bool(found) == (kind == "invalid"), "an invalid case reports its rule, a valid one does not"


EXAMPLE_PARAMS = [
    pytest.param(code, kind, source, id=f"{code}-{kind}-{index}")
    for code, rule in RULES.items()
    for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid))
    for index, source in enumerate(examples)
]


@pytest.mark.parametrize(("code", "kind", "source"), EXAMPLE_PARAMS)
def test_canonical_example(code: str, kind: str, source: str) -> None:
    found = {line for line, _, _ in findings(source, code)}
    assert found == line_only(source, code)
    assert bool(found) == (kind == "invalid")


def test_every_rule_has_cases_and_every_case_file_a_rule() -> None:
    assert {path.stem for path in CASES_DIR.glob("*.py")} == set(RULES)


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_metadata(code: str) -> None:
    rule = RULES[code]
    assert rule.code == code
    assert rule.name == rule.name.lower() and " " not in rule.name
    assert rule.summary and rule.message
    assert 1 <= len(rule.valid) <= 4 and 1 <= len(rule.invalid) <= 4
    assert rule.url.endswith(f"/docs/rules/{code}.md")
    assert bool(rule.fixer) != bool(rule.no_fix_reason) or rule.reporter == "engine"


def test_codes_leave_room_for_later_rules() -> None:
    assert all(code.startswith(("DG0", "DG1")) for code in RULES)


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({}, "a walk rule needs a hook: check_call, check_nodes, check_tool_class"),
        ({"reporter": "engine", "check_call": print}, "an engine rule has no walk hooks"),
        ({"check_tool_method": print}, "check_tool_method and tool_methods go together"),
        ({"check_call": print, "fixer": "m", "no_fix_reason": "r"}, "a fixable rule has no no_fix_reason"),
    ],
)
def test_an_inconsistent_rule_is_refused(fields: dict, problem: str) -> None:
    with pytest.raises(TypeError, match=problem):
        Rule(code="DG199", name="x", summary="x", message="x", **fields)
