"""Registries keyed by each tool's own name (issue 35 follow-up): the fix and ``fix --verify`` know
the name a project's dispatcher serves a tool under when the registry is built from the tools
(``{t.name: t for t in tools}``, a loop filling ``TOOLS[t.name]``, a dispatcher comparing
``t.name == name``), from its ``name`` field, ``@tool("name")``, ``@tool`` or ``Tool(name=...)``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config
from dispatchguard.verify.discover import verify_targets
from dispatchguard.verify.fixing import dispatch_plans

CLASS_TOOL = '''\
from crewai.tools import BaseTool


class SlaReportTool(BaseTool):
    name: str = "sla_report"
    description: str = "The SLA report of a ticket."

    def _run(self, ticket: str) -> dict:
        return {"ticket": ticket}


class Unnamed(BaseTool):
    description: str = "No name of its own."

    def _run(self, q: str) -> dict:
        return {"q": q}
'''

#: tool module, router module, the tool's label as fix --verify names it
SHAPES = {
    "comprehension": (
        CLASS_TOOL,
        "from desk.tools import SlaReportTool\n\nTOOLS = {t.name: t for t in [SlaReportTool()]}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS[name].run(**args)\n",
        "desk.tools.SlaReportTool",
    ),
    "comprehension of a list in another module": (
        CLASS_TOOL + "\n\nALL_TOOLS = [SlaReportTool()]\n",
        "from desk import tools\n\nTOOLS = {tool.name: tool for tool in tools.ALL_TOOLS}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS.get(name).run(**args)\n",
        "desk.tools.SlaReportTool",
    ),
    "comprehension of a function's list": (
        CLASS_TOOL + '\n\ndef all_tools():\n    """Every tool."""\n    return [SlaReportTool()]\n',
        "from desk.tools import all_tools\n\nTOOLS = {t.name: t for t in all_tools()}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS[name].run(**args)\n",
        "desk.tools.SlaReportTool",
    ),
    "loop": (
        CLASS_TOOL,
        "from desk.tools import SlaReportTool\n\nALL = (SlaReportTool(),)\nTOOLS = {}\nfor tool in ALL:\n"
        "    TOOLS[tool.name] = tool\n\n\ndef run_tool(name, args):\n    return TOOLS[name].run(**args)\n",
        "desk.tools.SlaReportTool",
    ),
    "compare in a for loop": (
        CLASS_TOOL,
        "from desk.tools import SlaReportTool\n\nREPORTS = [SlaReportTool()]\nTOOLS = [*REPORTS]\n\n\n"
        "def run_tool(name, args):\n    for t in TOOLS:\n        if t.name == name:\n"
        "            return t.run(**args)\n    raise KeyError(name)\n",
        "desk.tools.SlaReportTool",
    ),
    "compare in next()": (
        CLASS_TOOL,
        "from desk.tools import SlaReportTool\n\nTOOLS = [SlaReportTool()]\n\n\n"
        "def run_tool(tool_name, arguments):\n    tool = next(t for t in TOOLS if tool_name == t.name)\n"
        "    return tool.run(**arguments)\n",
        "desk.tools.SlaReportTool",
    ),
    "comprehension in the dispatcher": (
        CLASS_TOOL,
        "from desk.tools import SlaReportTool\n\nTOOLS = [SlaReportTool()]\n\n\n"
        "def run_tool(name, args):\n    by_name = {t.name: t for t in TOOLS}\n    return by_name[name].run(**args)\n",
        "desk.tools.SlaReportTool",
    ),
    "inherited name field, method dispatcher": (
        CLASS_TOOL + "\n\nclass DetailedSla(SlaReportTool):\n    description: str = 'More.'\n",
        "from desk.tools import DetailedSla\n\n\nclass Router:\n    def __init__(self, tools):\n"
        "        self.tools = {t.name: t for t in tools}\n\n    def execute(self, name, args):\n"
        "        return self.tools[name].run(**args)\n\n\nTOOLS = [DetailedSla()]\n"
        "ROUTER = Router(TOOLS)\n",
        "desk.tools.DetailedSla",
    ),
    "@tool('name') function": (
        'from langchain_core.tools import tool\n\n\n@tool("sla_report")\ndef report(ticket: str) -> dict:\n'
        '    """The SLA report of a ticket."""\n    return {"ticket": ticket}\n',
        "from desk.tools import report\n\nTOOLS = {t.name: t for t in [report]}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS[name].invoke(args)\n",
        "desk.tools.report",
    ),
    "bare @tool function": (
        'from langchain_core.tools import tool\n\n\n@tool\ndef sla_report(ticket: str) -> dict:\n'
        '    """The SLA report of a ticket."""\n    return {"ticket": ticket}\n',
        "from desk.tools import sla_report\n\nTOOLS = {t.name: t for t in [sla_report]}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS[name].invoke(args)\n",
        "desk.tools.sla_report",
    ),
    "Tool(name=..., func=...)": (
        "from langchain_core.tools import StructuredTool\n\n\ndef _report(ticket: str) -> dict:\n"
        '    return {"ticket": ticket}\n\n\n'
        'report_tool = StructuredTool.from_function(func=_report, name="sla_report", description="SLA.")\n',
        "from desk.tools import report_tool\n\nTOOLS = {t.name: t for t in [report_tool]}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS[name].invoke(args)\n",
        "desk.tools.report_tool",
    ),
}


def _desk(root: Path, tools: str, router: str, entry: str = "desk.router.run_tool") -> None:
    files = {
        "pyproject.toml": f'[project]\nname = "desk"\n\n[tool.dispatchguard]\ndispatchers = ["{entry}"]\n',
        "desk/__init__.py": "",
        "desk/tools.py": tools,
        "desk/router.py": router,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _plans(root: Path) -> dict[str, tuple[str, str]]:
    config = load_config([root])
    plans = dispatch_plans(verify_targets([str(root / "desk" / "tools.py")], config), config)
    return {label: (plan["label"], plan["name"]) for label, plan in plans.items()}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_registry_keyed_by_the_tools_own_names_serves_the_tool_under_its_name(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fix --verify` calls the dispatcher for the tool, under the name the tool gives itself."""
    tools, router, label = SHAPES[shape]
    entry = "desk.router.Router.execute" if "Router" in router else "desk.router.run_tool"
    _desk(tmp_path, tools, router, entry)
    monkeypatch.chdir(tmp_path)
    dispatcher = "desk.router.ROUTER.execute" if "Router" in router else "desk.router.run_tool"
    assert _plans(tmp_path) == {label: (dispatcher, "sla_report")}


