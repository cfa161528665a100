"""Reference tools: small, real, strict, each returning JSON text.

They live in their own registry, :data:`REFERENCE_TOOLS`; nothing is added to the global
``TOOL_REGISTRY`` unless you ask::

    from dispatchguard import dispatch_tool
    from dispatchguard.tools import REFERENCE_TOOLS, register_reference_tools

    dispatch_tool({"name": "system_stats", "args": {}}, registry=REFERENCE_TOOLS)
    register_reference_tools(my_registry)  # or register_reference_tools() for TOOL_REGISTRY

Settings: :mod:`dispatchguard.tools.settings` (``DISPATCHGUARD_TOOLS_*``); see docs/tools.md.
"""

from __future__ import annotations

from typing import Any

from dispatchguard.runtime.registry import TOOL_REGISTRY, ToolRegistry

from . import summaries as _summaries  # noqa: F401 - registers the agent loop's summaries
from .environment_check import environment_check
from .errors import (
    InvalidFeed,
    InvalidResponse,
    TextTooLarge,
    ToolArgumentError,
    ToolError,
    ToolNotConfigured,
    UnsafePathError,
)
from .file_writer import file_writer
from .generate_image import generate_image
from .rag import RagIndex, RagSearch, rag_search
from .rss_feed import parse_feed, rss_feed
from .settings import ToolSettings, configure_tools, get_tool_settings
from .system_stats import system_stats
from .web_search import web_search

__all__ = [
    "REFERENCE_TOOLS",
    "TOOLS",
    "InvalidFeed",
    "InvalidResponse",
    "RagIndex",
    "RagSearch",
    "TextTooLarge",
    "ToolArgumentError",
    "ToolError",
    "ToolNotConfigured",
    "ToolSettings",
    "UnsafePathError",
    "configure_tools",
    "environment_check",
    "file_writer",
    "generate_image",
    "get_tool_settings",
    "parse_feed",
    "rag_search",
    "register_reference_tools",
    "rss_feed",
    "system_stats",
    "web_search",
]

# name -> (tool, parallel_safe). file_writer is the one tool with side effects. rag_search is
# registered as an object (its schema has an argument named `global`, which a function cannot take).
TOOLS: dict[str, tuple[Any, bool]] = {
    "web_search": (web_search, True),
    "rss_feed": (rss_feed, True),
    "system_stats": (system_stats, True),
    "file_writer": (file_writer, False),
    "environment_check": (environment_check, True),
    "rag_search": (RagSearch(), True),
    "generate_image": (generate_image, True),
}


def register_reference_tools(registry: ToolRegistry | None = None, *, names: list[str] | None = None) -> ToolRegistry:
    """Register the reference tools (all, or ``names``) into ``registry`` (default: ``TOOL_REGISTRY``)."""
    registry = TOOL_REGISTRY if registry is None else registry
    unknown = set(names or ()) - set(TOOLS)
    if unknown:
        raise KeyError(f"no reference tool named {', '.join(sorted(unknown))}; available: {', '.join(TOOLS)}")
    for name in names or TOOLS:
        function, parallel_safe = TOOLS[name]
        registry.register(name, function, parallel_safe=parallel_safe)
    return registry


REFERENCE_TOOLS: ToolRegistry = register_reference_tools(ToolRegistry())
