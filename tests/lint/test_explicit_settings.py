"""An explicit setting means what it says: the zero-configuration allowances step aside."""

from __future__ import annotations

from dispatchguard.lint import LintConfig
from dispatchguard.lint.source import check_source

DEFINED_AND_BUILT_HERE = """\
from crewai.tools import BaseTool


class Search(BaseTool):
    def _run(self, q: str) -> str:
        return "{}"


search = Search()
"""


def dg102(config: LintConfig) -> list[tuple[int, int]]:
    found = check_source(DEFINED_AND_BUILT_HERE, config, path="app/agents/planner.py")
    return [(f.line, f.col) for f in found if f.code == "DG102"]


def test_a_module_that_defines_a_tool_may_build_it_without_configuration() -> None:
    assert dg102(LintConfig()) == []


def test_configured_tool_modules_report_a_tool_built_where_it_is_defined_elsewhere() -> None:
    """0.3.0 stopped reporting this even with `tool-modules` configured (blind evaluation)."""
    assert dg102(LintConfig(tool_modules=("app/tools/**",))) == [(9, 10)]
    assert dg102(LintConfig(tool_modules=("app/agents/**",))) == []  # it is a tool module now


RUNTIME_LOOKUP = """\
from langchain_core.tools import tool


@tool
def search(q: str) -> str:
    \"\"\"Search.\"\"\"
    return q


TOOLS_BY_NAME = {"search": search}


def step(call):
    return TOOLS_BY_NAME[call["name"]].invoke(call["args"])
"""


def test_a_run_time_lookup_is_a_dispatch_point_only_without_configured_dispatchers() -> None:
    def dg101(config: LintConfig) -> list[int]:
        return [f.line for f in check_source(RUNTIME_LOOKUP, config, path="app/loop.py") if f.code == "DG101"]

    assert dg101(LintConfig()) == []
    assert dg101(LintConfig(dispatchers=("app.dispatch.run",))) == [14]
    assert dg101(LintConfig(dispatchers=("app.loop.step",))) == []
