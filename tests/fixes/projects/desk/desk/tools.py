"""The desk's LangChain tool functions, registered in dispatchguard's registry."""

from dispatchguard import TOOL_REGISTRY
from langchain_core.tools import StructuredTool, tool

COMPANIES = {"acme.io": {"name": "Acme", "tier": "gold", "seats": 12}}


@tool
def company(domain: str) -> dict:
    """Look up a company by its email domain."""
    found = COMPANIES.get(domain)
    if found is None:
        return
    return {"domain": domain, **found}


@tool
def tags(text: str) -> list:
    """The #tags of a text."""
    return sorted({w[1:] for w in text.split() if w.startswith("#") and len(w) > 1})


@tool(response_format="content_and_artifact")
def page(url: str):
    """A page summary for the model; the raw page as the artifact."""
    raw = f"<html>{url}</html>"
    return {"url": url, "length": len(raw)}, raw


def multiply(a: float, b: float) -> float:
    return a * b / 1


calculator = StructuredTool.from_function(
    func=multiply, name="multiply", description="Multiply two numbers."
)

TOOL_REGISTRY.register("company", company)
TOOL_REGISTRY.register("tags", tags)
TOOL_REGISTRY.register("page", page)
TOOL_REGISTRY.register("multiply", calculator)
