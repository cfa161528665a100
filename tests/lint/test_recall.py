"""Recall on real project shapes: the bundled library table, import roots, tool-making modules,
DG103/DG104 inference that needs a configuration or more than one module."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths
from dispatchguard.lint.library import NOT_A_TOOL, TOOL_CLASS, TOOL_DECORATOR, library_kind, library_versions
from dispatchguard.lint.source import check_source

from ..conftest import about

REPO = Path(__file__).resolve().parents[2]


def _codes(source: str, config: LintConfig | None = None, **kwargs: object) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in about(check_source(source, config, **kwargs)) if not f.suppressed]  # type: ignore[arg-type]


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _project_findings(root: Path, files: dict[str, str], target: str) -> list[tuple[int, int, str]]:
    """Write a project of ``files`` (empty text: an ``__init__.py``) and check ``target`` in it:
    ``(line, col, code)`` of each finding."""
    for rel, text in files.items():
        _write(root, rel, text)
    report = check_paths([root / target], LintConfig(root=root), use_cache=False)
    return [(f.line, f.col, f.code) for f in about(report.findings)]


# ------------------------------------------------------------------ the bundled table


def test_table_records_versions_and_kinds() -> None:
    versions = library_versions()
    assert {"crewai", "crewai-tools", "langchain", "langchain-core", "langchain-community"} <= set(versions)
    assert library_kind("crewai_tools.SerperDevTool") == TOOL_CLASS
    assert library_kind("crewai_tools.RagTool") == TOOL_CLASS
    assert library_kind("crewai_tools.MCPServerAdapter") == NOT_A_TOOL
    assert library_kind("langchain.tools.base.BaseTool") == TOOL_CLASS
    assert library_kind("langchain.agents.tools.InvalidTool") == TOOL_CLASS
    assert library_kind("langchain.tools.DuckDuckGoSearchRun") == TOOL_CLASS  # legacy lazy export
    assert library_kind("langchain_core.tools.tool") == TOOL_DECORATOR
    assert library_kind("requests.Session") is None


def test_table_is_valid_json_with_sorted_names() -> None:
    data = json.loads((REPO / "src/dispatchguard/lint/library/tools.json").read_text())
    assert data["generated_by"] == "scripts/build_library_table.py"
    for section in ("tool_classes", "tool_decorators", "not_tools"):
        assert all(names == sorted(names) for names in data[section].values())


def test_library_tool_classes_and_non_tools() -> None:
    source = (
        "from crewai_tools import MCPServerAdapter, SerperDevTool\n"
        "from langchain.tools import DuckDuckGoSearchRun, ToolException\n"
        "adapter = MCPServerAdapter({})\n"
        "search = SerperDevTool()\n"
        "ddg = DuckDuckGoSearchRun()\n"
        "raise ToolException('x')\n"
    )
    assert _codes(source, path="app.py") == [(4, "DG102"), (5, "DG102")]


def test_subclass_of_a_library_intermediate_is_a_tool() -> None:
    source = (
        "from crewai_tools import RagTool\n"
        "from langchain.tools.base import BaseTool\n"
        "class Filings(RagTool):\n    pass\n"
        "class Legacy(BaseTool):\n    def _run(self, q):\n        return 'Found: ' + q\n"
        "Filings().run('10-K')\n"
    )
    assert _codes(source, path="app.py") == [(7, "DG103"), (8, "DG101")]


# ------------------------------------------------------------------ import roots and tool modules


def test_script_folder_imports_resolve(tmp_path: Path) -> None:
    tool = (
        "from crewai.tools import BaseTool\n\nclass Calculator(BaseTool):\n    def _run(self, x):\n        return x\n"
    )
    _write(tmp_path, "src/app/tools/calculator.py", tool)
    _write(tmp_path, "src/app/__init__.py", "")
    _write(tmp_path, "src/app/main.py", "print('run me')\n")
    _write(tmp_path, "src/app/crew.py", "from tools.calculator import Calculator\n\nCalculator()\n")
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    assert [(Path(f.path).name, f.line, f.code) for f in about(report.findings)] == [("crew.py", 3, "DG102")]


def test_a_relative_import_from_a_namespace_folder_inside_a_package_resolves(tmp_path: Path) -> None:
    # reporting/ has no __init__.py, its parents do: at run time it is a namespace package of
    # src.main.phases, and .tools.reporting_tools is src.main.phases.reporting.tools.reporting_tools
    for package in ("src", "src/main", "src/main/phases"):
        _write(tmp_path, f"{package}/__init__.py", "")
    tool = "from langchain_core.tools import BaseTool\n\nclass WriteReport(BaseTool):\n    pass\n"
    _write(tmp_path, "src/main/phases/reporting/tools/reporting_tools.py", tool)
    _write(
        tmp_path,
        "src/main/phases/reporting/reporter.py",
        "from .tools.reporting_tools import WriteReport\n\nclass Reporter:\n"
        "    def __init__(self):\n        self.tools = [WriteReport()]\n",
    )
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    found = [(Path(f.path).name, f.line, f.col, f.code) for f in about(report.findings)]
    assert found == [("reporter.py", 5, 23, "DG102")]


def test_an_absolute_import_of_a_package_beside_the_module_resolves(tmp_path: Path) -> None:
    # crew.py runs with its own folder on sys.path (a server started there): tools.custom_tool is
    # src/app/tools/custom_tool.py; tasks/export.py reaches src/app/tools from one folder down
    for package in ("src/app", "src/app/tools", "src/app/tasks"):
        _write(tmp_path, f"{package}/__init__.py", "")
    tool = "from crewai.tools import BaseTool\n\nclass CalendarTool(BaseTool):\n    pass\n"
    _write(tmp_path, "src/app/tools/custom_tool.py", tool)
    build = "from tools.custom_tool import CalendarTool\n\ndef build():\n    return CalendarTool()\n"
    _write(tmp_path, "src/app/crew.py", build)
    _write(tmp_path, "src/app/tasks/export.py", build)
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    found = sorted(
        (f.path.replace("\\", "/").rpartition("src/")[2], f.line, f.col, f.code) for f in about(report.findings)
    )
    assert found == [("app/crew.py", 4, 12, "DG102"), ("app/tasks/export.py", 4, 12, "DG102")]


SEARCH_TOOL = "from crewai.tools import BaseTool\n\nclass SearchTool(BaseTool):\n    pass\n"


def test_a_name_a_star_import_brings_is_resolved_at_module_level_and_in_functions(tmp_path: Path) -> None:
    # agents.py: `from tools.search import *` then `SearchTool()` at module level and in a function
    agents = "from tools.search import *\n\nsearch = SearchTool()\n\n\ndef build():\n"
    agents += "    return SearchTool(), LIMIT, print\n"
    files = {"tools/__init__.py": "", "tools/search.py": SEARCH_TOOL + "\nLIMIT = 3\n", "agents.py": agents}
    assert _project_findings(tmp_path, files, "agents.py") == [(3, 10, "DG102"), (7, 12, "DG102")]


def test_an_import_of_a_package_two_applications_share_a_name_for_is_each_ones_own(tmp_path: Path) -> None:
    # a monorepo: rag-backend/app/ (with __init__.py, so `app` names it) and agent/app/ (a
    # namespace folder run from agent/): agent/app/main.py's `app.tools.search` is agent's own
    files = {
        "rag-backend/app/__init__.py": "",
        "rag-backend/app/tools/__init__.py": "",
        "rag-backend/app/tools/search.py": "class SearchTool:\n    pass\n",
        "agent/app/tools/search.py": SEARCH_TOOL,
        "agent/app/main.py": "from app.tools.search import SearchTool\n\ntools = [SearchTool()]\n",
    }
    assert _project_findings(tmp_path, files, "agent/app/main.py") == [(3, 10, "DG102")]


def test_a_tool_answers_what_a_tool_function_of_another_module_it_runs_returns(tmp_path: Path) -> None:
    _write(tmp_path, "tools/__init__.py", "")
    search = (
        "from langchain_core.tools import tool\n\n@tool\ndef web_search(query: str) -> str:\n"
        '    """Search."""\n    return f"Results: {query}"\n'
    )
    _write(tmp_path, "tools/web.py", search)
    smart = (
        "from langchain_core.tools import tool\nfrom tools.web import web_search\n\n@tool\n"
        'def smart(query: str) -> str:\n    """Smart."""\n    return web_search.invoke(query)\n'
    )
    _write(tmp_path, "tools/smart.py", smart)
    report = check_paths([tmp_path / "tools/smart.py"], LintConfig(root=tmp_path), use_cache=False)
    assert [(f.line, f.code, f.message.split(",")[0]) for f in about(report.findings) if f.code == "DG104"] == [
        (7, "DG104", "tool function `smart` returns an f-string (from `web_search`)")
    ]


def test_examples_that_share_a_package_name_each_resolve_their_own(tmp_path: Path) -> None:
    # examples/chatbot/my_agent and examples/coder/my_agent: both are `my_agent` when run from their
    # folder; the coder's tool class and its nodes module's import are the coder's own
    for example in ("chatbot", "coder"):
        for package in ("my_agent", "my_agent/utils"):
            _write(tmp_path, f"examples/{example}/{package}/__init__.py", "")
    _write(tmp_path, "examples/chatbot/my_agent/utils/tools.py", "def search(q):\n    return q\n")
    tool = (
        "from langchain_core.tools import BaseTool\n\nclass CodeInterpreter(BaseTool):\n"
        "    def _run(self, code):\n        return {'result': code}\n"
    )
    _write(tmp_path, "examples/coder/my_agent/utils/tools.py", tool)
    nodes = "from my_agent.utils.tools import CodeInterpreter\n\ntools_list = [CodeInterpreter()]\n"
    _write(tmp_path, "examples/coder/my_agent/utils/nodes.py", nodes)
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    found = sorted(
        (f.path.replace("\\", "/").rpartition("my_agent/")[2], f.line, f.code) for f in about(report.findings)
    )
    assert found == [("utils/nodes.py", 3, "DG102"), ("utils/tools.py", 5, "DG103")]


def test_a_plain_import_or_an_unbound_name_is_not_taken_for_a_package_beside(tmp_path: Path) -> None:
    # a library's own requests/ package does not make `import requests` in agents/run.py that
    # package (Python 3 imports are absolute), nor `from requests.session import Session` (that
    # module binds no Session)
    for package in ("pkg", "pkg/agents"):
        _write(tmp_path, f"{package}/__init__.py", "")
    tools = "from crewai.tools import BaseTool\n\nclass Session(BaseTool):\n    pass\n\nclass Get(Session):\n    pass\n"
    _write(tmp_path, "pkg/requests/__init__.py", tools)
    _write(tmp_path, "pkg/requests/session.py", "")
    _write(
        tmp_path,
        "pkg/agents/run.py",
        "import requests\nfrom requests.session import Session\n\n"
        "def fetch(url):\n    return requests.Get(url), Session()\n",
    )
    report = check_paths([tmp_path / "pkg/agents"], LintConfig(root=tmp_path), use_cache=False)
    assert about(report.findings) == []


def test_a_tool_answers_what_the_run_method_of_a_project_class_it_holds_returns(tmp_path: Path) -> None:
    # another module's tool class held in an attribute, and an API wrapper declared as a field
    # (LangChain's `api_wrapper: ArxivAPIWrapper`): their run methods' returns are the tool's
    _write(tmp_path, "app/__init__.py", "")
    _write(
        tmp_path,
        "app/wrappers.py",
        "import json\n\nclass SearchWrapper:\n    def run(self, q):\n        return f'Found: {q}'\n\n"
        "class JsonWrapper:\n    def run(self, q):\n        return json.dumps({'q': q})\n",
    )
    _write(
        tmp_path,
        "app/oauth_tools.py",
        "from crewai.tools import BaseTool\n\nclass OAuthDraft(BaseTool):\n"
        "    def _run(self, to):\n        return f'Saved draft to {to}'\n",
    )
    _write(
        tmp_path,
        "app/tools.py",
        "from crewai.tools import BaseTool\nfrom .oauth_tools import OAuthDraft\n"
        "from .wrappers import JsonWrapper, SearchWrapper\n\n"
        "class Draft(BaseTool):\n    def __init__(self):\n        super().__init__()\n"
        "        self._oauth = OAuthDraft()\n\n    def _run(self, to):\n        return self._oauth._run(to)\n\n"
        "class Search(BaseTool):\n    api_wrapper: SearchWrapper\n\n    def _run(self, q):\n"
        "        return self.api_wrapper.run(q)\n\n"
        "class Dumped(BaseTool):\n    api_wrapper: JsonWrapper\n\n    def _run(self, q):\n"
        "        return self.api_wrapper.run(q)\n",
    )
    report = check_paths([tmp_path / "app/tools.py"], LintConfig(root=tmp_path), use_cache=False)
    assert [(f.line, f.code, f.message.split(",")[0]) for f in about(report.findings) if f.code == "DG103"] == [
        (11, "DG103", "`Draft._run` returns an f-string"),
        (17, "DG103", "`Search._run` returns an f-string"),
    ]


@pytest.mark.parametrize(
    "module", ["my_tools.py", "app/load_tools.py", "gmail/toolkit.py", "agent_toolkits/x.py", "agent/tool_executor.py"]
)
def test_tool_making_modules_are_tool_modules_by_default(module: str) -> None:
    # a function whose name says it builds the tools (get_tools) is a factory anywhere: this one does not
    source = "from crewai_tools import SerperDevTool\n\ndef build_agent():\n    return [SerperDevTool()]\n"
    assert _codes(source, path=module) == []
    assert _codes(source, path="crew.py") == [(4, "DG102")]


def test_a_partner_packages_tools_are_known_without_configuration() -> None:
    """langchain-tavily's TavilySearch (the successor of langchain-community's TavilySearchResults)
    is a tool class by the bundled table: built in a graph node and run there, with no setting."""
    source = (
        "from langchain_tavily import TavilySearch\n\n"
        "web_search_tool = TavilySearch(max_results=3)\n\n"
        "def web_search(state):\n"
        "    return {'results': web_search_tool.invoke({'query': state['question']})}\n"
    )
    assert _codes(source, path="graph/nodes/web_search.py") == [(3, "DG102"), (6, "DG101")]


# ------------------------------------------------------------------ DG103 / DG104 inference


TAVILY_TOOL = (
    "from langchain_core.tools import tool\n"
    "from langchain_tavily import TavilySearch\n\n"
    "@tool\n"
    "def search(query: str) -> str:\n"
    "    '''Search.'''\n"
    "    return TavilySearch(max_results=3).invoke(query)\n"
)


@pytest.mark.parametrize(
    "python", [False, sys.prefix], ids=["the bundled table", "the environment's sources (the real langchain-tavily)"]
)
def test_what_a_library_tool_answers_comes_from_its_declared_run(tmp_path: Path, python: object) -> None:
    """TavilySearch._run declares Dict[str, Any]: with no environment the table recorded it from the
    sdist, with the test session's environment its installed source says it."""
    config = dataclasses.replace(LintConfig(root=tmp_path), python=python)
    found = [f for f in about(check_source(TAVILY_TOOL, config, path="tools/search.py")) if f.code == "DG104"]
    assert [(f.line, f.message.split(",")[0]) for f in found] == [
        (7, "tool function `search` returns a dict (what `TavilySearch` answers)")
    ]


