"""DG104: a tool function returns something other than a JSON string."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dispatchguard.lint.rule import Rule
from dispatchguard.lint.rules.common import check_returns
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.rule import RuleContext
    from dispatchguard.lint.scopes import FunctionInfo


def check_tool_function(ctx: RuleContext, fn: FunctionInfo) -> None:
    """Report DG104 for each way a tool function can return something other than JSON text."""
    check_returns(ctx, fn, RULE.code, RULE.message, fn.qualname)


RULE = Rule(
    code="DG104",
    name="tool-function-returns-non-json",
    summary="Tool function returns something other than a JSON string",
    message=(
        "tool function `{method}` returns {what}, not a JSON string: return `json.dumps(...)` or "
        "`ensure_json_str(...)`"
    ),
    check_tool_function=check_tool_function,
    fixer="dispatchguard.fix.dg104",
    fix_title="make the returned value JSON text",
    valid=(
        snippet("""
            import json
            from langchain_core.tools import tool

            @tool
            def search(query: str) -> str:
                \"\"\"Search.\"\"\"
                return json.dumps({'query': query})
        """),
        snippet("""
            import json
            from crewai.tools import tool

            @tool("Search the web")
            def search(query: str) -> str:
                \"\"\"Search.\"\"\"
                if not query:
                    return '{"error": "empty query"}'
                return json.dumps(run_search(query))
        """),
    ),
    invalid=(
        snippet("""
            from datetime import datetime
            from langchain_core.tools import tool

            @tool
            def now() -> str:
                \"\"\"The current time.\"\"\"
                return datetime.now().isoformat()  # error: DG104
        """),
        snippet("""
            from langchain_core.tools import tool

            @tool
            def add(a: int, b: int) -> str:
                \"\"\"Add.\"\"\"
                return f"The sum is {a + b}"  # error: DG104
        """),
    ),
)
