"""What a module's functions return, recorded in its summary, and DG103/DG104 following imported
helpers with it (issue 11): verdicts, messages naming the helper, strict mode, the cache."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from dispatchguard.lint import LintConfig, check_paths
from dispatchguard.lint.index import summarise
from dispatchguard.lint.inference.tables import parse_deferred
from dispatchguard.lint.source import check_source

from ..conftest import about
from .conftest import FIXTURES


def _returns(source: str) -> dict[str, str]:
    return summarise(ast.parse(textwrap.dedent(source))).get("returns", {})


def test_summary_records_known_verdicts_only() -> None:
    returns = _returns("""
        import json
        from json import dumps as d
        import orjson

        SEP = ", "
        TEMPLATE = "Error: {}"

        def dumped(x):
            return json.dumps(x)

        def aliased(x):
            return d(x)

        def raises(x):
            raise ValueError(x)

        def joined(x):
            return SEP.join(x)

        def formatted(x):
            return TEMPLATE.format(x)

        def glued(x):
            if x:
                return "Error: " + x
            return f"Found {x}"

        def chained(x):
            if not x:
                raises(x)
            return dumped(x)

        def via_local(x):
            out = json.dumps(x)
            return out

        def decoded(x):
            return orjson.dumps(x).decode()

        def constant():
            return '{"ok": true}'

        def mixed(x):
            if x:
                return json.dumps(x)
            return "Error"

        def unknown(x):
            return x.render()

        def falls_off(x):
            if x:
                return json.dumps(x)
    """)
    assert returns == {
        "dumped": "json",
        "aliased": "json",
        "raises": "never",
        "joined": "text joined with ', '",
        "formatted": "text formatted with `.format`",
        "glued": "text glued to other values",
        "chained": "json",
        "via_local": "json",
        "decoded": "json",
        "constant": "json",
    }


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    yield x\n    return 'Error'\n",  # a generator
        "def f(x):\n    if (y := x):\n        return 'Error'\n    return 'Error: ' + y\n",  # a := binding
        "def f(x):\n    out = {}\n    if (out := x):\n        pass\n    y = out\n    return y\n",  # := rebinds a local
        "SEP = ', '\ndef f(x):\n    y = SEP\n    if (SEP := x):\n        pass\n    return y\n",  # := binds a global
        "def f(x):\n    if (str := x):\n        pass\n    y = str(1)\n    return y\n",  # := binds a builtin
        "@wrap\ndef f(x):\n    return 'Error'\n",  # a decorator may replace the function
        "def f(x):\n    return 'Error'\n\nf = other\n",  # bound twice
        "try:\n    from fast import f\nexcept ImportError:\n    def f(x):\n        return 'Error'\n",
        "def f(json):\n    return json.dumps(1)\n",  # json is the parameter, not the module
        "import json\ndef f(x):\n    out = x\n    out = out + '!'\n    return out\n",  # refers to itself
    ],
)
def test_summary_leaves_out_what_it_cannot_know(source: str) -> None:
    assert "f" not in _returns(source)


def test_a_name_bound_only_by_a_walrus_and_read_by_no_return_leaves_the_verdict_known() -> None:
    # the shape of langchain-community's WikipediaAPIWrapper.run: pages kept by ``:=``, prose returned
    returns = _returns("""
        class Wrapper:
            def run(self, query: str) -> str:
                summaries = []
                for title in self.client.search(query):
                    if page := self._fetch_page(title):
                        if summary := self._summary(title, page):
                            summaries.append(summary)
                if not summaries:
                    return "No good Wikipedia Search Result was found"
                return "\\n\\n".join(summaries)[: self.limit]

            def last(self, items):
                found = []
                if any((hit := i) for i in items):
                    found.append(hit)
                return found[-1]
    """)
    assert returns == {"Wrapper.run": "a string that is not JSON"}  # ``last`` reads its ``:=`` name: unknown


def test_summary_keeps_return_preserving_decorators() -> None:
    source = "import functools, json\n\n@functools.lru_cache\ndef f(x):\n    return json.dumps(x)\n"
    assert _returns(source) == {"f": "json"}


def test_options_only_calls_are_marked_in_the_summary() -> None:
    tree = ast.parse(
        "from crewai.tools import tool\n"
        "named = tool('Search')\n"
        "options = tool(parse_docstring=True)\n"
        "made = tool(fn)\n"
        "both = tool('Search', fn)\n"
    )
    defs = summarise(tree)["defs"]
    assert defs["named"] == [["call", "tool", "options"]]
    assert defs["options"] == [["call", "tool", "options"]]
    # positional arguments that are names are kept (a class factory's argument)
    assert defs["made"] == [["call", "tool", "args", ["fn"]]]
    assert defs["both"] == [["call", "tool", "args", [None, "fn"]]]


def test_messages_name_the_imported_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    root = FIXTURES / "returns"
    monkeypatch.chdir(root)
    report = check_paths(["."], LintConfig(root=root), jobs=1, use_cache=False)
    messages = {(f.path, f.line): f.message for f in about(report.findings)}
    assert "returns text joined with '\\n' (from `format_result`)" in messages[("app/tools.py", 19)]
    assert "returns an f-string (from `error_text`)" in messages[("app/tools.py", 27)]
    assert messages[("app/tools.py", 40)].startswith(
        "tool function `lines` returns text joined with ', ' (from `as_lines`)"
    )


HELPER_TEXT = "def render(rows):\n    return '\\n'.join(rows)\n"
HELPER_JSON = "import json\n\n\ndef render(rows):\n    return json.dumps(rows)\n"
TOOL = (
    "from crewai.tools import BaseTool\n"
    "from proj.helpers import render\n\n\n"
    "class Listing(BaseTool):\n"
    "    def _run(self, q):\n"
    "        return render(q)\n"
)


@pytest.mark.parametrize("jobs", [1, 2])
def test_editing_the_helper_module_revalidates_cached_results(tmp_path: Path, jobs: int) -> None:
    pkg = tmp_path / "proj"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(HELPER_TEXT)
    (pkg / "tools.py").write_text(TOOL)
    config = LintConfig(root=tmp_path)

    def codes() -> list[tuple[str, int, str]]:
        report = check_paths([tmp_path], config, jobs=jobs)
        return [(Path(f.path).name, f.line, f.code) for f in about(report.findings)]

    assert codes() == [("tools.py", 7, "DG103")]
    (pkg / "helpers.py").write_text(HELPER_JSON)  # tools.py is unchanged: its cached result must go
    assert codes() == []
    warm = check_paths([tmp_path], config, jobs=jobs)
    assert (about(warm.findings), warm.files_parsed, warm.files_walked) == ([], 0, 0)
    (pkg / "helpers.py").write_text(HELPER_TEXT + "\n")
    assert codes() == [("tools.py", 7, "DG103")]


def test_strict_mode_accepts_an_imported_json_wrapper() -> None:
    extra = {"pkg/__init__.py": "from .wrap import dump\n", "pkg/wrap.py": HELPER_JSON.replace("render", "dump")}
    source = (
        "from crewai.tools import BaseTool\nfrom pkg import dump, other\n\n"
        "class T(BaseTool):\n    def _run(self, q):\n        if q:\n            return dump(q)\n"
        "        return other(q)\n"
    )
    findings = about(check_source(source, LintConfig(strict=True), path="pkg/tools.py", extra=extra))
    assert [(f.code, f.line) for f in findings] == [("DG103", 8)]  # other(): unknown, dump(): JSON


def test_declared_return_types_reach_the_summary_and_other_modules() -> None:
    """A helper whose returns are unknown is what its annotation declares (issue 20)."""
    helpers = "from typing import Any\n\ndef rows(q) -> list[dict]:\n    return db.query(q)\n\n"
    helpers += "def text(q) -> str:\n    return db.query(q)\n\ndef anything(q) -> Any:\n    return db.query(q)\n"
    assert _returns(helpers) == {"rows": "a list (declared `-> list[dict]`)"}
    tool = (
        "from crewai.tools import BaseTool\nfrom pkg.helpers import anything, rows, text\n\n"
        "class Search(BaseTool):\n    def _run(self, q):\n        if q:\n            return rows(q)\n"
        "        if q is None:\n            return text(q)\n        return anything(q)\n"
    )
    findings = about(check_source(tool, path="pkg/tools.py", extra={"pkg/helpers.py": helpers}))
    assert [(f.line, f.code) for f in findings] == [(7, "DG103")]
    assert "a list (declared `-> list[dict]`) (from `rows`)" in findings[0].message


VENDOR_TOOLS = """\
from langchain_core.tools import tool
from app.vendors.alpha import get_news_alpha
from app.vendors.yf import get_news_yf
from app.interface import route_to_news