def test_an_awaited_agent_run_answers_prose() -> None:
    source = (
        "from langchain.agents import AgentExecutor\n"
        "from langchain_core.tools import tool\n\n"
        "@tool\n"
        "async def ask(question: str) -> str:\n"
        "    '''Ask the agent.'''\n"
        "    executor = AgentExecutor(agent=make_agent(), tools=[])\n"
        "    reply = await executor.ainvoke({'input': question})\n"
        "    return reply['output']\n"
    )
    assert _codes(source) == [(9, "DG104")]
    # the same key of a value nobody made an agent executor says nothing
    assert _codes(source.replace("AgentExecutor(agent=make_agent(), tools=[])", "make_chain()")) == []


def test_strict_mode_a_helper_that_only_raises_never_returns() -> None:
    source = (
        "import json\nfrom crewai.tools import BaseTool\n\n"
        "class T(BaseTool):\n"
        "    def _run(self, q):\n"
        "        if not q:\n            return self._fail(q)\n"
        "        return json.dumps(q)\n\n"
        "    def _fail(self, q):\n        raise ValueError(q)\n"
    )
    assert _codes(source, LintConfig(strict=True)) == []


def test_content_and_artifact_judges_the_content_only() -> None:
    source = (
        "import json\nfrom langchain_core.tools import tool\n\n"
        "@tool(response_format='content_and_artifact')\n"
        "def fetch(url: str):\n"
        "    '''Fetch.'''\n"
        "    page = download(url)\n"
        "    if page is None:\n        return 'Not found', None\n"
        "    return json.dumps({'title': page.title}), {'raw': page}\n"
    )
    assert _codes(source) == [(9, "DG104")]


