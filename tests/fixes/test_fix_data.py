"""Fix data (``dispatchguard.fix.with_fixes``): each finding gets ruff's fix object, and its
edits, applied to the file, give what ``dispatchguard fix`` writes for that finding."""

from __future__ import annotations

from pathlib import Path

from dispatchguard.fix import FixData, apply_fixes, with_fixes
from dispatchguard.lint import check_paths, load_config

from ..conftest import about

TOOLS = """\
from typing import Any

from crewai.tools import BaseTool


class KpiTool(BaseTool):
    name: str = "KPI"
    description: str = "Ratio of two numbers."

    def _run(self, current: float, target: float) -> dict[str, Any]:
        return {"ratio": current / target, "unit": "°C"}


LIMIT = 3  # noqa: DG101
"""


def apply(text: str, fix: FixData) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col - 1

    for edit in sorted(fix.edits, key=lambda e: (e.line, e.col, e.end_line, e.end_col), reverse=True):
        start, end = offset(edit.line, edit.col), offset(edit.end_line, edit.end_col)
        text = text[:start] + edit.content + text[end:]
    return text


def test_each_finding_carries_the_fix_the_fixer_applies(tmp_path: Path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(TOOLS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    config = load_config(["."])

    findings = with_fixes(about(check_paths(["."], config, use_cache=False).active), config)
    by_code = {f.code: f for f in findings}
    assert sorted(by_code) == ["DG002", "DG103"]
    noqa, wrap = by_code["DG002"].fix, by_code["DG103"].fix
    assert (noqa.applicability, noqa.message) == ("safe", "remove the noqa directive")
    assert [(e.content, e.line, e.col, e.end_line, e.end_col) for e in noqa.edits] == [("", 14, 10, 14, 25)]
    assert wrap.applicability == "unsafe" and wrap.message == "wrap the returned value in json.dumps(...)"

    expected = apply(TOOLS, wrap)
    assert "import json\n" in expected and "-> str:" in expected and "from typing import Any" not in expected
    apply_fixes(["."], config, unsafe=True, use_cache=False, select=["DG103"])
    assert (tmp_path / "app" / "tools.py").read_text(encoding="utf-8") == expected


def test_findings_without_a_fix_keep_none(tmp_path: Path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    source = "from crewai.tools import BaseTool\n\n\ndef f(t: BaseTool):\n    return t.run(1)\n"
    (tmp_path / "mod.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    config = load_config(["."])
    findings = about(check_paths(["."], config, use_cache=False).active)
    assert [f.code for f in findings] == ["DG101"]
    assert [f.fix for f in with_fixes(findings, config)] == [None]


def test_a_named_file_the_configuration_excludes_still_gets_its_fixes(tmp_path: Path, monkeypatch):
    """`check --output-format json gen/tools.py` checks an excluded file named on the command line;
    planning its fixes raised KeyError (an internal error, exit 2) when the file was not among the
    project's files."""
    (tmp_path / "pyproject.toml").write_text('[tool.dispatchguard]\nextend-exclude = ["gen"]\n')
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "tools.py").write_text(TOOLS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    config = load_config(["gen/tools.py"])

    findings = with_fixes(about(check_paths(["gen/tools.py"], config, use_cache=False).active), config)
    (wrap,) = [f for f in findings if f.code == "DG103"]
    assert wrap.fix is not None and wrap.fix.applicability == "unsafe"
