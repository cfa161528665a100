"""DG102: a tool class is instantiated outside the configured tool modules."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.kinds import CLASS
from dispatchguard.lint.rules.dg101_direct_call import describe
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.facts import FileFacts
    from dispatchguard.lint.walker import Context

CODE = "DG102"
NAME = "tool-instantiated-outside-tools-module"
SUMMARY = "Tool class instantiated outside the configured tool modules"
MESSAGE = (
    "tool class `{name}` instantiated outside the tool modules: create tools in a tool module "
    "and reach them through the registry"
)


def exempt(file: FileFacts) -> bool:
    """Tool modules are where tools are created; tests build the tools they test."""
    return file.is_test or file.is_tool_module


def check_call(ctx: Context, node: ast.Call) -> None:
    func = node.func
    if isinstance(func, (ast.Name, ast.Attribute)) and ctx.callee_kind(node) == CLASS:
        # a module that defines a tool class is a home of that tool: adapters, wrappers and
        # factories build the tools they define there
        if not ctx.defines_class(func):
            ctx.report(node, CODE, MESSAGE.format(name=describe(func)))


VALID = [
    snippet("""
        from crewai.tools import BaseTool

        class Search(BaseTool):
            pass

        search = Search()  # the module that defines a tool may build it
    """),
    snippet("""
        from crewai.tools import BaseTool

        def adapt(action):
            class ActionTool(BaseTool):
                name: str = action.name

            return ActionTool()  # an adapter builds the tools it defines
    """),
    snippet("""
        from crewai.tools import BaseTool

        class Search(BaseTool):
            pass

        def make(cls: type[Search]):
            return cls
    """),
    snippet("""
        class Search:
            pass

        Search()
    """),
    snippet("""
        from crewai import Agent
        Agent(role='x', goal='y', backstory='z')
    """),
    snippet("""
        from crewai.tools import BaseTool

        class Search(BaseTool):
            def __init__(self):
                super().__init__()
    """),
    snippet("""
        from crewai_tools import load_tools
        load_tools(['x'])
    """),
    snippet("""
        from crewai_tools import MAX_RESULTS
        print(MAX_RESULTS)
    """),
    snippet("""
        from mytools import SerperDevTool
        SerperDevTool()
    """),
    snippet("""
        from crewai.tools import BaseTool
        isinstance(x, BaseTool)
    """),
]

INVALID = [
    snippet("""
        from crewai_tools import SerperDevTool

        tool = SerperDevTool(n_results=3)  # error: DG102
    """),
    snippet("""
        from langchain_community.tools import DuckDuckGoSearchRun

        search = DuckDuckGoSearchRun()  # error: DG102
    """),
    snippet("""
        import crewai_tools as ct

        def build():
            return ct.ScrapeWebsiteTool()  # error: DG102
    """),
    snippet("""
        from langchain_core.tools import Tool

        t = Tool(name='x', func=print, description='d')  # error: DG102
    """),
    snippet("""
        from crewai_tools import SerperDevTool

        def agent_tools():
            tools = [SerperDevTool()]  # error: DG102
            return tools
    """),
]