def test_dg104_skips_tests_and_plain_functions() -> None:
    source = (
        "from langchain_core.tools import tool\n\n"
        "@tool\ndef add(a: int, b: int) -> int:\n    '''Add.'''\n    return a + b + 0.5\n"
    )
    assert _codes(source, path="tests/test_agent.py") == []
    assert _codes(source, path="agent.py") == [(6, "DG104")]  # a + b is unknown, but `-> int` declares a number
    undeclared = source.replace(") -> int:", "):")
    assert _codes(undeclared, path="agent.py") == []  # a + b: numbers or text, unknown
    assert _codes(undeclared.replace("a + b + 0.5", "a / b"), path="agent.py") == [(6, "DG104")]


def test_from_function_and_tool_class_func_targets() -> None:
    source = (
        "from langchain_core.tools import StructuredTool, Tool\n\n"
        "def search(q):\n    return f'Results for {q}'\n\n"
        "async def asearch(q):\n    return {'q': q}\n\n"
        "def unused(q):\n    return f'not a tool {q}'\n\n"
        "t1 = StructuredTool.from_function(search)\n"
        "t2 = Tool(name='s', func=search, coroutine=asearch, description='d')\n"
    )
    found = _codes(source, path="tools.py")
    assert found == [(4, "DG104"), (7, "DG104")]


