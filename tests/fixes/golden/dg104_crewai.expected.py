"""Desk tools (CrewAI @tool functions)."""

import json

from crewai.tools import tool
from dispatchguard import TOOL_REGISTRY, ensure_json_str


@tool("Calculator")
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    try:
        return ensure_json_str({"value": float(expression)})
    except ValueError:
        return ensure_json_str({"error": "Error: invalid expression", "kind": "tool_error", "tool": "Calculator"})  # failure prose: becomes the error object


@tool("Tags")
def tags(text: str) -> str:
    """The #tags of a text."""
    found = sorted({w[1:] for w in text.split() if w.startswith("#")})
    return ensure_json_str([
        tag  # one per word
        for tag in found
    ])


@tool("Report")
def report(title: str) -> str:
    """Glue: text before JSON is not JSON."""
    return ensure_json_str("Report: " + json.dumps({"title": title}))


TOOL_REGISTRY.register("tags", tags)


@tool("Log")
def log(message: str) -> str:
    """Can end without a return: no fix (the missing value is the user's to write)."""
    if message:
        return json.dumps({"logged": message})
