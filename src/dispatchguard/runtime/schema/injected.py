"""Arguments the caller injects per call (``InjectedArg``, LangChain's ``InjectedToolArg``)."""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

__all__ = ["InjectedArg", "injection_kind"]


class InjectedArg:
    """Marks a tool parameter as supplied by the caller, never by the model::

        def lookup(query: str, user_id: Annotated[str, InjectedArg()]) -> str: ...

        dispatch_tool(action, registry=tools, context={"user_id": "u-42"})

    The parameter is left out of every export and of the prompt; a value the model sends for it is
    ignored (rejected by name under ``unknown_args="reject"``). ``key`` names the ``context`` key
    to read (the parameter name by default).
    """

    __slots__ = ("key",)

    def __init__(self, key: str | None = None) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"InjectedArg({self.key!r})" if self.key else "InjectedArg()"


def _langchain_marker(meta: Any) -> str | None:
    cls = meta if isinstance(meta, type) else type(meta)
    names = {c.__name__ for c in cls.__mro__ if c.__module__.startswith("langchain_core.")}
    if "InjectedToolCallId" in names:
        return "call_id"
    return "context" if "InjectedToolArg" in names else None


def injection_kind(metadata: Iterable[Any]) -> tuple[str, str | None] | None:
    """``("context", key)`` or ``("call_id", None)`` when ``metadata`` (``Annotated`` extras or
    a pydantic field's ``metadata``) marks an injected argument, else ``None``."""
    for meta in metadata:
        if meta is InjectedArg:
            return "context", None
        if isinstance(meta, InjectedArg):
            return "context", meta.key
        kind = _langchain_marker(meta)
        if kind is not None:
            return kind, None
    return None


def annotation_injection(annotation: Any) -> tuple[str, str | None] | None:
    """:func:`injection_kind` of an annotation (``Annotated[T, marker]``, possibly in ``Optional``)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return injection_kind(typing.get_args(annotation)[1:])
    for arg in typing.get_args(annotation):
        found = annotation_injection(arg)
        if found is not None:
            return found
    return None