def test_decorator_with_options_is_no_tool() -> None:
    source = (
        "from langchain_core.tools import tool\n\n"
        "partial_ = tool(parse_docstring=True)\n\n"
        "def f(x: str) -> str:\n    '''F.'''\n    return x\n\n"
        "wrapped = partial_(f)\n"
    )
    assert _codes(source, path="agent.py") == []


# ------------------------------------------------------------------ factories of the project

_LOGGING_FACTORY = (
    "from typing import Type, TypeVar\n\nT = TypeVar('T')\n\n\n"
    "def create_logged_tool(base_tool_class: Type[T]) -> Type[T]:\n"
    "    class LoggedTool(LoggedMixin, base_tool_class):\n        pass\n\n"
    "    return LoggedTool\n"
)
_BODY_FACTORY = (  # no annotations: the class defined on the parameter and returned says it
    "def with_logging(base):\n    class Logged(base):\n        pass\n\n    return Logged\n"
)


@pytest.mark.parametrize("factory", [_LOGGING_FACTORY, _BODY_FACTORY], ids=["annotations", "body"])
def test_a_class_made_by_a_project_factory_from_a_tool_class_is_a_tool_class(tmp_path: Path, factory: str) -> None:
    name = "create_logged_tool" if "create_logged_tool" in factory else "with_logging"
    _write(tmp_path, "app/decorators.py", factory)
    _write(
        tmp_path,
        "app/tools/search.py",
        "from langchain_community.tools.tavily_search import TavilySearchResults\n"
        f"from app.decorators import {name}\n\n"
        f"LoggedTavilySearch = {name}(TavilySearchResults)\n"
        "tavily_tool = LoggedTavilySearch(max_results=3)\n",
    )
    _write(
        tmp_path,
        "app/nodes.py",
        "from app.tools.search import LoggedTavilySearch, tavily_tool\n\n\n"
        "def planner(state):\n"
        "    found = tavily_tool.invoke({'query': state['q']})\n"
        "    more = LoggedTavilySearch(max_results=1).invoke(state['q'])\n"
        "    return found, more\n",
    )
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    got = [(Path(f.path).name, f.line, f.col, f.code) for f in about(report.findings)]
    assert got == [("nodes.py", 5, 13, "DG101"), ("nodes.py", 6, 12, "DG101"), ("nodes.py", 6, 12, "DG102")]


