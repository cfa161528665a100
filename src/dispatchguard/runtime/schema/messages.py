"""Validation errors worded for a model to correct itself: argument, path, expected and actual type."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from dispatchguard.runtime.schema.base import ArgsError
from dispatchguard.runtime.schema.json_schemas import describe

__all__ = ["check_unknown", "format_validation_error", "non_finite_error", "non_finite_path", "shown_value"]

_EXPECTED = {"int_type": "integer", "int_parsing": "integer", "int_from_float": "integer",
             "float_type": "number", "float_parsing": "number", "string_type": "string",
             "bool_type": "boolean", "list_type": "array", "tuple_type": "array", "set_type": "array",
             "dict_type": "object", "model_type": "object", "model_attributes_type": "object",
             "dataclass_type": "object", "typed_dict_type": "object", "none_required": "null",
             "finite_number": "a finite number"}


def shown_value(v: Any) -> str:
    """A value as error messages show it: its JSON type, then a bounded rendering (``string "ab"``,
    ``integer 5``); ``null`` alone; a float that JSON cannot carry by what it means (``1e400``
    and ``Infinity`` parse to infinity: "a number too large for a float")."""
    from dispatchguard.runtime.models import json_type_name, short_repr

    if v is None:
        return "null"
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN (not a number)" if math.isnan(v) else "a number too large for a float"
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 1024:
        return f"integer {short_repr(v)} (too large for a float)"
    return f"{json_type_name(v)} {short_repr(v)}"


def non_finite_path(value: Any, limit: int = 64) -> list[Any] | None:
    """The path (keys and indexes) to the first float in ``value`` that JSON cannot carry
    (infinite or NaN), or ``None``; containers nested deeper than ``limit`` are not searched."""
    pending: list[tuple[Any, list[Any]]] = [(value, [])]
    while pending:
        item, path = pending.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return path
        elif len(path) < limit and isinstance(item, Mapping):
            pending.extend((v, [*path, k]) for k, v in reversed(list(item.items())))
        elif len(path) < limit and isinstance(item, (list, tuple)):
            pending.extend((v, [*path, i]) for i, v in reversed(list(enumerate(item))))
    return None


def non_finite_error(tool: str, path: list[Any], value: Any, schemas: Mapping[str, dict]) -> ArgsError:
    """The message for a float JSON cannot carry at ``path`` (``value`` is what was there)."""
    arg = path[0] if path and isinstance(path[0], str) else None
    where = "".join(f"item {x}: " if isinstance(x, int) else f"field {x!r}: " for x in path[1:])
    expected = f"expected {describe(schemas.get(arg))}, " if arg is not None and len(path) == 1 else ""
    prefix = f"argument {arg!r}: " if arg is not None else ""
    return ArgsError(f"tool {tool!r}: {prefix}{where}{expected}got {shown_value(value)}", arg)


def format_validation_error(tool: str, exc: ValidationError, schemas: Mapping[str, dict]) -> ArgsError:
    """The first error of ``exc`` as our message: argument, path, expected and actual type."""
    errors = exc.errors(include_url=False)
    e = errors[0]
    loc = e.get("loc") or ()
    arg = loc[0] if loc and isinstance(loc[0], str) else None
    more = f" (and {len(errors) - 1} more error(s))" if len(errors) > 1 else ""
    if e["type"] == "missing" and len(loc) == 1:
        return ArgsError(f"tool {tool!r}: missing required argument {arg!r} ({describe(schemas.get(arg))}){more}",
                         arg)
    path = "".join(f"item {x}: " if isinstance(x, int) else f"field {x!r}: " for x in loc[1:])
    kind = e["type"]
    if kind == "missing":
        return ArgsError(f"tool {tool!r}: argument {arg!r}: {path}missing{more}", arg)
    if kind in _EXPECTED:
        what = f"expected {_EXPECTED[kind]}"
    elif kind in ("enum", "literal_error") and "expected" in (e.get("ctx") or {}):
        what = f"expected one of {e['ctx']['expected']}"
    elif kind in ("union_mismatch", "literal_mismatch"):
        what = e["msg"]
    else:
        msg = str(e["msg"])
        what = (msg[:1].lower() + msg[1:]).replace("input should be", "expected")
    where = f"argument {arg!r}: " if arg is not None else ""
    return ArgsError(f"tool {tool!r}: {where}{path}{what}, got {shown_value(e.get('input'))}{more}", arg)


def check_unknown(tool: str, args: dict, names: frozenset[str], reject: bool) -> None:
    """Arguments the tool does not declare: names must be strings; rejected by name if ``reject``."""
    from dispatchguard.runtime.models import json_type_name, short_repr

    extra = [k for k in args if k not in names]
    for k in extra:
        if not isinstance(k, str):
            raise ArgsError(f"tool {tool!r}: argument names must be strings, got {json_type_name(k)} {short_repr(k)}")
    if reject:
        shown = ", ".join(short_repr(k) for k in extra[:5])
        expected = ", ".join(repr(n) for n in sorted(names)) or "none"
        raise ArgsError(f"tool {tool!r}: unknown argument(s) {shown}; expected arguments: {expected}", extra[0])
