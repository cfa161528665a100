"""DG101 fixes through the dispatcher shapes projects use: a method of a module-level instance
(``ROUTER.execute(name, args)``, its async twin for async calls) and a function taking the
project's own action model (``dispatch(ToolAction(name=..., args=...))``). A call is rewritten only
when its receiver is provably what the dispatcher serves under that name: a fallback table the
dispatcher does not look up, or an instance configured otherwise, get no fix and say why. The
fixed code runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.fix import apply_fixes
from dispatchguard.lint import load_config

TOOLS = """\
import json

from crewai.tools import BaseTool


class TicketLookupTool(BaseTool):
    name: str = "Ticket lookup"
    description: str = "Find a ticket."
    include_closed: bool = False

    def _run(self, ticket: str) -> str:
        return json.dumps({"ticket": ticket, "closed": self.include_closed})

    async def _arun(self, ticket: str) -> str:
        return self._run(ticket=ticket)


class EscalateTool(BaseTool):
    name: str = "Escalate"
    description: str = "Escalate a ticket."

    def _run(self, reason: str) -> str:
        return json.dumps({"escalated": reason})
"""
REGISTRY = """\
from app.tools import EscalateTool, TicketLookupTool

TOOLS = {"ticket_lookup": TicketLookupTool(), "escalate": EscalateTool()}
OFFLINE_TOOLS = {"ticket_lookup": TicketLookupTool()}
"""
ROUTER = """\
from app.registry import TOOLS


class Router:
    def __init__(self, tools):
        self.tools = tools

    def execute(self, name: str, args: dict) -> str:
        return self.tools[name].run(**args)

    async def aexecute(self, name: str, args: dict) -> str:
        return await self.tools[name].arun(**args)


ROUTER = Router(TOOLS)
"""
ACTION_DISPATCHER = """\
from pydantic import BaseModel

from app.registry import TOOLS


class ToolAction(BaseModel):
    name: str
    args: dict


def dispatch(action: ToolAction) -> str:
    tool = TOOLS.get(action.name)
    return tool.run(**action.args)
"""
AGENT = """\
from app.registry import OFFLINE_TOOLS, TOOLS
from app.tools import TicketLookupTool


def lookup(ticket: str) -> str:
    return TOOLS["ticket_lookup"].run(ticket=ticket)


async def alookup(ticket: str) -> str:
    return await TOOLS["ticket_lookup"].arun(ticket=ticket)


def offline(ticket: str) -> str:
    return OFFLINE_TOOLS["ticket_lookup"].run(ticket=ticket)


class Desk:
    def __init__(self) -> None:
        self.history = TicketLookupTool(include_closed=True)

    def past(self, ticket: str) -> str:
        return self.history.run(ticket=ticket)


def escalate(reason: str, tool: TicketLookupTool) -> str:
    return TOOLS["escalate"].run(reason=reason) + tool.run(ticket="T-1")
