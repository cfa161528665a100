"""A home-grown dispatcher: looks the tool up and runs it (no validation, whatever it returns)."""

from __future__ import annotations

from typing import Any

from newsroom.tool_registry import TOOL_REGISTRY


def dispatch_tool(name: str, args: dict[str, Any]) -> Any:
    tool = TOOL_REGISTRY.get(name)
    if tool is None:
        return {"error": f"unknown tool {name}"}
    try:
        return tool.run(**args)
    except Exception as exc:  # noqa: BLE001
        return {"error": str(exc)}