def test_a_factory_of_a_plain_class_or_of_a_declared_base_makes_no_tool_class(tmp_path: Path) -> None:
    _write(tmp_path, "app/decorators.py", _BODY_FACTORY)
    _write(
        tmp_path,
        "app/models.py",
        "from pydantic import BaseModel\nfrom langchain_core.tools import BaseTool\n\n\n"
        "def schema_of(tool_class: type[BaseTool]) -> type[BaseTool]:\n    return tool_class.args_schema\n\n\n"
        "class Row(BaseModel):\n    x: int\n",
    )
    _write(
        tmp_path,
        "app/nodes.py",
        "from langchain_community.tools import DuckDuckGoSearchRun\n"
        "from app.decorators import with_logging\nfrom app.models import Row, schema_of\n\n"
        "LoggedRow = with_logging(Row)\nSchema = schema_of(DuckDuckGoSearchRun)\n\n\n"
        "def node(state):\n    return LoggedRow(x=1).invoke(state), Schema(query='x').run(1)\n",
    )
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    assert about(report.findings) == []


def test_a_tool_returned_by_a_project_factory_and_run_is_a_direct_call(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "app/tools/search.py",
        "from langchain_community.tools import DuckDuckGoSearchRun\n"
        "from langchain_community.tools.tavily_search import TavilySearchResults\n\n\n"
        "def get_web_search_tool(max_results: int):\n"
        "    if max_results > 5:\n        return TavilySearchResults(max_results=max_results)\n"
        "    tool = DuckDuckGoSearchRun()\n    return tool\n\n\n"
        "def get_tool(name):\n    return TOOLS[name]\n\n\n"
        "TOOLS = {'ddg': DuckDuckGoSearchRun()}\n",
    )
    _write(
        tmp_path,
        "app/nodes.py",
        "from app.tools.search import get_tool, get_web_search_tool\n\n\n"
        "def research(state):\n"
        "    found = get_web_search_tool(3).invoke(state['q'])\n"
        "    search = get_web_search_tool(9)\n"
        "    return found, search.run(state['q']), get_tool(state['tool']).invoke(state['q'])\n",
    )
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    # a lookup by a name known at run time is no factory: the caller routes the model's choice
    assert [(Path(f.path).name, f.line, f.code) for f in about(report.findings)] == [
        ("nodes.py", 5, "DG101"),
        ("nodes.py", 7, "DG101"),
    ]


