"""DG103: a tool's run method returns something other than a JSON string."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules.common import check_returns
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.rule import RuleContext
    from dispatchguard.lint.scopes import FunctionInfo


def check_tool_method(ctx: RuleContext, fn: FunctionInfo) -> None:
    """Report DG103 for each way a tool class's run method can return something other than JSON text."""
    check_returns(ctx, fn, RULE.code, RULE.message, fn.qualname)


RULE = Rule(
    code="DG103",
    name="tool-returns-non-json",
    summary="Tool run method returns something other than a JSON string",
    message="`{method}` returns {what}, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`",
    # the methods of a tool class whose return value reaches the model
    tool_methods=frozenset({"run", "_run", "arun", "_arun"}),
    check_tool_method=check_tool_method,
    fixer="dispatchguard.fix.dg103",
    fix_title="make the returned value JSON text",
    valid=(
        snippet("""
            from langchain_core.tools import BaseTool

            class Search(BaseTool):
                response_format: str = "content_and_artifact"

                def _run(self, q):
                    results = search(q)
                    return self.clean(results), results
        """),
        snippet("""
            from bson import json_util
            from crewai.tools import BaseTool

            class T(BaseTool):
                def _run(self, q):
                    return str(json_util.dumps(list(q)))
        """),
    ),
    invalid=(
        snippet("""
            from crewai.tools import BaseTool

            class Report(BaseTool):
                def _run(self, rows):
                    return "\\n".join(rows).rstrip()  # error: DG103
        """),
        snippet("""
            from langchain_core.tools import BaseTool

            class Search(BaseTool):
                response_format: str = "content_and_artifact"

                def _run(self, q):
                    return f"Found {q}", {"raw": q}  # error: DG103
        """),
    ),
)
