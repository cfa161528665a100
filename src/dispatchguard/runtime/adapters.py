"""How each kind of tool is called: plain functions, CrewAI tools, LangChain tools, ``.run`` objects.

:func:`adapt` answers, once at registration: the sync entry point (``call``), the native async one
(``acall``, ``None`` when the tool has none: a sync tool is never run through a framework's
``run_in_executor`` fallback, which would escape our timeouts), where the argument schema comes
from, and how the tool takes its arguments (``kwargs``, or LangChain's input dict plus tool-call id).
Neither framework is imported here: tools are recognised by their classes' modules.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Adapter", "adapt", "framework_of"]


class AdapterError(ValueError):
    """The object cannot be used as a tool."""


@dataclass(frozen=True)
class Adapter:
    """How the dispatcher calls one tool, as :func:`adapt` works it out once at registration.

    ``call`` and ``acall`` are its sync and native async entry points (None when it has none);
    ``schema``, ``signature`` and ``doc_source`` (whose docstring describes the tool) feed the
    registry's argument schema and description. Immutable.
    """

    call: Callable[..., Any] | None
    acall: Callable[..., Any] | None
    schema: Any  # a pydantic model class, a JSON Schema dict, or None (use the signature)
    signature: Callable[..., Any]  # the callable whose signature/docstring describe the args
    doc_source: Any
    takes_dict: bool = False  # LangChain: call(args, tool_call_id)
    needs_call_id: bool = False  # LangChain tools that report errors as a ToolMessage status


def framework_of(tool: Any) -> str | None:
    """``"langchain"``, ``"crewai"`` or ``None``, from the modules of the tool's classes."""
    for cls in type(tool).__mro__:
        module = getattr(cls, "__module__", "") or ""
        if module.startswith(("langchain_core.", "langchain.")) and hasattr(tool, "invoke"):
            return "langchain"
        if module.startswith("crewai.") and hasattr(tool, "run"):
            return "crewai"
    return None


def _defined_by_framework(tool: Any, method: str, prefix: str) -> bool:
    """Whether ``method`` comes from the framework's own classes (not overridden by the tool)."""
    for cls in type(tool).__mro__:
        if method in cls.__dict__:
            return (getattr(cls, "__module__", "") or "").startswith(prefix)
    return True


def _langchain(tool: Any) -> Adapter:
    coroutine = getattr(tool, "coroutine", None)
    func = getattr(tool, "func", None)
    structured = "coroutine" in type(tool).model_fields if hasattr(type(tool), "model_fields") else False
    if structured:
        has_sync, has_async = func is not None, coroutine is not None
    else:
        has_sync = not _defined_by_framework(tool, "_run", "langchain_core.")
        has_async = not _defined_by_framework(tool, "_arun", "langchain_core.")

    def call(args: dict, tool_call_id: str | None) -> Any:
        return tool.run(args, tool_call_id=tool_call_id)

    async def acall(args: dict, tool_call_id: str | None) -> Any:
        return await tool.arun(args, tool_call_id=tool_call_id)

    schema = tool.args_schema if tool.args_schema is not None else tool.get_input_schema()
    signature = func or coroutine or tool._run
    # With a tool-call id LangChain answers a ToolMessage whose status tells a handled error from
    # a result; without one it returns the raw result (better serialised by us), so ask for the
    # message only when the tool handles its errors.
    handles_errors = bool(getattr(tool, "handle_tool_error", False) or getattr(tool, "handle_validation_error", False))
    return Adapter(call if has_sync else None, acall if has_async else None, schema, signature,
                   signature if func or coroutine else tool, takes_dict=True, needs_call_id=handles_errors)


def _crewai(tool: Any) -> Adapter:
    func = getattr(tool, "func", None)
    if callable(func):
        is_async_func = inspect.iscoroutinefunction(func)
        has_sync, has_async = not is_async_func, is_async_func
    else:
        has_sync = True
        has_async = not _defined_by_framework(tool, "_arun", "crewai.")
    return Adapter(tool.run if has_sync else None, tool.arun if has_async else None,
                   getattr(tool, "args_schema", None), func if callable(func) else tool._run, tool)


def _only_var_params(fn: Callable[..., Any]) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    return all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values())


def _run_object(name: str, tool: Any) -> Adapter:
    run = getattr(tool, "run", None)
    arun = getattr(tool, "arun", None)
    call = acall = None
    if run is not None and inspect.iscoroutinefunction(run):
        acall = run
    elif callable(run):
        call = run
    if arun is not None and acall is None and inspect.iscoroutinefunction(arun):
        acall = arun
    if call is None and acall is None:
        raise AdapterError(f"tool {name!r}: .run/.arun is not callable")
    signature = call or acall
    if _only_var_params(signature):
        inner = getattr(tool, "_run", None) or getattr(tool, "_arun", None)
        signature = inner if callable(inner) else signature
    return Adapter(call, acall, getattr(tool, "args_schema", None), signature, tool)


def adapt(name: str, tool: Any) -> Adapter:
    """The :class:`Adapter` of ``tool``; raises :class:`AdapterError` for something not callable."""
    framework = framework_of(tool)
    if framework == "langchain":
        return _langchain(tool)
    if framework == "crewai":
        return _crewai(tool)
    if hasattr(tool, "run") or hasattr(tool, "arun"):
        return _run_object(name, tool)
    if callable(tool):
        dunder_call = getattr(type(tool), "__call__", None)  # noqa: B004 - the method itself, to see if it is async
        is_async = inspect.iscoroutinefunction(tool) or inspect.iscoroutinefunction(dunder_call)
        return Adapter(None if is_async else tool, tool if is_async else None, None, tool, tool)
    raise AdapterError(
        f"tool {name!r}: expected a function or an object with .run(**kwargs), got {type(tool).__name__}"
    )