def test_a_project_decorator_factory_wrapping_tool_makes_tools_reexported_by_a_star_import(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "app/tools/registry.py",
        "from langchain_core.tools import tool as base_tool\n\n\n"
        "def tagged_tool(*tags):\n"
        "    def tool_decorator(fn):\n        wrapped = base_tool(fn)\n        wrapped.tags = list(tags)\n"
        "        return wrapped\n\n    return tool_decorator\n\n\n"
        "def as_tool(fn):\n    return base_tool(fn)\n",
    )
    _write(
        tmp_path,
        "app/tools/orders.py",
        "from .registry import as_tool, tagged_tool\n\n\n"
        "@tagged_tool('orders')\ndef order_status(order_id: str) -> str:\n"
        "    return f'status: {order_id} shipped'\n\n\n"
        "@as_tool\ndef refund(order_id: str) -> dict:\n    return {'order': order_id}\n",
    )
    _write(tmp_path, "app/tools/__init__.py", "from .orders import *\nfrom . import registry\n")
    _write(
        tmp_path,
        "app/graph.py",
        "import app.tools as tools\n\n\ndef node(state):\n    return tools.order_status.invoke(state['id'])\n",
    )
    report = check_paths([tmp_path], LintConfig(root=tmp_path), use_cache=False)
    got = [(Path(f.path).name, f.line, f.code) for f in about(report.findings)]
    assert got == [("graph.py", 5, "DG101"), ("orders.py", 6, "DG104"), ("orders.py", 11, "DG104")]


def test_tools_a_library_declares_it_returns_are_tools() -> None:
    """The table records the library functions and methods whose return annotation is a container
    of tools (``load_tools -> list[BaseTool]``, a toolkit's ``get_tools``, an MCP client's)."""
    source = (
        "from langchain.agents import load_tools\n"
        "from langchain_community.agent_toolkits import SQLDatabaseToolkit\n"
        "from langchain_mcp_adapters.client import MultiServerMCPClient\n\n\n"
        "def search(q):\n    return load_tools(['serpapi'])[0].run(q)\n\n\n"
        "def query(db, llm, q):\n    kit = SQLDatabaseToolkit(db=db, llm=llm)\n"
        "    for tool in kit.get_tools():\n        tool.invoke(q)\n\n\n"
        "async def read(url):\n    client = MultiServerMCPClient({})\n    tools = await client.get_tools()\n"
        "    reader = tools[0]\n    prompt = await client.get_prompt('s', 'p')\n"
        "    return await reader.ainvoke({'url': url}), prompt.invoke({})\n"
    )
    assert _codes(source, path="app/main.py") == [(7, "DG101"), (13, "DG101"), (21, "DG101")]
