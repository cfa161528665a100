"""``render_tool_prompt``: the system-prompt block that tells a model how to call the tools."""

from __future__ import annotations

import json
from functools import lru_cache

from dispatchguard.runtime.json_text import ensure_json_str
from dispatchguard.runtime.models import (
    CLARIFICATION_ARG,
    CLARIFICATION_NAME,
    ToolAction,
)
from dispatchguard.runtime.registry import TOOL_REGISTRY, ToolRegistry
from dispatchguard.runtime.schema import MISSING, ArgInfo
from dispatchguard.runtime.schema.json_schemas import describe, tidy_schema

__all__ = ["render_tool_prompt"]


@lru_cache(maxsize=1)
def _action_schema() -> str:
    schema = tidy_schema(ToolAction.model_json_schema())
    schema.pop("description", None)
    schema["description"] = (
        'A tool call. "name" is a tool name from the list above; "args" maps argument names to '
        "JSON values (strings, numbers, booleans, null, arrays and objects)."
    )
    return json.dumps(schema, indent=2, ensure_ascii=False)


def _arg_line(p: ArgInfo) -> str:
    parts = [describe(p.schema)]
    if p.required:
        parts.append("required")
    elif p.default is MISSING:
        parts.append("optional")
    else:
        parts.append(f"optional, default {ensure_json_str(p.default)}")
    line = f"    - {p.name} ({', '.join(parts)})"
    if p.description:
        line += f": {p.description}"
    return line


def render_tool_prompt(registry: ToolRegistry | None = None) -> str:
    """The system-prompt block listing every tool by its registered name with its arguments, the
    ``ToolAction`` JSON schema, and the clarification convention (name ``"None"``).

    An empty registry renders the instructions with "(no tools are available)". ``registry`` must
    be a :class:`ToolRegistry` (``None`` means ``TOOL_REGISTRY``); anything else raises ``TypeError``.
    """
    reg = TOOL_REGISTRY if registry is None else registry
    if not isinstance(reg, ToolRegistry):
        raise TypeError(f"render_tool_prompt expects a ToolRegistry, got {type(reg).__name__}")
    lines = ["You can call tools. To call one, answer with a single JSON object and nothing else:",
             '{"name": "<tool name>", "args": {<argument>: <value>, ...}}',
             "",
             ("Argument values are JSON: strings, numbers, booleans, null, arrays and objects. Types are "
              'strict: 5 is an integer, "5" is a string, true is a boolean.'),
             "",
             "Available tools:"]
    specs = reg.specs()
    if not specs:
        lines.append("  (no tools are available)")
    for spec in specs:
        desc = f": {spec.description}" if spec.description else ""
        lines.append(f"- {json.dumps(spec.name, ensure_ascii=False)}{desc}")
        if spec.params:
            lines.append("  args:")
            lines.extend(_arg_line(p) for p in spec.params)
        else:
            lines.append("  args: none (send \"args\": {})")
    lines += [
        "",
        "The tool call must match this JSON schema (ToolAction):",
        _action_schema(),
        "",
        (f'If you need more information from the user, do not guess: answer with name "{CLARIFICATION_NAME}" '
         f"and your question in args.{CLARIFICATION_ARG}, for example:"),
        json.dumps({"name": CLARIFICATION_NAME, "args": {CLARIFICATION_ARG: "Which file should I write to?"}}),
    ]
    return "\n".join(lines)
