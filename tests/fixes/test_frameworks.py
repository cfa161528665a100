"""DG104 fixes against the real frameworks: a project of LangChain (``langchain_core``) and CrewAI
``@tool`` functions returning dicts, lists, numbers and None is fixed with ``dispatchguard fix
--unsafe-fixes`` (a real subprocess); then the fixed module is imported in another subprocess and
every tool is called the framework's way (``tool.invoke({...})``, CrewAI's ``tool.run(...)``). Each
now returns a ``str`` that ``json.loads`` turns back into exactly what the tool returned before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

LANGCHAIN_TOOLS = '''\
"""LangChain tools."""

from langchain_core.tools import StructuredTool, tool


@tool
def company(domain: str) -> dict:
    """Look up a company."""
    return {"domain": domain, "tier": "gold", "active": True, "score": 1.5, "owner": None}


@tool
def tags(text: str) -> list:
    """The #tags of a text."""
    return sorted({w[1:] for w in text.split() if w.startswith("#")})


@tool
def nothing(text: str):
    """Returns nothing."""
    if text:
        return
    return None


@tool(response_format="content_and_artifact")
def fetch(url: str):
    """Content for the model, the page as the artifact."""
    return {"url": url, "title": "Über"}, {"raw": url}


def multiply(a: float, b: float) -> float:
    return a * b / 1


calculator = StructuredTool.from_function(func=multiply, name="multiply", description="Multiply.")
'''

CREWAI_TOOLS = '''\
"""CrewAI tools."""

from crewai.tools import tool


@tool("Calculator")
def calculate(expression: str) -> dict:
    """Evaluate a number."""
    try:
        return {"value": float(expression), "expression": expression}
    except ValueError:
        return "Error: invalid expression"


@tool("Tags")
def crew_tags(text: str) -> list:
    """The #tags of a text."""
    return [w[1:] for w in text.split() if w.startswith("#")]
'''

#: Calls every tool the framework's way; prints {call: [type name, value]} as JSON.
CALLS = """\
import json

from app.crew_tools import calculate, crew_tags
from app.lc_tools import calculator, company, fetch, nothing, tags

message = fetch.invoke({"type": "tool_call", "id": "1", "name": "fetch", "args": {"url": "u"}})
results = {
    "company": company.invoke({"domain": "acme.io"}),
    "tags": tags.invoke({"text": "a #b #c"}),
    "nothing": nothing.invoke({"text": "x"}),
    "fetch": fetch.invoke({"url": "u"}),
    "fetch artifact": message.artifact,
    "multiply": calculator.invoke({"a": 2, "b": 3}),
    "calculate": calculate.run(expression="2.5"),
    "calculate error": calculate.run(expression="two"),
    "crew_tags": crew_tags.run(text="a #x #y"),
}
print(json.dumps({call: [type(value).__name__, value] for call, value in results.items()}))
"""

# The project's own tools under its frameworks, not measured: coverage would cost each crewai import
# 1.4 s of CPU, and the one function of ours they may call (ensure_json_str) is measured in-process.
QUIET = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
QUIET.update(CREWAI_DISABLE_TELEMETRY="true", OTEL_SDK_DISABLED="true")


def call_tools(project: Path) -> dict[str, list]:
    proc = subprocess.run(
        [sys.executable, "-c", CALLS], cwd=project, capture_output=True, text=True, env=QUIET, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("dependencies", [[], ["dispatchguard"]], ids=["json.dumps", "ensure_json_str"])
def test_fixed_tools_return_json_text_of_the_same_data(dependencies: list[str], tmp_path: Path):
    project = tmp_path / "project"
    (project / "app").mkdir(parents=True)
    (project / "pyproject.toml").write_text(f'[project]\nname = "app"\ndependencies = {json.dumps(dependencies)}\n')
    (project / "app" / "__init__.py").write_text("")
    (project / "app" / "lc_tools.py").write_text(LANGCHAIN_TOOLS)
    (project / "app" / "crew_tools.py").write_text(CREWAI_TOOLS)
    before = call_tools(project)
    assert before["company"][0] == "dict" and before["tags"][0] == "list" and before["nothing"][0] == "NoneType"

    proc = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "fix", "--no-cache", "--unsafe-fixes", "."],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # files changed
    assert "Fixed 9 findings in 2 files." in proc.stderr, proc.stdout + proc.stderr
    wrapper = "ensure_json_str(" if dependencies else "json.dumps("
    assert wrapper in (project / "app" / "lc_tools.py").read_text()
    assert "(not the artifact)" in proc.stdout  # fetch: the content element only

    after = call_tools(project)
    assert after.keys() == before.keys()
    for call, (kind, value) in after.items():
        if call == "fetch artifact":
            assert [kind, value] == before[call]  # the artifact is untouched
            continue
        assert kind == "str", call
        original = before[call][1]
        if call == "calculate error":  # failure prose from an except handler: the error object
            original = {"error": original, "kind": "tool_error", "tool": "Calculator"}
        assert json.loads(value) == original, call

    check = subprocess.run(
        [sys.executable, "-m", "dispatchguard", "check", "--no-cache", "--select", "DG104", "."],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout  # no DG104 left
