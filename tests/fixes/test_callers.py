"""What the JSON wraps must not break: one pass never encodes a value twice (``_arun`` returning
``self._run(...)`` while ``_run`` is wrapped), a return project code reads as a non-string is not
wrapped even with ``--unsafe-fixes`` (the reason names the caller), and an unsafe fix names the
direct callers and tests that read the raw return."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

TOOLS = '''\
from crewai.tools import BaseTool
from langchain_core.tools import StructuredTool


class EscalateTool(BaseTool):
    name: str = "Escalate"
    description: str = "Escalate a ticket."

    def _run(self, ticket: str) -> dict:
        return {"escalated": ticket, "note": "déjà vu"}

    async def _arun(self, ticket: str) -> dict:
        return self._run(ticket=ticket)


class SearchTool(BaseTool):
    name: str = "Search"
    description: str = "Search resources."

    def _run(self, query: str) -> list:
        return [{"title": query}]


def compute_sla(ticket: str) -> dict:
    """Hours left before the ticket breaches its SLA."""
    return {"ticket": ticket, "left": -2}


def priority(ticket: str) -> dict:
    """The ticket's priority."""
    return {"ticket": ticket, "priority": 1}


SLA = StructuredTool.from_function(func=compute_sla)
PRIORITY = StructuredTool.from_function(func=priority)
'''
SERVICE = """\
from app.tools import SearchTool, compute_sla


def add_resources(resources: list[dict]) -> int:
    return len(resources)


def overdue(ticket: str) -> bool:
    sla = compute_sla(ticket)
    return sla["left"] < 0


def gather(query: str) -> int:
    found = SearchTool()._run(query=query)
    return add_resources(found)
"""
TEST = """\
import pytest

from app.tools import EscalateTool, priority


@pytest.fixture
def escalate_tool():
    return EscalateTool()


def test_priority():
    assert priority("T-1")["priority"] == 1


def test_escalate():
    assert EscalateTool()._run(ticket="T-1")["escalated"] == "T-1"


def test_escalate_through_a_fixture(escalate_tool):
    assert escalate_tool.run(ticket="T-2")["escalated"] == "T-2"
"""
RUN = """\
import asyncio, json
from app.tools import EscalateTool
print(json.dumps([EscalateTool()._run(ticket="T-1"), asyncio.run(EscalateTool()._arun(ticket="T-2"))]))
"""


@pytest.mark.integration
def test_no_double_wrap_no_broken_caller_and_the_unsafe_reasons(tmp_path: Path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "app" / "service.py").write_text(SERVICE)
    (tmp_path / "tests" / "test_tools.py").write_text(TEST)
    monkeypatch.chdir(tmp_path)

    report = apply_fixes(["app/tools.py"], load_config(["."]), unsafe=True, use_cache=False)
    tools = (tmp_path / "app" / "tools.py").read_text(encoding="utf-8")
    reasons = {s.line: s.reason for s in report.skipped}  # lines of the fixed file: `import json` added
    assert 'return json.dumps({"escalated": ticket, "note": "déjà vu"}, ensure_ascii=False, default=str)' in tools
    assert "def _run(self, ticket: str) -> str:" in tools
    assert "        return self._run(ticket=ticket)\n" in tools  # _arun: not wrapped a second time
    assert not [f for f in report.remaining if f.line == 15]  # and, _run fixed, it returns JSON text
    assert 'return [{"title": query}]' in tools  # gather() hands it to add_resources(resources: list[dict])
    assert "app/service.py:14 passes it to `add_resources(resources: list[dict])`" in reasons[23]
    assert 'return {"ticket": ticket, "left": -2}' in tools  # overdue() compares sla["left"]
    assert "app/service.py:9 reads its key 'left'" in reasons[28]
    # priority is read raw by a test only: wrapped, and the fix says which test to review
    assert 'return json.dumps({"ticket": ticket, "priority": 1}' in tools
    (applied,) = [a for a in report.applied if a.line == 31]
    assert "tests read the raw return at tests/test_tools.py:12" in applied.unsafe_because
    assert "tests read the raw return at tests/test_tools.py:12" in applied.description
    (escalate,) = [a for a in report.applied if a.line == 10]
    assert "tests read the raw return at tests/test_tools.py:16,20" in escalate.unsafe_because  # 21: a fixture

    ran = subprocess.run([sys.executable, "-c", RUN], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    sync, async_ = json.loads(ran.stdout)
    assert json.loads(sync) == json.loads(async_.replace("T-2", "T-1")) == {"escalated": "T-1", "note": "déjà vu"}


def test_a_method_of_the_callers_class_that_takes_a_list(tmp_path: Path, monkeypatch):
    """sherpa's shape: an action keeps the tool in ``self._search_tool`` and hands what ``_run``
    returns to ``self.add_resources(resources: list[dict])``, defined on its base class."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "app" / "actions.py").write_text(
        "from app.tools import SearchTool\n\n\nclass BaseAction:\n"
        "    def add_resources(self, resources: list[dict]) -> None:\n        self.resources = resources\n\n\n"
        "class Search(BaseAction):\n    _search_tool: object = None  # a placeholder until __init__\n\n"
        "    def __init__(self) -> None:\n        self._search_tool = SearchTool()\n\n"
        "    def search(self, query: str) -> None:\n        resources = self._search_tool._run(query=query)\n"
        "        self.add_resources(resources)\n"
    )
    (tmp_path / "app" / "listing.py").write_text(
        "from pydantic import BaseModel, Field\n\nfrom app.tools import SearchTool\n\n\nclass Lister(BaseModel):\n"
        "    tool: SearchTool = Field(default_factory=SearchTool)\n\n"
        "    def titles(self, q: str) -> list:\n        return [r['title'] for r in self.tool._run(query=q)]\n"
    )
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["app/tools.py"], load_config(["."]), unsafe=True, use_cache=False, select=["DG103"])
    assert 'return [{"title": query}]' in (tmp_path / "app" / "tools.py").read_text(encoding="utf-8")
    (reason,) = [s.reason for s in report.skipped if "add_resources" in s.reason]
    assert "app/actions.py:16 passes it to `add_resources(resources: list[dict])`" in reason
    assert "app/listing.py:10 iterates over it" in reason  # the field's annotation says what pydantic builds


def test_a_function_that_imports_json_later_gets_no_wrap(tmp_path: Path, monkeypatch):
    """``json`` imported inside the function after the return is a local name there: a
    ``json.dumps(...)`` wrap would raise UnboundLocalError (ruff F823)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(
        "from langchain_core.tools import tool\n\n\n@tool\ndef search(q: str) -> str:\n"
        '    """Search."""\n    if not q:\n        return f"nothing for {q}"\n'
        "    import json\n\n    return json.dumps({'q': q})\n"
    )
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["."], load_config(["."]), unsafe=True, use_cache=False)
    assert report.applied == []
    assert "imports `json` itself after this return" in report.skipped[0].reason


def test_a_consumer_that_receives_the_tool_as_a_parameter_from_another_module(tmp_path: Path, monkeypatch):
    """issue 35: ``def best(tool, q): return tool.run(...)[0]["title"]``, filled with
    ``best(SearchTool(), q)`` in another module, reads the raw return: not wrapped, named."""
    files = {
        "pyproject.toml": '[project]\nname = "app"\n',
        "app/__init__.py": "",
        "app/tools.py": TOOLS,
        "app/ranking.py": "from app.tools import SearchTool\n\n\n"
        "def best(tool, q):\n    return tool.run(query=q)[0]['title']\n",
        "app/flow.py": "from app.ranking import best\nfrom app.tools import SearchTool\n\n\n"
        "def answer(q):\n    return best(SearchTool(), q)\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["app/tools.py"], load_config(["."]), unsafe=True, use_cache=False, select=["DG103"])
    assert 'return [{"title": query}]' in (tmp_path / "app" / "tools.py").read_text(encoding="utf-8")
    (reason,) = [s.reason for s in report.skipped if "ranking" in s.reason]
    assert "app/ranking.py:5" in reason


CONSUMERS = {
    # the tool reaches a method's parameter: from the method's own class, and from another module
    "method parameter": {
        "app/ranking.py": "from app.tools import SearchTool\n\n\nclass Ranker:\n"
        "    def best(self, tool, q):\n        return tool.run(query=q)[0]['title']\n\n"
        "    def answer(self, q):\n        return self.best(SearchTool(), q)\n",
    },
    "method parameter, called on an instance elsewhere": {
        "app/ranking.py": "from app.tools import SearchTool  # the module names the class (the search's filter)\n\n\n"
        "class Ranker:\n    def best(self, tool, q):\n        return tool.run(query=q)[0]['title']\n",
        "app/flow.py": "from app.ranking import Ranker\nfrom app.tools import SearchTool\n\n\n"
        "def answer(q):\n    return Ranker().best(SearchTool(), q)\n",
    },
    # the raw value kept in a list, then an element indexed
    "list": {
        "app/flow.py": "from app.tools import SearchTool\n\n\ndef titles(q):\n    found = []\n"
        "    found.append(SearchTool()._run(query=q))\n    return [r[0]['title'] for r in found]\n",
    },
    # kept in a dict, handed to a method that reads it as a dict
    "dict to a method": {
        "app/flow.py": "from app.tools import SearchTool\n\n\nclass Flow:\n    def render(self, results):\n"
        "        return results['search'][0]['title']\n\n    def answer(self, q):\n"
        "        results = {'search': SearchTool().run(query=q)}\n        return self.render(results)\n",
    },
    # handed to an unannotated parameter that is indexed
    "unannotated parameter": {
        "app/flow.py": "from app.tools import SearchTool\n\n\ndef first(value):\n    return value[0]\n\n\n"
        "def answer(q):\n    value = SearchTool().run(query=q)\n    return first(value)\n",
    },
}
CONSUMED_AT = {
    "method parameter": "app/ranking.py:6 indexes it",
    "method parameter, called on an instance elsewhere": "app/ranking.py:6 indexes it",
    "list": "app/flow.py:6 keeps it in `found`, then indexes it (each element)",
    "dict to a method": "app/flow.py:9 keeps it in `results` and passes it to `render(results)`, which "
    "keeps it in `results`, then indexes it",
    "unannotated parameter": "app/flow.py:9 passes it to `first(value)`, which indexes it",
}


@pytest.mark.parametrize("case", sorted(CONSUMERS))
def test_consumers_through_method_parameters_and_containers(case: str, tmp_path: Path, monkeypatch):
    """issue 35, item 2: the raw value read as a non-string through a method's parameter, a list or
    a dict, or a callee's unannotated parameter is not wrapped, and the reason names the consumer."""
    files = {"pyproject.toml": '[project]\nname = "app"\n', "app/__init__.py": "", "app/tools.py": TOOLS,
             **CONSUMERS[case]}  # fmt: skip
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["app/tools.py"], load_config(["."]), unsafe=True, use_cache=False, select=["DG103"])
    assert 'return [{"title": query}]' in (tmp_path / "app" / "tools.py").read_text(encoding="utf-8")
    (reason,) = [s.reason for s in report.skipped if "project code uses" in s.reason]
    assert CONSUMED_AT[case] in reason, reason
