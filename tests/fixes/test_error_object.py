"""Failure prose becomes the error object (issue 35, item 3) beyond ``except`` handlers: text a
branch that reports a failure returns (``if not ok``, a failed status check, the ``else`` of a
success check, prose that starts as an error) is wrapped as ``{"error": ..., "kind", "tool"}``;
other text (``if not results: return "No results found."``) stays a JSON string literal."""

from __future__ import annotations

from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

TOOL = '''\
from langchain_core.tools import tool


@tool("Lookup")
def lookup(query: str) -> dict:
    """Look a query up."""
    ok, resp, data, results = fetch(query)
{branch}
    return data


def fetch(query):
    return True, None, {{}}, []
'''
ERROR = 'json.dumps({{"error": {text}, "kind": "tool_error", "tool": "Lookup"}}, ensure_ascii=False, default=str)'
LITERAL = "json.dumps({text}, ensure_ascii=False, default=str)"
CASES = {
    "not ok": ('    if not ok:\n        return f"lookup of {query} went wrong"', ERROR),
    "status check": ('    if resp.status_code != 200:\n        return f"HTTP {resp.status_code}"', ERROR),
    "status is 404": ('    if resp.status_code == 404:\n        return "no such page"', ERROR),
    "not resp.ok": ('    if not resp.ok:\n        return "the service said no: " + resp.text', ERROR),
    "error flag": ('    if data.get("error"):\n        return str(data["error"])', ERROR),
    "error key": ('    if "error" in data:\n        return "upstream: %s" % data["error"]', ERROR),
    "else of a success check": (
        '    if resp.status_code == 200:\n        data = resp.json()\n    else:\n        return "no data"', ERROR
    ),
    "failure prose": ('    if len(query) > 100:\n        return "Error: the query is too long"', ERROR),
    "no results": ('    if not results:\n        return "No results found."', LITERAL),
    "success arm": ('    if resp.ok:\n        return "all good"', LITERAL),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_failure_branches_return_the_error_object(case: str, tmp_path: Path, monkeypatch) -> None:
    branch, shape = CASES[case]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n', encoding="utf-8")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
    tools = tmp_path / "app" / "tools.py"
    tools.write_text(TOOL.format(branch=branch), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["app/tools.py"], load_config(["."]), unsafe=True, use_cache=False, select=["DG104"])
    returned = branch.rsplit("return ", 1)[1]
    assert f"return {shape.format(text=returned)}" in tools.read_text(encoding="utf-8"), tools.read_text()
    (fix,) = [a for a in report.applied if a.line == branch.count("\n") + 8]
    assert ("error object" in fix.description) == (shape is ERROR), fix.description
