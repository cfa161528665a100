"""DG104: a tool function returns something other than a JSON string."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dispatchguard.lint.rules.dg103_json_return import check_returns
from dispatchguard.lint.rules.examples import snippet

if TYPE_CHECKING:
    from dispatchguard.lint.facts import FileFacts
    from dispatchguard.lint.walker import Context, FunctionInfo

CODE = "DG104"
NAME = "tool-function-returns-non-json"
SUMMARY = "Tool function returns something other than a JSON string"
MESSAGE = (
    "tool function `{method}` returns {what}, not a JSON string: return `json.dumps(...)` or `ensure_json_str(...)`"
)


def exempt(file: FileFacts) -> bool:
    """Tests declare throw-away tools (``return a + b``) to exercise agents."""
    return file.is_test


def check_tool_function(ctx: Context, fn: FunctionInfo) -> None:
    check_returns(ctx, fn, CODE, MESSAGE, fn.qualname)


VALID = [
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
    snippet("""
        import json
        from langchain_core.tools import tool

        @tool(response_format="content_and_artifact")
        def fetch(url: str):
            \"\"\"Fetch.\"\"\"
            page = download(url)
            return json.dumps({'title': page.title}), page
    """),
    snippet("""
        from langchain_core.tools import tool

        @tool
        def lookup(key: str) -> str:
            \"\"\"Look up.\"\"\"
            return backend.get(key)
    """),
    snippet("""
        from langchain_core.tools import tool

        def helper(x):
            return {'x': x}

        @tool
        def wrapped(x: str) -> str:
            \"\"\"Wrapped.\"\"\"
            return ensure_json_str(helper(x))
    """),
    snippet("""
        def not_a_tool(x):
            return f"value {x}"
    """),
    snippet("""
        from langchain_core.tools import tool

        options = tool(parse_docstring=True)

        def plain(x):
            return x
    """),
]

INVALID = [
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
    snippet("""
        from crewai.tools import tool

        @tool("Calculator")
        def calculate(expression: str) -> str:
            \"\"\"Calculate.\"\"\"
            try:
                return evaluate(expression)
            except ValueError:
                return "Error: invalid expression"  # error: DG104
    """),
    snippet("""
        from langchain.tools import tool

        @tool
        def summarise(items: list[str]) -> str:
            \"\"\"Summarise.\"\"\"
            return "\\n".join(items)  # error: DG104
    """),
    snippet("""
        from langchain_core.tools import tool

        @tool
        def company(domain: str) -> dict:
            \"\"\"Company.\"\"\"
            return {'domain': domain}  # error: DG104
    """),
    snippet("""
        from langchain_core.tools import tool

        @tool(response_format="content_and_artifact")
        def fetch(url: str):
            \"\"\"Fetch.\"\"\"
            page = download(url)
            return f"Title: {page.title}", page  # error: DG104
    """),
    snippet("""
        from langchain_core.tools import StructuredTool

        def multiply(a: float, b: float) -> float:
            return a * b / 1  # error: DG104

        calculator = StructuredTool.from_function(func=multiply, name="multiply")
    """),
    snippet("""
        import requests
        from langchain_core.tools import tool

        @tool
        def weather(city: str):
            \"\"\"Weather.\"\"\"
            response = requests.get("https://example.invalid", params={"q": city})
            return response.json()  # error: DG104
    """),
]
