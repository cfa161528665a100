"""Arguments from a JSON Schema document (an explicit dict, LangChain's dict ``args_schema``, a
pydantic v1 model's ``.schema()``), validated by jsonschema-rs.

JSON Schema semantics throughout (the tool gets the JSON values): ``pattern`` is a search with the
linear-time Rust ``regex`` engine (``^[a-z]+$`` rejects ``"abc\\n"``), ``format`` is checked
(``date-time``, ``uuid``, ``email``...), and ``2.0`` counts as an integer. On top of it, our call
rules: unknown arguments dropped or rejected by name, defaults injected, ``null`` for an optional
argument whose schema does not admit it means the default.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import jsonschema_rs

from dispatchguard.runtime.json_text import to_jsonable
from dispatchguard.runtime.schema.base import ArgsError, CompiledArgs, SchemaError
from dispatchguard.runtime.schema.json_schemas import args_of, describe, strict_schema, tidy_schema
from dispatchguard.runtime.schema.messages import check_unknown, non_finite_error, non_finite_path, shown_value

__all__ = ["compile_json_schema"]

_IMMUTABLE = (str, int, float, bool, type(None))


def _no_remote(uri: str) -> Any:
    raise ValueError(f"remote $ref {uri!r} is not allowed in a tool schema")


def _validator(schema: Mapping[str, Any]) -> Any:
    return jsonschema_rs.validator_for(dict(schema), validate_formats=True, retriever=_no_remote,
                                       pattern_options=jsonschema_rs.RegexOptions())


def _message(tool: str, error: Any, schemas: Mapping[str, dict]) -> ArgsError:
    path = list(getattr(error, "instance_path", None) or [])
    kind = getattr(error, "kind", None)
    kind_name = type(kind).__name__
    if kind_name == "Required" and not path:
        name = getattr(kind, "property", None)
        return ArgsError(f"tool {tool!r}: missing required argument {name!r} ({describe(schemas.get(name))})",
                         name if isinstance(name, str) else None)
    arg = path[0] if path and isinstance(path[0], str) else None
    where = "".join(f"item {x}: " if isinstance(x, int) else f"field {x!r}: " for x in path[1:])
    if kind_name == "Type":
        types = getattr(kind, "types", None) or []
        what = f"expected {' or '.join(str(t) for t in types)}, got {shown_value(getattr(error, 'instance', None))}"
    else:
        what = str(getattr(error, "message", error))
    prefix = f"argument {arg!r}: " if arg is not None else ""
    return ArgsError(f"tool {tool!r}: {prefix}{where}{what}", arg)


def _schema_map(props: Any) -> bool:
    return isinstance(props, Mapping) and all(isinstance(v, Mapping) for v in props.values())


def _name_list(required: Any) -> bool:
    return isinstance(required, list) and all(isinstance(r, str) for r in required)


#: What an argument schema must be, checked in order: (test, the error's wording).
_SHAPE_CHECKS: tuple[tuple[Any, str], ...] = (
    (lambda s: isinstance(s, Mapping), "the argument schema must be a JSON Schema object (dict)"),
    (lambda s: s.get("type", "object") == "object", "the argument schema must have type 'object'"),
    (lambda s: _schema_map(s.get("properties", {})), "'properties' must map names to schemas"),
    (lambda s: _name_list(s.get("required", [])), "'required' must be an array of names"),
)


def _checked_shape(schema: Any, where: str) -> tuple[Mapping[str, Any], list[str]]:
    """The schema's properties and required names, or :class:`SchemaError` saying what is wrong."""
    for test, wording in _SHAPE_CHECKS:
        if not test(schema):
            raise SchemaError(f"{where}: {wording}")
    props, required = schema.get("properties", {}), schema.get("required", [])
    missing = [r for r in required if r not in props]
    if missing:
        raise SchemaError(f"{where}: required argument(s) {missing} have no property schema")
    try:
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"{where}: the argument schema is not JSON: {exc}") from None
    return props, required


def _optional_args(props: Mapping[str, Any], required: list[str], props_valid: Mapping[str, Any],
                   where: str) -> tuple[dict[str, Any], frozenset[str]]:
    """The optional arguments' checked defaults, and those whose schema refuses ``null`` (for
    them ``null`` means the default)."""
    defaults: dict[str, Any] = {}
    null_to_default: set[str] = set()
    for name, sub in props.items():
        if name in required:
            continue
        valid = props_valid[name]
        if "default" in sub:
            if not valid.is_valid(sub["default"]):
                raise SchemaError(f"{where}, argument {name!r}: the default {sub['default']!r} does not match "
                                  "its schema")
            defaults[name] = copy.deepcopy(sub["default"])
        if not valid.is_valid(None):
            null_to_default.add(name)
    return defaults, frozenset(null_to_default)


def compile_json_schema(schema: Any, tool: str, doc_params: Mapping[str, str] | None = None) -> CompiledArgs:
    """Compile an object schema's properties into a validator (see the module docstring)."""
    where = f"tool {tool!r}"
    props, required = _checked_shape(schema, where)
    root = {k: copy.deepcopy(v) for k, v in schema.items() if k in ("$defs", "definitions")}
    try:
        validator = _validator({**schema, "type": "object"})
        props_valid = {name: _validator({**root, **sub}) for name, sub in props.items()}
    except Exception as exc:
        raise SchemaError(f"{where}: invalid JSON Schema: {exc}") from None
    defaults, null_to_default = _optional_args(props, required, props_valid, where)
    properties = {name: dict(sub) for name, sub in props.items()}
    for name, text in (doc_params or {}).items():
        if name in properties and "description" not in properties[name]:
            properties[name]["description"] = text
    tidy = tidy_schema({"type": "object", "properties": properties, "required": list(required),
                        "additionalProperties": False, **root})
    params = args_of(tidy)
    schemas = {p.name: p.schema for p in params}
    validate = _args_validator(tool, validator, frozenset(props), defaults, null_to_default, schemas)
    return CompiledArgs(tidy, strict_schema(params, tidy), params, validate)


def _args_validator(tool: str, validator: Any, names: frozenset[str], defaults: dict[str, Any],
                    null_to_default: frozenset[str], schemas: Mapping[str, dict]) -> Any:
    """``validate(args, reject_unknown) -> dict``: our call rules, then jsonschema-rs."""
    mutable = {k for k, v in defaults.items() if not isinstance(v, _IMMUTABLE)}

    def validate(args: dict, reject_unknown: bool = False) -> dict:
        out = {k: v for k, v in args.items() if k in names}
        if len(out) != len(args):
            check_unknown(tool, args, names, reject_unknown)
        for k in null_to_default:
            if k in out and out[k] is None:
                del out[k]
        for k, d in defaults.items():
            if k not in out:
                out[k] = copy.deepcopy(d) if k in mutable else d
        try:
            error = next(iter(validator.iter_errors(out)), None)
        except (ValueError, TypeError, OverflowError):  # subclasses of str/int/float: check their JSON form
            out = to_jsonable(out)
            error = next(iter(validator.iter_errors(out)), None)
        if error is not None:
            raise _args_error(tool, args, error, schemas)
        return out

    return validate


def _args_error(tool: str, args: dict, error: Any, schemas: Mapping[str, dict]) -> ArgsError:
    # jsonschema-rs reads a float JSON cannot carry as null: name it rather than "null"
    path = non_finite_path(args)
    if path is None:
        return _message(tool, error, schemas)
    value: Any = args
    for step in path:
        value = value[step]
    return non_finite_error(tool, path, value, schemas)
