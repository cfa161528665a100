"""Search tools (LangChain): @tool functions, a from_function target, a content_and_artifact tool."""

from __future__ import annotations

import json

from dispatchguard import TOOL_REGISTRY, ensure_json_str
from langchain_core.tools import StructuredTool, tool
from pydantic import BaseModel


class Quote(BaseModel):
    item: str
    price: float


@tool
def company(domain: str) -> str:
    """Look up a company by its email domain."""
    if not domain:
        return ensure_json_str(None)  # a forgotten value? the fix makes it "null"
    return ensure_json_str({
        "domain": domain,  # the model reads this
        "tier": "gold",
    })


@tool
def quote(item: str) -> str:
    """Price an item."""
    return Quote(item=item, price=1.5).model_dump_json()


@tool
def quote_for_humans(item: str) -> str:
    """A mode is kept as JSON: json.dumps of model_dump(mode="json")."""
    return json.dumps(Quote(item=item, price=1.5).model_dump(mode="json"), ensure_ascii=False)


@tool(response_format="content_and_artifact")
def fetch(url: str):
    """Fetch a page: only the content reaches the model."""
    page = {"url": url, "size": 3}
    return ensure_json_str(f"Fetched {url}"), page


@tool(response_format="content_and_artifact")
def fetch_parenthesised(url: str):
    """The same, with the tuple in parentheses."""
    return (ensure_json_str({"url": url}), [url])


@tool
def letters(word: str) -> str:
    """A generator has no JSON form: no fix."""
    return (c for c in word)


@tool
def lookup(key: str) -> str:
    """JSON written by hand: no fix (wrapping it would encode the object as a string)."""
    return f'{{"key": "{key}"}}'


def multiply(a: float, b: float) -> str:
    return ensure_json_str(a * b / 1)


calculator = StructuredTool.from_function(func=multiply, name="multiply")

TOOL_REGISTRY.register("company", company)
TOOL_REGISTRY.register("multiply", calculator)
