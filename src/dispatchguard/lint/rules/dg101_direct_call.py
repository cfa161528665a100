"""DG101: a tool is called directly instead of through the dispatcher."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dispatchguard.lint.kinds import TOOL
from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules.common import describe
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.rule import RuleContext

RUN_METHODS = frozenset({"run", "_run", "arun", "_arun", "invoke", "ainvoke"})
PRIVATE_RUN = frozenset({"_run", "_arun"})
#: The function behind a tool object (LangChain's ``Tool``/``StructuredTool`` ``.func`` and
#: ``.coroutine``, a project ``@tool``'s): calling it runs the tool's code past its run methods.
WRAPPED_FUNCTIONS = frozenset({"func", "coroutine"})
_RUNS = RUN_METHODS | WRAPPED_FUNCTIONS


def _is_self_like(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _dispatcher(ctx: RuleContext) -> str:
    """The project's own dispatcher when it configures one, else dispatchguard's."""
    own = ctx.own_dispatchers
    return f"{own[0]}(...)" if own else "dispatch_tool(ToolAction(...))"


def _passed_tool(ctx: RuleContext, receiver: ast.expr) -> bool:
    """A parameter that every call of its function in the module fills with a tool, or an
    attribute set from such a parameter of the class's constructor."""
    if isinstance(receiver, ast.Name):
        return ctx.filled_with_tools(receiver.id)
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
        return ctx.attribute_filled_with_tools(receiver.attr)
    return False


def check_call(ctx: RuleContext, node: ast.Call) -> None:
    """Report DG101 for a call that runs a tool directly (``t.run(...)``, ``t._run(...)``, ``t(...)``,
    ``t.func(...)``).

    Any ``._run``/``._arun`` counts, as do run methods of a tool or of a parameter every caller fills
    with a tool; calls inside a dispatcher, on ``self``/``super()``, and the project's detected
    dispatch points (a tool looked up by a run-time key, the model's tool calls) are not reported.
    """
    if ctx.in_dispatcher:
        return
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _RUNS:
        receiver = func.value
        if _is_self_like(receiver) or ctx.is_runtime_lookup(receiver) or ctx.routes_model_call(node):
            return  # a tool's own methods; the project's dispatch point running the tool it looked up
        if func.attr in PRIVATE_RUN or ctx.kind_of(receiver) == TOOL or _passed_tool(ctx, receiver):
            call = f"{describe(receiver)}.{func.attr}(...)"
            ctx.report(node, RULE.code, RULE.message.format(call=call, dispatcher=_dispatcher(ctx)))
        return
    if ctx.callee_kind(node) == TOOL and not (ctx.is_runtime_lookup(func) or ctx.routes_model_call(node)):
        ctx.report(node, RULE.code, RULE.message.format(call=f"{describe(func)}(...)", dispatcher=_dispatcher(ctx)))


RULE = Rule(
    code="DG101",
    name="direct-tool-call",
    summary="Tool called directly instead of through the dispatcher",
    message="direct tool call `{call}` bypasses the dispatcher: go through `{dispatcher}`",
    check_call=check_call,
    fixer="dispatchguard.fix.dg101",
    fix_title="route the call through the project's dispatcher",
    valid=(
        snippet("""
            from langchain_core.tools import tool

            documented = tool(parse_docstring=True)
            named = tool("search")

            def search(q: str) -> str:
                \"\"\"Search.\"\"\"
                return q

            search_tool = documented(search)
            other = named(search)

            def build():
                options = tool(return_direct=True)
                return options(search)
        """),
        snippet("""
            import subprocess
            subprocess.run(['ls'], check=True)
        """),
    ),
    invalid=(
        snippet("""
            from crewai.tools import BaseTool

            class Search(BaseTool):
                def _run(self, q):
                    return '{}'

            search = Search()
            search.run('q')  # error: DG101
        """),
        snippet("""
            from crewai.tools import BaseTool

            class Search(BaseTool):
                pass

            def go(tool: Search):
                return tool.invoke('q')  # error: DG101
        """),
    ),
)
