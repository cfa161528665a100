"""Declared return types outside the project (issue 20): the standard library from typeshed, the
environment's packages from their stubs and sources, through typeshed_client; never imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig
from dispatchguard.lint.source import check_source

TOOL = """\
import subprocess
import time
from datetime import datetime

from crewai.tools import BaseTool


class Clock(BaseTool):
    def _run(self, q: str):
        if q == "now":
            return time.time()
        if q == "run":
            return subprocess.run(["date"], capture_output=True)
        if q == "date":
            return datetime.now()
        if q == "text":
            return datetime.now().strftime(q)
        return input()
"""


def found(source: str, config: LintConfig | None = None, path: str = "app/tools/clock.py") -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check_source(source, config, path=path) if f.code == "DG103"]


def test_the_standard_library_declares_what_it_returns() -> None:
    messages = dict(found(TOOL))
    assert messages[11].startswith("`Clock._run` returns a number (from `time`)")
    assert messages[13].startswith("`Clock._run` returns an instance of `CompletedProcess` (from `run`)")
    assert messages[15].startswith("`Clock._run` returns an instance of `datetime` (from `now`)")
    assert set(messages) == {11, 13, 15}  # text of unknown content (strftime of a caller's format, input) stays unknown


def test_a_bound_method_of_a_module_level_instance_declares_what_its_class_does() -> None:
    # typeshed: `randint = _inst.randint` with `_inst: Random`; `choice` returns a type variable
    source = (
        "import random\n\nfrom crewai.tools import BaseTool\n\n\nclass Dice(BaseTool):\n"
        "    def _run(self, q: str):\n        if q == 'roll':\n            return random.randint(1, 6)\n"
        "        return random.choice(['a', 'b'])\n"
    )
    assert [(line, message.split(",")[0]) for line, message in found(source)] == [
        (9, "`Dice._run` returns a number (from `randint`)")
    ]


CHAT = """\
from crewai.tools import BaseTool
from langchain_core.language_models.fake_chat_models import FakeListChatModel

MODEL = FakeListChatModel(responses=["hi"])


class Ask(BaseTool):
    llm: FakeListChatModel

    def _run(self, q: str):
        if q:
            return self.llm.invoke(q)
        if q is None:
            return MODEL.invoke(q)
        local = FakeListChatModel(responses=[q])
        return local.invoke(q).content
"""


def test_an_installed_library_declares_what_its_methods_return() -> None:
    """``invoke`` is declared by a base class of the model (langchain-core's BaseChatModel)."""
    config = LintConfig(python=sys.executable)
    messages = dict(found(CHAT, config))
    assert messages[12].startswith("`Ask._run` returns an instance of `AIMessage` (from `FakeListChatModel.invoke`)")
    assert messages[14].startswith("`Ask._run` returns an instance of `AIMessage` (from `FakeListChatModel.invoke`)")
    # `.content` of a model's reply: a class deriving from BaseChatModel (invoke declared to answer
    # a message) is a chat model, and what it wrote is prose
    assert messages[16].startswith("`Ask._run` returns the chat model's reply (prose the model wrote)")
    assert set(messages) == {12, 14, 16}


def test_without_an_environment_a_library_says_nothing() -> None:
    assert found(CHAT, LintConfig(python=False)) == []


def test_a_project_module_is_never_read_as_a_library() -> None:
    """A project module named like a standard one (``time.py`` at the root) is the project's."""
    assert 11 in dict(found(TOOL))
    extra = {"time.py": "def time():\n    return '{}'\n"}
    with_project = check_source(TOOL, None, path="app/tools/clock.py", extra=extra)
    assert 11 not in {f.line for f in with_project if f.code == "DG103"}


SDK = """\
from crewai.tools import BaseTool
from tavily import TavilyClient


class Search(BaseTool):
    def _run(self, q: str):
        return TavilyClient(api_key="k").search(q)
"""


def test_an_sdk_the_environment_lacks_is_answered_by_the_bundled_table(tmp_path: Path) -> None:
    assert [m.split(",")[0] for _, m in found(SDK, LintConfig(python=False))] == [
        "`Search._run` returns a dict (from `TavilyClient.search`)"
    ]


@pytest.mark.integration
def test_an_installed_sdk_wins_over_the_bundled_table(tmp_path: Path) -> None:
    # a release whose search is declared to return text: the environment's sources decide
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3.*/site-packages"))
    (site / "tavily").mkdir()
    (site / "tavily" / "__init__.py").write_text(
        "class TavilyClient:\n    def __init__(self, api_key: str) -> None: ...\n"
        "    def search(self, query: str) -> str: ...\n"
    )
    assert found(SDK, LintConfig(python=str(venv))) == []
