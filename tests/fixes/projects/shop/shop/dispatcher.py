"""The shop's own dispatcher: every tool call goes through run_tool."""

import json

from shop.tool_registry import TOOLS


def run_tool(name: str, args: dict) -> str:
    if name not in TOOLS:
        return json.dumps({"error": f"unknown tool {name!r}"})
    result = TOOLS[name]._run(**args)
    return result if isinstance(result, str) else json.dumps(result)
