"""Strict validation of tool calls, and ``sanitize_args``.

``validate_tool_call`` never raises: every problem comes back as ``ValidationResult(valid=False,
error=..., kind=...)`` where ``kind`` is the dispatcher's error kind (``invalid_json``,
``invalid_action``, ``unknown_tool``, ``invalid_args``, ``payload_too_large``, ``clarification``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dispatchguard.runtime.json_text import safe_text, to_jsonable
from dispatchguard.runtime.models import (
    CLARIFICATION_ARG,
    CLARIFICATION_NAME,
    Clarification,
    ToolAction,
    ToolActionError,
    check_action_shape,
    decode_action,
)
from dispatchguard.runtime.registry import (
    MAX_NAME_LENGTH,
    TOOL_REGISTRY,
    ToolRegistry,
    ToolSpec,
)
from dispatchguard.runtime.schema import ArgsError

__all__ = ["ValidationResult", "display_name", "sanitize_args", "validate_tool_call"]

log = logging.getLogger("dispatchguard.runtime")
_PRIMS = (str, int, float, bool)


@dataclass(frozen=True)
class ValidationResult:
    """Outcome of :func:`validate_tool_call`.

    ``args`` are the validated arguments with defaults injected, in their JSON form (an enum as
    its value, a datetime as its ISO string: ready for ``json.dumps`` and for dispatching again);
    ``values`` are the same arguments as the tool receives them (enum members, datetimes, models).
    Both are empty when invalid. ``kind`` is ``None`` when valid, else the error kind;
    ``question`` is set for a clarification.
    """

    valid: bool
    error: str | None = None
    tool_name: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    kind: str | None = None
    question: str | None = None
    spec: ToolSpec | None = field(default=None, repr=False, compare=False)
    values: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def display_name(name: Any, limit: int = 64) -> str:
    """A tool name safe to show in messages: control characters escaped, length bounded."""
    text = name if isinstance(name, str) else safe_text(name)
    if len(text) > limit:
        text = text[:limit] + "..."
    if not text.isprintable():
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    return text


_BIG = 1 << 64


def _too_large(out: dict, spec: ToolSpec, limit: int) -> bool:
    """Whether the validated arguments, as JSON, exceed ``limit`` bytes. Only the arguments whose
    type can be long are looked at (``spec.int_args``/``spec.long_args``, from the schema)."""
    total = 0
    for name in spec.int_args:
        v = out.get(name)
        if type(v) is int and not -_BIG < v < _BIG:
            total += v.bit_length() >> 1  # decimal digits < bits / 3
    for name in spec.long_args:
        v = out.get(name)
        tv = type(v)
        if tv is str:
            total += len(v)
        elif tv is int:
            if v.bit_length() > 64:
                total += v.bit_length() >> 1
        elif v is not None and tv is not bool and tv is not float:  # arrays, objects, models: measure
            return _json_size(out) > limit
    # JSON needs at most 6 bytes per character ("\u0000"); 96 per argument for its name, a
    # number, quotes and separators
    return total * 6 + 96 * len(out) > limit and _json_size(out) > limit


def _json_size(out: dict) -> int:
    from dispatchguard.runtime.json_text import ensure_json_str

    return len(ensure_json_str(out).encode("utf-8", "surrogatepass"))


def _fail(kind: str, error: str, tool: str | None = None, question: str | None = None) -> ValidationResult:
    return ValidationResult(valid=False, error=error, tool_name=tool, kind=kind, question=question)


def validate_tool_call(
    payload: Any,
    registry: ToolRegistry | None = None,
    *,
    unknown_args: str | None = None,
    max_bytes: int | None = None,
) -> ValidationResult:
    """Validate a tool call strictly against the registry; never raises.

    ``payload`` is a dict (any mapping), a :class:`ToolAction`, a :class:`Clarification` or JSON
    text (str/bytes). Rules: exactly the keys
    ``name`` (or ``tool``) and ``args``; ``args`` an object of JSON values; a registered tool; the
    tool's compiled validator (strict types: ``"5"`` is not an integer, ``True`` is not an integer,
    ``2.5`` is not an integer, ``1`` is not a boolean; an integer is accepted for a number; defaults
    injected; ``null`` for an optional argument means its default); unknown arguments dropped
    (``unknown_args="drop"``) or rejected by name (``"reject"``); JSON text and ``args`` at most
    ``max_bytes`` (registry default: 1 MiB). Injected arguments are not the model's: they are not
    in ``args`` (the dispatcher adds them from its ``context``). Name ``"None"`` is a clarification
    request: invalid, ``kind="clarification"``.
    """
    opts = call_options(registry, unknown_args, max_bytes)
    if type(opts) is not tuple:
        return opts
    r = check_call(payload, *opts)
    if type(r) is tuple:
        spec, out = r
        return ValidationResult(valid=True, tool_name=spec.name, args=to_jsonable(out), spec=spec, values=out)
    return r


def call_options(registry: ToolRegistry | None, unknown_args: str | None,
                 max_bytes: int | None) -> tuple[ToolRegistry, bool, int] | ValidationResult:
    """The options of a call as :func:`check_call` takes them, ``(registry, reject unknown
    arguments, byte limit)``, with the registry's defaults filled in; else a failed
    :class:`ValidationResult` of kind ``invalid_call`` naming the bad option."""
    reg = TOOL_REGISTRY if registry is None else registry
    if not isinstance(reg, ToolRegistry):
        return _fail("invalid_call", f"registry must be a ToolRegistry, got {type(reg).__name__}")
    limit = reg.max_bytes if max_bytes is None else max_bytes
    if type(limit) is not int or limit <= 0:
        return _fail("invalid_call", f"max_bytes must be a positive int, got {display_name(limit)!r}")
    policy = reg.unknown_args if unknown_args is None else unknown_args
    if policy not in ("drop", "reject"):
        return _fail("invalid_call", f"unknown_args must be 'drop' or 'reject', got {display_name(policy)!r}")
    return reg, policy == "reject", limit


def check_call(payload: Any, reg: ToolRegistry, reject: bool, limit: int) -> tuple[ToolSpec, dict] | ValidationResult:
    """The validator proper: ``(spec, args)`` when valid, else a failed :class:`ValidationResult`."""
    name: Any = None
    try:
        if type(payload) is dict and len(payload) == 2 and type(name := payload.get("name")) is str and \
                type(args := payload.get("args")) is dict:
            sized = False  # the usual shape; anything unusual goes through _action_parts
        elif type(payload) is ToolAction:
            name, args, sized = payload.name, payload.args, False
        elif type(payload) is str:  # a model's reply
            name, args = check_action_shape(decode_action(payload, limit), check_values=False)
            sized = True
        else:
            name, args, sized = _action_parts(payload, limit)
        spec = reg._specs.get(name) or reg.resolve(name)
        if spec is None:
            return _not_a_tool(name, args, reg)
        name = spec.name  # an export name resolves to the registered name
        out = spec.validate(args, reject)
        if sized or not _args_too_large(out, spec, limit):
            return spec, out
        return _fail("payload_too_large", f"tool {spec.name!r}: args are larger than the limit of {limit} bytes",
                     spec.name)
    except Exception as exc:
        return _failure(exc, name)


def _action_parts(payload: Any, limit: int) -> tuple[Any, Any, bool]:
    """A call's name and args, and whether its size is bounded already (JSON text within the limit)."""
    if isinstance(payload, (str, bytes, bytearray)):
        # subclasses of the text types are read as the plain text they hold
        text = bytes(payload) if isinstance(payload, (bytes, bytearray)) else str.__str__(payload)
        name, args = check_action_shape(decode_action(text, limit), check_values=False)
        return name, args, True
    if isinstance(payload, ToolAction):  # a subclass
        return payload.name, payload.args, False
    if isinstance(payload, Clarification):
        return CLARIFICATION_NAME, {CLARIFICATION_ARG: payload.question}, False
    name, args = check_action_shape(payload, check_values=False)
    return name, args, False


