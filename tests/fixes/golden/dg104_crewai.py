"""Desk tools (CrewAI @tool functions)."""

import json

from crewai.tools import tool
from dispatchguard import TOOL_REGISTRY


@tool("Calculator")
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    try:
        return {"value": float(expression)}
    except ValueError:
        return "Error: invalid expression"  # failure prose: becomes the error object


@tool("Tags")
def tags(text: str) -> list:
    """The #tags of a text."""
    found = sorted({w[1:] for w in text.split() if w.startswith("#")})
    return [
        tag  # one per word
        for tag in found
    ]


@tool("Report")
def report(title: str) -> str:
    """Glue: text before JSON is not JSON."""
    return "Report: " + json.dumps({"title": title})


TOOL_REGISTRY.register("tags", tags)


@tool("Log")
def log(message: str) -> str:
    """Can end without a return: no fix (the missing value is the user's to write)."""
    if message:
        return json.dumps({"logged": message})