NOT_SERVED = {
    "keyed by something else": "TOOLS = {type(t).__name__: t for t in [SlaReportTool()]}",
    "filtered comprehension": "TOOLS = {t.name: t for t in [SlaReportTool()] if t.description}",
    "the list is not the dispatcher's": "TOOLS = {t.name: t for t in []}\nOTHER = [SlaReportTool()]",
    "a name the fix cannot read": "TOOLS = {t.name: t for t in [SlaReportTool(name=NAME)]}",
    "a function that does more than return a list": (
        "def make():\n    if NAME:\n        return []\n    return [SlaReportTool()]\n\n\n"
        "TOOLS = {t.name: t for t in make()}"
    ),
}


@pytest.mark.parametrize("case", list(NOT_SERVED))
def test_no_name_is_invented(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry not keyed by `.name` of what it holds, a list the dispatcher does not read, a
    `name=` that is not a literal (the class's field then does not say it), a list a function
    builds under a condition: no plan."""
    router = (
        f"from desk.tools import SlaReportTool\n\nNAME = 'x'\n{NOT_SERVED[case]}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS[name].run(**args)\n"
    )
    _desk(tmp_path, CLASS_TOOL, router)
    monkeypatch.chdir(tmp_path)
    assert _plans(tmp_path) == {}


def test_a_tool_class_without_a_name_field_is_not_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    router = (
        "from desk.tools import Unnamed\n\nTOOLS = {t.name: t for t in [Unnamed()]}\n\n\n"
        "def run_tool(name, args):\n    return TOOLS[name].run(**args)\n"
    )
    _desk(tmp_path, CLASS_TOOL, router)
    monkeypatch.chdir(tmp_path)
    assert _plans(tmp_path) == {}


def test_a_direct_call_goes_through_the_dispatcher_under_the_tools_own_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DG101: the registry is `{t.name: t for t in [SlaReportTool()]}`, so `SlaReportTool().run(...)`
    becomes `run_tool("sla_report", {...})`."""
    tools, router, _ = SHAPES["comprehension"]
    _desk(tmp_path, tools, router)
    (tmp_path / "desk" / "flow.py").write_text(
        "from desk.tools import SlaReportTool\n\n\ndef flow(t):\n    return SlaReportTool().run(ticket=t)\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    report = apply_fixes(["desk/flow.py"], load_config(["."]), unsafe=True, use_cache=False, select=["DG101"])
    assert [a.code for a in report.applied] == ["DG101"], report.skipped
    assert 'return run_tool("sla_report", {"ticket": t})' in (tmp_path / "desk" / "flow.py").read_text()


@pytest.mark.integration
def test_a_tool_function_called_directly_goes_through_the_dispatcher_under_its_decorator_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DG101: `@tool("sla_report") def report(...)` held by `for t in TOOLS: if t.name == name`, so
    `report.invoke({...})` becomes `run_tool("sla_report", {...})`; the flow, run with LangChain
    before and after, answers the same."""
    tools = SHAPES["@tool('name') function"][0]
    router = (
        "from desk.tools import report\n\nTOOLS = [report]\n\n\ndef run_tool(name, args):\n"
        "    for t in TOOLS:\n        if t.name == name:\n            return t.invoke(args)\n    raise KeyError(name)\n"
    )
    _desk(tmp_path, tools, router)
    (tmp_path / "desk" / "flow.py").write_text(
        'from desk.tools import report\n\n\ndef flow(t):\n    return report.invoke({"ticket": t})\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    before = _run_flow(tmp_path)
    report = apply_fixes(["desk/flow.py"], load_config(["."]), unsafe=True, use_cache=False, select=["DG101"])
    assert [a.code for a in report.applied] == ["DG101"], report.skipped
    assert 'return run_tool("sla_report", {"ticket": t})' in (tmp_path / "desk" / "flow.py").read_text()
    assert before == _run_flow(tmp_path) == "{'ticket': 'T-1'}\n"


def _run_flow(root: Path) -> str:
    code = "from desk.flow import flow; print(flow('T-1'))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