"""
RUN = """\
import asyncio, json
from app.agent import Desk, alookup, escalate, lookup, offline
print(json.dumps([lookup("T-1"), asyncio.run(alookup("T-2")), offline("T-3"), Desk().past("T-4")]))
"""


def make(tmp_path: Path, dispatchers: list[str], dispatcher_module: tuple[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "app"\n\n[tool.dispatchguard]\ndispatchers = {json.dumps(dispatchers)}\n'
    )
    app = tmp_path / "app"
    app.mkdir()
    for name, text in {"__init__": "", "tools": TOOLS, "registry": REGISTRY, "agent": AGENT}.items():
        (app / f"{name}.py").write_text(text)
    (app / f"{dispatcher_module[0]}.py").write_text(dispatcher_module[1])
    return tmp_path


def skipped(report) -> dict[int, str]:
    return {s.line: s.reason for s in report.skipped if s.code == "DG101"}


@pytest.mark.integration
def test_a_method_of_a_module_level_instance_and_its_async_twin(tmp_path: Path, monkeypatch):
    project = make(tmp_path, ["app.dispatch.Router.execute", "app.dispatch.Router.aexecute"], ("dispatch", ROUTER))
    monkeypatch.chdir(project)
    report = apply_fixes(["app/agent.py"], load_config(["."]), unsafe=True, use_cache=False)
    agent = (project / "app" / "agent.py").read_text()
    assert 'return ROUTER.execute("ticket_lookup", {"ticket": ticket})' in agent
    assert 'return await ROUTER.aexecute("ticket_lookup", {"ticket": ticket})' in agent
    assert 'ROUTER.execute("escalate", {"reason": reason})' in agent
    assert 'return OFFLINE_TOOLS["ticket_lookup"].run(ticket=ticket)' in agent  # not the dispatcher's table
    assert "return self.history.run(ticket=ticket)" in agent  # another instance than the registered one
    assert agent.startswith("from app.dispatch import ROUTER\nfrom app.registry import OFFLINE_TOOLS\n")
    reasons = skipped(report)  # lines of the fixed file: one import line more
    assert "`OFFLINE_TOOLS`, which the dispatcher `app.dispatch.ROUTER.execute` does not look up" in reasons[15]
    assert "`TicketLookupTool(include_closed=True)` is configured otherwise" in reasons[23]
    assert "its value is not built here" in reasons[27]  # a parameter annotated with the class

    ran = subprocess.run([sys.executable, "-c", RUN], cwd=project, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    first, second, third, fourth = (json.loads(r) for r in json.loads(ran.stdout))
    assert (first, second, third, fourth) == (
        {"ticket": "T-1", "closed": False},
        {"ticket": "T-2", "closed": False},
        {"ticket": "T-3", "closed": False},
        {"ticket": "T-4", "closed": True},  # the closed tickets did not vanish
    )


def test_a_function_taking_the_projects_action_model(tmp_path: Path, monkeypatch):
    project = make(tmp_path, ["app.dispatch.dispatch"], ("dispatch", ACTION_DISPATCHER))
    monkeypatch.chdir(project)
    report = apply_fixes(["app/agent.py"], load_config(["."]), unsafe=True, use_cache=False)
    agent = (project / "app" / "agent.py").read_text()
    assert 'return dispatch(ToolAction(name="ticket_lookup", args={"ticket": ticket}))' in agent
    assert "from app.dispatch import ToolAction, dispatch\n" in agent
    assert "the call is async and no configured dispatcher is (app.dispatch.dispatch)" in skipped(report)[11]


def test_the_message_names_the_projects_dispatcher(tmp_path: Path, monkeypatch):
    import dataclasses

    from dispatchguard.lint import check_source

    source = "from crewai.tools import BaseTool\n\n\ndef go(tool: BaseTool):\n    return tool.run(q=1)\n"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    monkeypatch.chdir(tmp_path)
    config = load_config(["."])
    (default,) = check_source(source, config)
    assert default.message.endswith("go through `dispatch_tool(ToolAction(...))`")
    own = dataclasses.replace(config, dispatchers=(*config.dispatchers, "app.dispatch.Router.execute"))
    (named,) = check_source(source, own)
    assert named.message.endswith("go through `app.dispatch.Router.execute(...)`")


CALL_SHAPES = {
    'TOOLS["escalate"].invoke({"reason": r})': 'ROUTER.execute("escalate", {"reason": r})',
    'TOOLS["escalate"].run({"reason": r})': 'ROUTER.execute("escalate", {"reason": r})',
    'TOOLS["escalate"].invoke(r)': "input is not a dict literal",
    'TOOLS["escalate"].invoke({"reason": r}, config=None)': "fixed only with a single dict literal argument",
    'TOOLS["escalate"].run(r)': "positional arguments cannot be mapped",
    'TOOLS["escalate"].run(**r)': "**kwargs cannot be mapped",
    'TOOLS["escalate"].run(*r)': "*args cannot be mapped",
    'TOOLS["escalate"].run(reason=r, callbacks=None)': "callbacks configure the call",
    "TOOLS[r].run(reason=r)": "the registry key is not a string literal",
    "EscalateTool().run(reason=r)": 'ROUTER.execute("escalate", {"reason": r})',
    'TOOLS["escalate"].func(reason=r)': 'ROUTER.execute("escalate", {"reason": r})',
    'TOOLS["escalate"].func(r)': "positional arguments cannot be mapped",
}


@pytest.mark.parametrize(("call", "expected"), list(CALL_SHAPES.items()), ids=list(CALL_SHAPES))
def test_call_shapes(call: str, expected: str, tmp_path: Path, monkeypatch):
    project = make(tmp_path, ["app.dispatch.Router.execute"], ("dispatch", ROUTER))
    (project / "app" / "agent.py").write_text(
        f"from app.registry import TOOLS\nfrom app.tools import EscalateTool\n\n\ndef go(r):\n    return {call}\n"
    )
    monkeypatch.chdir(project)
    report = apply_fixes(["app/agent.py"], load_config(["."]), unsafe=True, use_cache=False, select=["DG101"])
    if report.applied:
        assert expected in (project / "app" / "agent.py").read_text()
    else:
        assert expected in report.skipped[0].reason