VENDORS = {"alpha": get_news_alpha, "yf": get_news_yf}


@tool
def news(vendor: str, q: str) -> str:
    \"\"\"News.\"\"\"
    return VENDORS[vendor](q)


@tool
def routed(vendor: str, q: str) -> str:
    \"\"\"Routed.\"\"\"
    return route_to_news(vendor, q)
"""
VENDOR_MODULES = {
    "app/__init__.py": "",
    "app/vendors/__init__.py": "",
    "app/vendors/alpha.py": "def get_news_alpha(q):\n    return f'## News\\n{q}'\n",
    "app/vendors/yf.py": "def get_news_yf(q):\n    return 'title,link\\n' + q\n",
    "app/interface.py": (
        "def markdown(q):\n    return f'## {q}'\n\n\ndef csv(q):\n    return 'title,link\\n' + q\n\n\n"
        "NEWS = {'alpha': markdown, 'yf': csv}\n\n\n"
        "def route_to_news(vendor, *args):\n    impl = NEWS[vendor]\n    return impl(*args)\n"
    ),
}


ROUTER = """\
from .alpha import get_news_alpha
from . import yf

VENDOR_METHODS = {"get_news": {"alpha": get_news_alpha, "yf": yf.get_news_yf}}


def route_to_vendor(method, *args, **kwargs):
    for vendor in VENDOR_METHODS[method]:
        vendor_impl = VENDOR_METHODS[method][vendor]
        impl = vendor_impl[0] if isinstance(vendor_impl, list) else vendor_impl
        try:
            return impl(*args, **kwargs)
        except ConnectionError:
            continue
    raise RuntimeError(method)
