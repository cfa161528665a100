"""Fixes keep what the project answers (issue 35): when the project's dispatcher makes text of a
tool's non-text result itself (``json.dumps(result, default=str)``, a ``to_text`` helper of its
own), the fixed tool returns exactly that text, so the dispatcher's answer for every tool is byte
for byte what it was. Checked by running the project's own dispatcher, before and after, in a
real interpreter; a dispatcher that encodes text too gets the plain fix and the reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

TOOLS = '''\
from datetime import datetime

from crewai.tools import BaseTool
from pydantic import BaseModel


class SlaReport(BaseModel):
    ticket: str
    generated_at: datetime
    hours_left: float


class SlaReportTool(BaseTool):
    name: str = "sla_report"
    description: str = "The SLA report of a ticket."

    def _run(self, ticket: str) -> dict:
        report = SlaReport(ticket=ticket, generated_at=datetime(2024, 3, 3, 12), hours_left=2.5)
        return report.model_dump()


class OwnerTool(BaseTool):
    name: str = "owner"
    description: str = "Who owns a ticket."

    def _run(self, ticket: str) -> dict:
        try:
            return {"ticket": ticket, "owner": "Zoë", "since": datetime(2024, 1, 2)}
        except KeyError as exc:
            return f"Error: {exc}"
'''
ROUTERS = {
    # the result passes through when it is text, else json.dumps(..., default=str)
    "inline": (
        "import json\n\nfrom desk.tools.reports import OwnerTool, SlaReportTool\n\n"
        'TOOLS = {"sla_report": SlaReportTool(), "owner": OwnerTool()}\n\n\n'
        "def run_tool(name, args):\n    result = TOOLS[name].run(**args)\n"
        "    return result if isinstance(result, str) else json.dumps(result, default=str)\n",
        {},
    ),
    # a helper of the project's own, in a module the tools can import without a cycle
    "helper": (
        "from desk.text import to_text\nfrom desk.tools.reports import OwnerTool, SlaReportTool\n\n"
        'TOOLS = {"sla_report": SlaReportTool(), "owner": OwnerTool()}\n\n\n'
        "def run_tool(name, args):\n    result = TOOLS[name].run(**args)\n    return to_text(result)\n",
        {
            "desk/text.py": 'import json\n\n\ndef to_text(value):\n    """Text for the model."""\n'
            "    if isinstance(value, str):\n        return value\n"
            "    return json.dumps(value, indent=1, default=repr)\n"
        },
    ),
}
ANSWERS = (
    "from desk.router import run_tool\n\nfor name in ('sla_report', 'owner'):\n"
    "    print(run_tool(name, {'ticket': 'T-1'}))\n"
)
CONFIG = (
    '[project]\nname = "desk"\n\n[tool.dispatchguard]\ndispatchers = ["desk.router.run_tool"]\n'
    'tool-modules = ["desk/tools/**"]\n'
)


def make(root: Path, router: str, extra: dict[str, str]) -> None:
    files = {"pyproject.toml": CONFIG, "desk/__init__.py": "", "desk/tools/__init__.py": "",
             "desk/tools/reports.py": TOOLS, "desk/router.py": router, "answers.py": ANSWERS, **extra}  # fmt: skip
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def answers(root: Path) -> bytes:
    # the project's dispatcher under crewai, not measured (coverage costs a crewai import 1.4 s of CPU)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    command = [sys.executable, "answers.py"]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, timeout=120, check=True)
    return done.stdout


@pytest.mark.integration
@pytest.mark.parametrize("router", sorted(ROUTERS))
def test_the_dispatcher_answers_the_same_text_after_the_fix(router: str, tmp_path: Path, monkeypatch) -> None:
    make(tmp_path, *ROUTERS[router])
    before = answers(tmp_path)
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["desk/tools"], load_config(["."]), unsafe=True, use_cache=False, select=["DG103"])
    fixed = (tmp_path / "desk" / "tools" / "reports.py").read_text(encoding="utf-8")
    assert len([a for a in report.applied if a.code == "DG103"]) == 3, report
    assert "model_dump_json" not in fixed  # pydantic's text would differ from the project's
    assert answers(tmp_path) == before
    serializer = "json.dumps(" if router == "inline" else "to_text("
    assert f"return {serializer}report.model_dump()" in fixed
    assert "desk.router.run_tool" in report.applied[0].description


def test_a_dispatcher_that_encodes_text_too_gets_the_plain_fix_and_the_reason(tmp_path: Path, monkeypatch) -> None:
    router = ROUTERS["inline"][0].replace(
        "return result if isinstance(result, str) else json.dumps(result, default=str)",
        "return json.dumps(result, default=str)",
    )
    make(tmp_path, router, {})
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["desk/tools"], load_config(["."]), unsafe=True, use_cache=False, select=["DG103"])
    reasons = [a.description for a in report.applied]
    assert reasons and all("encodes every result, text too" in r for r in reasons)


def test_failure_prose_takes_the_shape_of_the_dispatchers_own_errors(tmp_path: Path, monkeypatch) -> None:
    router = ROUTERS["inline"][0].replace(
        "    result = TOOLS[name].run(**args)\n",
        "    if name not in TOOLS:\n"
        "        return json.dumps({\"ok\": False, \"error\": f\"unknown tool {name}\", \"tool\": name})\n"
        "    result = TOOLS[name].run(**args)\n",
    )
    make(tmp_path, router, {})
    monkeypatch.chdir(tmp_path)
    apply_fixes(["desk/tools"], load_config(["."]), unsafe=True, use_cache=False, select=["DG103"])
    fixed = (tmp_path / "desk" / "tools" / "reports.py").read_text(encoding="utf-8")
    assert 'return json.dumps({"ok": False, "error": f"Error: {exc}", "tool": "owner"}, default=str)' in fixed
