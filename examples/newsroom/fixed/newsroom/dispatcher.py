"""How the newsroom executes tool calls: through dispatchguard's dispatcher, with our registry.

`dispatch_tool` validates the call strictly against the tool's schema, runs the tool and always
returns JSON text, turning every failure into an error object the model can read and correct.
"""

from __future__ import annotations

import json
from typing import Any

from dispatchguard import ToolAction, dispatch_tool
from newsroom.tool_registry import TOOL_REGISTRY


def call(tool: str, args: dict[str, Any]) -> str:
    """Run one tool call the agents planned themselves; returns the tool's JSON text."""
    return dispatch_tool(ToolAction(name=tool, args=args), registry=TOOL_REGISTRY)


def call_from_model(reply: str) -> str:
    """Run a tool call proposed by the model as `{"name": ..., "args": {...}}` JSON text."""
    return dispatch_tool(reply, registry=TOOL_REGISTRY)


def load(result: str) -> Any:
    """The parsed result of a dispatched call (tool output or error object)."""
    return json.loads(result)
