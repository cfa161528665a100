"""dispatchguard: one dispatcher for LLM tool calls, and the linter that enforces it.

The runtime names below are imported lazily (PEP 562) so that ``import dispatchguard.lint``,
which flake8 does for every run, never pays for pydantic or httpx.
"""

from __future__ import annotations

from dispatchguard.lazy import lazy_exports

__version__ = "0.3.0"

_LAZY_EXPORTS = {
    "ensure_json_str": "dispatchguard.runtime.json_text",
    "JsonReturningToolMixin": "dispatchguard.runtime.json_text",
    "ToolAction": "dispatchguard.runtime.models",
    "Clarification": "dispatchguard.runtime.models",
    "ToolActionError": "dispatchguard.runtime.models",
    "parse_tool_action": "dispatchguard.runtime.models",
    "ToolRegistry": "dispatchguard.runtime.registry",
    "RegistryError": "dispatchguard.runtime.registry",
    "TOOL_REGISTRY": "dispatchguard.runtime.registry",
    "ToolSpec": "dispatchguard.runtime.registry",
    "sanitize_args": "dispatchguard.runtime.validation",
    "validate_tool_call": "dispatchguard.runtime.validation",
    "ValidationResult": "dispatchguard.runtime.validation",
    "dispatch_tool": "dispatchguard.runtime.dispatcher",
    "adispatch_tool": "dispatchguard.runtime.dispatcher",
    "adispatch_tool_result": "dispatchguard.runtime.dispatcher",
    "dispatch_tool_result": "dispatchguard.runtime.dispatcher",
    "DispatchResult": "dispatchguard.runtime.dispatcher",
    "render_tool_prompt": "dispatchguard.runtime.prompt",
    "InjectedArg": "dispatchguard.runtime.schema.injected",
    "instrument": "dispatchguard.runtime.tracing",
    "uninstrument": "dispatchguard.runtime.tracing",
}

# Spelled out for static analysis; a test checks it matches _LAZY_EXPORTS.
__all__ = [
    "TOOL_REGISTRY",
    "Clarification",
    "DispatchResult",
    "InjectedArg",
    "JsonReturningToolMixin",
    "RegistryError",
    "ToolAction",
    "ToolActionError",
    "ToolRegistry",
    "ToolSpec",
    "ValidationResult",
    "__version__",
    "adispatch_tool",
    "adispatch_tool_result",
    "dispatch_tool",
    "dispatch_tool_result",
    "ensure_json_str",
    "instrument",
    "parse_tool_action",
    "render_tool_prompt",
    "sanitize_args",
    "uninstrument",
    "validate_tool_call",
]


__getattr__, __dir__ = lazy_exports(globals(), _LAZY_EXPORTS)
