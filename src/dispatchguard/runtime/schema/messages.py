"""Validation errors worded for a model to correct itself: argument, path, expected and actual type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from dispatchguard.runtime.schema.base import ArgsError
from dispatchguard.runtime.schema.json_schemas import describe

__all__ = ["check_unknown", "format_validation_error", "shown_value"]

_EXPECTED = {"int_type": "integer", "int_parsing": "integer", "int_from_float": "integer",
             "float_type": "number", "float_parsing": "number", "string_type": "string",
             "bool_type": "boolean", "list_type": "array", "tuple_type": "array", "set_type": "array",
             "dict_type": "object", "model_type": "object", "model_attributes_type": "object",
             "dataclass_type": "object", "typed_dict_type": "object", "none_required": "null",
             "finite_number": "a finite number"}


def shown_value(v: Any) -> str:
    """A value as error messages show it: JSON type, then a bounded rendering (``string "ab"``)."""
    from dispatchguard.runtime.models import json_type_name, short_repr

    return f"{json_type_name(v)} {short_repr(v)}"


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
