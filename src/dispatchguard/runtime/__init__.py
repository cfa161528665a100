"""The dispatchguard runtime: ToolAction, ToolRegistry, strict validation, dispatch_tool,
ensure_json_str, prompt rendering. Importing this package imports pydantic."""

from dispatchguard.runtime.dispatcher import (
    DispatchResult,
    adispatch_tool,
    adispatch_tool_result,
    dispatch_tool,
    dispatch_tool_result,
)
from dispatchguard.runtime.json_text import JsonReturningToolMixin, ensure_json_str
from dispatchguard.runtime.models import (
    Clarification,
    ToolAction,
    ToolActionError,
    parse_tool_action,
)
from dispatchguard.runtime.prompt import render_tool_prompt
from dispatchguard.runtime.registry import (
    TOOL_REGISTRY,
    RegistryError,
    ToolRegistry,
    ToolSpec,
)
from dispatchguard.runtime.schema.injected import InjectedArg
from dispatchguard.runtime.tracing import instrument, uninstrument
from dispatchguard.runtime.validation import (
    ValidationResult,
    sanitize_args,
    validate_tool_call,
)

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