"""
ROUTED_TOOL = """\
from langchain_core.tools import tool
from app.vendors.router import route_to_vendor


@tool
def news(q: str) -> str:
    \"\"\"News.\"\"\"
    return route_to_vendor("get_news", q)
"""


def test_a_router_of_another_module_through_a_table_of_imported_functions() -> None:
    """The router's summary records its table (its module alone cannot judge functions it imports);
    the walker takes the union of the functions' summaries."""
    record = parse_deferred(_returns(ROUTER)["route_to_vendor"])
    assert record is not None
    assert (record.table, record.functions) == ("VENDOR_METHODS", ["get_news_alpha", "yf.get_news_yf"])
    extra = {**VENDOR_MODULES, "app/vendors/router.py": ROUTER}
    found = [(f.line, f.message) for f in check_source(ROUTED_TOOL, path="app/tools.py", extra=extra)]
    routed = "tool function `news` returns text (from the functions of `VENDOR_METHODS`, through `route_to_vendor`)"
    assert [(line, message.startswith(routed)) for line, message in found] == [(8, True)]
    extra["app/vendors/yf.py"] = "import json\n\n\ndef get_news_yf(q):\n    return json.dumps([q])\n"
    assert check_source(ROUTED_TOOL, path="app/tools.py", extra=extra) == []  # JSON and text: unknown


@pytest.mark.parametrize("jobs", [1, 2])
def test_editing_a_function_of_a_routers_table_revalidates_cached_results(tmp_path: Path, jobs: int) -> None:
    for rel, text in {**VENDOR_MODULES, "app/vendors/router.py": ROUTER, "app/tools.py": ROUTED_TOOL}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    config = LintConfig(root=tmp_path)

    def codes() -> list[tuple[str, int, str]]:
        return [(Path(f.path).name, f.line, f.code) for f in check_paths([tmp_path], config, jobs=jobs).findings]

    assert codes() == [("tools.py", 8, "DG104")]
    alpha = "import json\n\n\ndef get_news_alpha(q):\n    return json.dumps(q)\n"
    (tmp_path / "app/vendors/alpha.py").write_text(alpha)
    assert codes() == []  # tools.py and the router are unchanged: the cached result must go


def test_a_table_of_imported_functions_and_a_router_of_another_module() -> None:
    """``VENDORS[vendor](q)`` of functions imported from other modules takes the union of their
    summaries; a router in another module whose table holds its own module's functions is summarised."""
    found = {f.line: f.message for f in check_source(VENDOR_TOOLS, path="app/tools.py", extra=VENDOR_MODULES)}
    assert found[12].startswith("tool function `news` returns text (from the functions of `VENDORS`)")
    routed = "tool function `routed` returns text (from the functions of `NEWS`, through `route_to_news`)"
    assert found[18].startswith(routed)
    returns = _returns(VENDOR_MODULES["app/interface.py"])
    assert returns["route_to_news"] == "text (from the functions of `NEWS`)"