def _not_a_tool(name: str, args: dict, reg: ToolRegistry) -> ValidationResult:
    """The failure for a name no tool has: a clarification request, or an unknown tool."""
    if name == CLARIFICATION_NAME:
        q = args.get(CLARIFICATION_ARG)
        question = q if isinstance(q, str) else (safe_text(q) if q is not None else "")
        return _fail("clarification", f"the model asks for clarification: {question}", CLARIFICATION_NAME, question)
    known = ", ".join(repr(n) for n in list(reg._specs)[:30]) or "none registered"
    shown = name if len(name) <= MAX_NAME_LENGTH else name[:MAX_NAME_LENGTH] + "..."
    return _fail("unknown_tool", f"unknown tool {display_name(name)!r}; available tools: {known}", shown)


def _args_too_large(out: dict, spec: ToolSpec, limit: int) -> bool:
    if spec.long_args:
        return _too_large(out, spec, limit)
    for arg in spec.int_args:  # integers only: long past 64 bits
        v = out.get(arg)
        if type(v) is int and not -_BIG < v < _BIG:
            return _too_large(out, spec, limit)
    return False


# What a failed check says, by the exception's type; anything else is a malformed call.
_FAILURES: tuple[tuple[type[Exception], Any], ...] = (
    (ArgsError, lambda exc: ("invalid_args", exc.message)),
    (RecursionError, lambda exc: ("invalid_args", "argument values are nested too deeply")),
    (ToolActionError, lambda exc: (exc.kind, exc.message)),
)


def _failure(exc: Exception, name: Any) -> ValidationResult:
    tool = name if isinstance(name, str) else None
    for types, describe in _FAILURES:
        if isinstance(exc, types):
            kind, message = describe(exc)
            return _fail(kind, message, tool)
    log.debug("validate_tool_call: unexpected error", exc_info=True)
    return _fail("invalid_action", f"malformed tool call: {type(exc).__name__}: {safe_text(exc)}", tool)


def sanitize_args(args: Mapping[str, Any] | None) -> dict[str, Any]:
    """Primitives and lists of primitives pass; tuples of primitives become lists; anything else
    becomes ``str(value)`` (``repr`` or a placeholder if ``str`` raises). Non-string keys become
    ``str(key)``. ``None`` gives ``{}``; a non-mapping raises ``TypeError``.

    Use this when you build arguments for logs or metrics outside the validator.
    """
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise TypeError(f"sanitize_args expects a mapping, got {type(args).__name__}")
    out: dict[str, Any] = {}
    for k, v in args.items():
        key = k if type(k) is str else safe_text(k)
        if v is None or isinstance(v, _PRIMS):
            out[key] = v
        elif isinstance(v, (list, tuple)) and all(x is None or isinstance(x, _PRIMS) for x in v):
            out[key] = list(v)
        else:
            out[key] = safe_text(v)
    return out


