"""What every argument source compiles to: :class:`CompiledArgs`, plus the shared errors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class SchemaError(ValueError):
    """A tool's arguments cannot be compiled (unsupported type, bad JSON Schema, bad default)."""


class ArgsError(ValueError):
    """Arguments do not match a tool's schema. ``arg`` names the offending argument (or None)."""

    def __init__(self, message: str, arg: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.arg = arg


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __copy__(self) -> _Missing:
        return self

    def __deepcopy__(self, memo: Any) -> _Missing:
        return self


#: "No default": an optional argument without a default is left out when absent.
MISSING: Any = _Missing()


@dataclass(frozen=True)
class ArgInfo:
    """One model-facing argument, for the prompt: its JSON Schema, whether required, its default."""

    name: str
    schema: dict
    required: bool
    default: Any = MISSING  # the JSON form of the default
    description: str | None = None


@dataclass(frozen=True)
class InjectedParam:
    """An argument the caller supplies through ``context`` (never the model).

    ``key`` is the context key it is read from (the parameter name, or ``"tool_call_id"`` for
    LangChain's ``InjectedToolCallId``); ``required`` is false when the parameter has a default.
    """

    name: str
    key: str
    required: bool
    is_call_id: bool = False


@dataclass(frozen=True)
class CompiledArgs:
    """A tool's model-facing arguments, compiled once at registration.

    ``validate(args, reject_unknown) -> dict`` raises :class:`ArgsError`; ``schema`` is the JSON
    Schema the model sees (injected arguments left out) and ``strict_schema`` its OpenAI strict form.
    """

    schema: dict
    strict_schema: dict
    params: tuple[ArgInfo, ...]
    validate: Callable[[dict, bool], dict] = field(repr=False)
    injected: tuple[InjectedParam, ...] = ()
