"""DG102: a tool class is instantiated outside the configured tool modules."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from dispatchguard.lint.inference.flow import from_caller_or_loop
from dispatchguard.lint.kinds import CLASS
from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules.common import describe
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.facts import FileFacts
    from dispatchguard.lint.rule import RuleContext
    from dispatchguard.lint.scopes import FunctionInfo



def exempt(file: FileFacts) -> bool:
    """Tool modules are where tools are created (test files are skipped as by every rule)."""
    return file.is_tool_module


#: Functions whose name says they build the tools: ``get_tools``, ``build_search_tools``, ``load_tools``.
_FACTORY_NAME = re.compile(r"(?:get|build|make|create|load|init|setup)_(?:\w+_)?tools\Z")


def _factory(ctx: RuleContext, node: ast.Call) -> bool:
    """A function whose job is to build the tools (a toolkit's ``get_tools()``,
    ``build_search_tools()``; a private one, ``_create_analysis_tools()``, only around functions it
    defines itself: ``def search(q): ...`` then ``StructuredTool.from_function(func=search)``), or an
    adapter that turns another protocol's tool into one (``StructuredTool(name=tool.name, ...)``,
    ``StructuredTool.from_function(tools.search, ...)``: the name or the function wrapped comes from
    a parameter or loop variable)."""
    fn = ctx.function
    if fn is None:
        return False
    name = getattr(fn.node, "name", "")
    if _FACTORY_NAME.match(name):
        return True
    wrapped = _wrapped(node)
    if _FACTORY_NAME.match(name.lstrip("_")) and _defined_in(ctx, fn, wrapped):
        return True  # a private factory of the tools it defines (``_create_analysis_tools``)
    given = [*(k.value for k in node.keywords if k.arg == "name"), *wrapped]
    for value in given:
        while isinstance(value, (ast.Attribute, ast.Subscript)):
            value = value.value
        # a method of the object itself (``func=self.run``) is the project's own function
        if isinstance(value, ast.Name) and value.id not in ("self", "cls") and from_caller_or_loop(value.id, fn):
            return True
    return False


#: The keywords that give a tool the function it runs.
_WRAPS = frozenset({"func", "coroutine"})


def _defined_in(ctx: RuleContext, fn: FunctionInfo, wrapped: list[ast.expr]) -> bool:
    """Whether every function a tool is built around is a ``def`` in the body of ``fn``."""
    return bool(wrapped) and all(isinstance(v, ast.Name) and ctx.local_function(fn, v.id) is not None for v in wrapped)


def _wrapped(node: ast.Call) -> list[ast.expr]:
    """The functions a tool is built around: ``func=``/``coroutine=``, and ``from_function``'s first
    positional argument."""
    wrapped = [k.value for k in node.keywords if k.arg in _WRAPS]
    if node.args and isinstance(node.func, ast.Attribute):
        wrapped.append(node.args[0])
    return wrapped


def check_call(ctx: RuleContext, node: ast.Call) -> None:
    """Report DG102 for a call of a tool class (an instantiation) in a file that is not a tool module.

    With no ``tool-modules`` configured, building a class the module defines, or building tools in
    a factory (``get_tools()``) or an adapter (``name=`` from a parameter), is not reported.
    """
    built = _tool_class_built(ctx, node)
    # with no tool-modules configured, a module that defines a tool class is a home of that
    # tool: adapters, wrappers and factories build the tools they define there
    if built is not None and (ctx.tool_modules_configured or not (ctx.defines_class(built) or _factory(ctx, node))):
        ctx.report(node, RULE.code, RULE.message.format(name=describe(built)))


def _tool_class_built(ctx: RuleContext, node: ast.Call) -> ast.expr | None:
    """The tool class a call builds: the class called (``SerperDevTool()``), or the class of a
    classmethod constructor (``Tool.from_function(...)``, CrewAI's ``Tool.from_langchain(...)``)."""
    func = node.func
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    if ctx.callee_kind(node) == CLASS:
        return func
    if isinstance(func, ast.Attribute) and ctx.is_tool_constructor(func):
        return func.value
    return None


RULE = Rule(
    code="DG102",
    name="tool-instantiated-outside-tools-module",
    summary="Tool class instantiated outside the configured tool modules",
    message=(
        "tool class `{name}` instantiated outside the tool modules: create tools in a tool module "
        "and reach them through the registry"
    ),
    check_call=check_call,
    exempt=exempt,
    no_fix_reason=(
        "no automatic fix: instantiate the tool in a tool module (tool-modules) and register it; "
        "look it up in the registry or go through the dispatcher elsewhere"
    ),
    valid=(
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
    ),
    invalid=(
        snippet("""
            from crewai_tools import SerperDevTool

            tool = SerperDevTool(n_results=3)  # error: DG102
        """),
        snippet("""
            from langchain_community.tools import DuckDuckGoSearchRun

            search = DuckDuckGoSearchRun()  # error: DG102
        """),
        snippet("""
            from langchain_core.tools import StructuredTool

            def lookup(order_id: str) -> str:
                return order_id

            def build_agent():
                return Agent(tools=[StructuredTool.from_function(lookup)])  # error: DG102
        """),
    ),
)
