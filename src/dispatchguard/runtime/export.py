"""Tool lists in provider formats: OpenAI (strict function calling), Anthropic, MCP."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

__all__ = ["FORMATS", "export_tools"]

FORMATS = ("openai", "anthropic", "mcp")


def export_tools(specs: Iterable[Any], fmt: str, *, strict: bool = True) -> list[dict]:
    """Export tool specs.

    * ``openai``: ``{"type": "function", "function": {"name", "description", "parameters",
      "strict": true}}``. With ``strict`` (the default) every property is required, optional ones
      are nullable (``null`` means the default, which the description states) and
      ``additionalProperties`` is false: exactly what the validator accepts. ``strict=False``
      exports the plain schema (with ``default`` values) and ``"strict": false``.
    * ``anthropic``: ``{"name", "description", "input_schema"}``.
    * ``mcp``: ``{"name", "description", "inputSchema"}`` (the MCP ``tools/list`` entry).

    OpenAI and Anthropic names must match ``^[A-Za-z0-9_-]{1,64}$``, so they use each spec's
    ``export_name`` (other characters replaced by ``_``); the dispatcher accepts those names too.
    MCP keeps the registered name. Raises ``ValueError`` for an unknown format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    out: list[dict] = []
    for spec in specs:
        if fmt == "openai":
            params = spec.strict_schema if strict else spec.schema
            out.append({
                "type": "function",
                "function": {
                    "name": spec.export_name,
                    "description": spec.description,
                    "parameters": copy.deepcopy(params),
                    "strict": bool(strict),
                },
            })
        elif fmt == "anthropic":
            out.append({"name": spec.export_name, "description": spec.description,
                        "input_schema": copy.deepcopy(spec.schema)})
        else:
            out.append({"name": spec.name, "description": spec.description,
                        "inputSchema": copy.deepcopy(spec.schema)})
    return out