def test_model_text_of_a_helper_of_another_module() -> None:
    """The index reads a chat model, an OpenAI client or an agent executor from the module's own
    imports and bindings (the library table of chat models, not the environment): a helper that
    returns what the model wrote is summarised as prose, one whose model is asked for JSON is not."""
    helpers = """\
from langchain.agents import AgentExecutor
from langchain_openai import ChatOpenAI
from openai import OpenAI

llm = ChatOpenAI(model="gpt-4o")
json_llm = ChatOpenAI(model="gpt-4o", model_kwargs={"response_format": {"type": "json_object"}})
client = OpenAI()


def ask(prompt):
    return llm.invoke(prompt).content


def ask_json(prompt):
    return json_llm.invoke(prompt).content


def complete(prompt):
    return client.chat.completions.create(model="m", messages=[]).choices[0].message.content


def delegate(executor_agent, q):
    executor = AgentExecutor(agent=executor_agent, tools=[])
    return executor.invoke({"input": q})["output"]
"""
    returns = _returns(helpers)
    assert returns["ask"] == returns["complete"] == "the chat model's reply (prose the model wrote)"
    assert returns["delegate"] == "the agent's final answer (prose the model wrote)"
    assert "ask_json" not in returns


def test_a_chat_model_made_by_a_factory_of_another_module() -> None:
    """``llm = get_llm()`` of a project function whose summary says it returns a chat model, then a
    chain ending in it: its reply's ``.content`` is prose; a factory of anything else says nothing."""
    factory = (
        "from langchain_openai import ChatOpenAI\n\n\n"
        "def get_llm(t=0.0):\n    llm = ChatOpenAI(temperature=t)\n    return llm\n"
    )
    assert _returns(factory)["get_llm"] == "a chat model (`ChatOpenAI`)"
    tools = """\
from langchain.tools import Tool
from app.llm import get_llm, get_other

llm = get_llm(0.7)
other = get_other()
chain = prompt | llm


def outline(topic: str) -> str:
    return chain.invoke({"topic": topic}).content


def other_text(topic: str) -> str:
    return other.invoke(topic).content


tools = [
    Tool(name="outline", func=outline, description="d"),
    Tool(name="o", func=other_text, description="d"),
]
"""
    extra = {"app/__init__.py": "", "app/llm.py": factory + "\n\ndef get_other():\n    return make()\n"}
    found = [(f.line, f.message.split(",")[0]) for f in check_source(tools, path="app/tools.py", extra=extra)]
    assert found == [(10, "tool function `outline` returns the chat model's reply (prose the model wrote)")]


MODEL_CONFIG = """\
import os
from langchain_openai import ChatOpenAI

if os.getenv("DEEPSEEK_API_KEY"):
    llm = ChatOpenAI(model_name="deepseek-chat")
else:
    llm = ChatOpenAI(model_name="gpt-4o-mini")
"""
ASKED_JSON = 'model_kwargs={"response_format": {"type": "json_object"}}'
MODEL_TOOL = """\
from langchain.agents import Tool
from langchain.prompts import PromptTemplate
from app.config import llm

prompt = PromptTemplate.from_template("Answer {q}.")


def answer(q: str) -> str:
    return (prompt | llm).invoke({"q": q}).content.strip()


answer_tool = Tool(name="answer", func=answer, description="Answer.")
"""


def test_a_module_level_model_is_summarised_by_its_class() -> None:
    """A top-level name every binding of which builds one chat model class is recorded under
    ``=name`` (no call of the name reads it as a return); a model asked for JSON, or a name bound
    to something else too, is not."""
    assert _returns(MODEL_CONFIG) == {"=llm": "langchain_openai.ChatOpenAI"}
    asked = MODEL_CONFIG.replace('model_name="gpt-4o-mini"', ASKED_JSON)
    assert "=llm" not in _returns(asked)
    assert "=llm" not in _returns(MODEL_CONFIG + "llm = with_retries(llm)\n")


@pytest.mark.parametrize("jobs", [1, 2])
def test_editing_the_module_of_an_imported_model_revalidates_cached_results(tmp_path: Path, jobs: int) -> None:
    for rel, text in {"app/__init__.py": "", "app/config.py": MODEL_CONFIG, "app/tools.py": MODEL_TOOL}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    config = LintConfig(root=tmp_path, select=("DG104",))

    def codes() -> list[tuple[str, int, str]]:
        return [(Path(f.path).name, f.line, f.code) for f in check_paths([tmp_path], config, jobs=jobs).findings]

    assert codes() == [("tools.py", 9, "DG104")]
    asked = MODEL_CONFIG.replace('model_name="gpt-4o-mini"', ASKED_JSON)
    (tmp_path / "app/config.py").write_text(asked)
    assert codes() == []  # tools.py is unchanged: its cached result must go
