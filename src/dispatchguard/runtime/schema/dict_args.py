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


def compile_json_schema(schema: Any, tool: str, doc_params: Mapping[str, str] | None = None) -> CompiledArgs:
    """Compile an object schema's properties into a validator (see the module docstring)."""
    where = f"tool {tool!r}"
    if not isinstance(schema, Mapping):
        raise SchemaError(f"{where}: the argument schema must be a JSON Schema object (dict)")
    if schema.get("type", "object") != "object":
        raise SchemaError(f"{where}: the argument schema must have type 'object'")
    props = schema.get("properties", {})
    if not isinstance(props, Mapping) or not all(isinstance(v, Mapping) for v in props.values()):
        raise SchemaError(f"{where}: 'properties' must map names to schemas")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"{where}: 'required' must be an array of names")
    missing = [r for r in required if r not in props]
    if missing:
        raise SchemaError(f"{where}: required argument(s) {missing} have no property schema")
    try:
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"{where}: the argument schema is not JSON: {exc}") from None
    root = {k: copy.deepcopy(v) for k, v in schema.items() if k in ("$defs", "definitions")}
    try:
        validator = _validator({**schema, "type": "object"})
        props_valid = {name: _validator({**root, **sub}) for name, sub in props.items()}
    except Exception as exc:
        raise SchemaError(f"{where}: invalid JSON Schema: {exc}") from None
    defaults: dict[str, Any] = {}
    null_to_default: set[str] = set()
    for name, sub in props.items():
        if name in required:
            continue
        if "default" in sub:
            if not props_valid[name].is_valid(sub["default"]):
                raise SchemaError(f"{where}, argument {name!r}: the default {sub['default']!r} does not match "
                                  "its schema")
            defaults[name] = copy.deepcopy(sub["default"])
        if not props_valid[name].is_valid(None):
            null_to_default.add(name)
    properties = {name: dict(sub) for name, sub in props.items()}
    for name, text in (doc_params or {}).items():
        if name in properties and "description" not in properties[name]:
            properties[name]["description"] = text
    tidy = tidy_schema({"type": "object", "properties": properties, "required": list(required),
                        "additionalProperties": False, **root})
    params = args_of(tidy)
    names = frozenset(props)
    schemas = {p.name: p.schema for p in params}
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
            # jsonschema-rs reads a float JSON cannot carry as null: name it rather than "null"
            path = non_finite_path(args)
            if path is not None:
                value: Any = args
                for step in path:
                    value = value[step]
                raise non_finite_error(tool, path, value, schemas)
            raise _message(tool, error, schemas)
        return out

    return CompiledArgs(tidy, strict_schema(params, tidy), params, validate)
