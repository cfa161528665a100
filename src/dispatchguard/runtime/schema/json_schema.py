"""Parameters from JSON Schema: explicit dicts and pydantic ``args_schema`` models."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from dispatchguard.runtime.schema.containers import AnyNode, ArrayNode, union
from dispatchguard.runtime.schema.core import (
    _ANNOTATIONS,
    _CONSTRAINT_KEYS,
    _PRIM_TYPES,
    MISSING,
    SchemaError,
)
from dispatchguard.runtime.schema.nodes import EnumNode, Prim, TypeNode
from dispatchguard.runtime.schema.params import Param, _check_default


def _resolve(s: Any, root: Mapping[str, Any], where: str, seen: tuple[str, ...] = ()) -> dict:
    if not isinstance(s, Mapping):
        raise SchemaError(f"{where}: a schema must be an object, got {type(s).__name__}")
    ref = s.get("$ref")
    if ref is None:
        return dict(s)
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise SchemaError(f"{where}: only local $ref ('#/...') is supported, got {ref!r}")
    if ref in seen:
        raise SchemaError(f"{where}: recursive $ref {ref!r} is not supported")
    target: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            raise SchemaError(f"{where}: unresolvable $ref {ref!r}")
        target = target[part]
    merged = {**_resolve(target, root, where, (*seen, ref)), **{k: v for k, v in s.items() if k != "$ref"}}
    return merged


def node_from_json_schema(s: Any, root: Mapping[str, Any], where: str) -> TypeNode:
    s = _resolve(s, root, where)
    for combo in ("anyOf", "oneOf"):
        if combo in s:
            branches = s[combo]
            if not isinstance(branches, list) or not branches:
                raise SchemaError(f"{where}: {combo!r} must be a non-empty array")
            return union([node_from_json_schema(b, root, where) for b in branches])
    if "allOf" in s:
        parts = s["allOf"]
        if not isinstance(parts, list) or len(parts) != 1:
            raise SchemaError(f"{where}: 'allOf' is supported with a single schema only")
        return node_from_json_schema({**{k: v for k, v in s.items() if k != "allOf"}, **_resolve(parts[0], root, where)}, root, where)
    if "const" in s:
        return EnumNode([s["const"]])
    if "enum" in s:
        vals = s["enum"]
        if not isinstance(vals, list):
            raise SchemaError(f"{where}: 'enum' must be an array")
        try:
            return EnumNode(vals)
        except SchemaError as exc:
            raise SchemaError(f"{where}: {exc}") from None
    t = s.get("type")
    unknown = set(s) - _ANNOTATIONS - {"type", "items", "$defs", "definitions"} - {
        k for ks in _CONSTRAINT_KEYS.values() for k in ks}
    if unknown:
        raise SchemaError(f"{where}: unsupported keyword(s) {sorted(unknown)}")
    if t is None:
        return AnyNode()
    types_ = t if isinstance(t, list) else [t]
    nodes: list[TypeNode] = []
    for ty in types_:
        if ty == "array":
            items = s.get("items")
            item = None if items is None else node_from_json_schema(items, root, f"{where} items")
            try:
                nodes.append(ArrayNode(None if isinstance(item, AnyNode) else item,
                                       {k: s[k] for k in _CONSTRAINT_KEYS["array"] if k in s}))
            except SchemaError as exc:
                raise SchemaError(f"{where}: {exc}") from None
        elif ty in _PRIM_TYPES:
            keys = _CONSTRAINT_KEYS.get(ty, ())
            try:
                nodes.append(Prim(ty, {k: s[k] for k in keys if k in s}))
            except SchemaError as exc:
                raise SchemaError(f"{where}: {exc}") from None
        else:
            raise SchemaError(
                f"{where}: unsupported type {ty!r}; tool arguments are JSON primitives or arrays of them"
            )
    return union(nodes)


def params_from_json_schema(schema: Any, tool: str) -> list[Param]:
    where = f"tool {tool!r}"
    if not isinstance(schema, Mapping):
        raise SchemaError(f"{where}: the argument schema must be a JSON Schema object (dict)")
    root = schema
    if schema.get("type", "object") != "object":
        raise SchemaError(f"{where}: the argument schema must have type 'object'")
    props = schema.get("properties", {})
    if not isinstance(props, Mapping):
        raise SchemaError(f"{where}: 'properties' must be an object")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"{where}: 'required' must be an array of names")
    missing = [r for r in required if r not in props]
    if missing:
        raise SchemaError(f"{where}: required argument(s) {missing} have no property schema")
    params = []
    for name, ps in props.items():
        pw = f"{where}, argument {name!r}"
        node = node_from_json_schema(ps, root, pw)
        resolved = _resolve(ps, root, pw)
        req = name in required
        default = resolved.get("default", MISSING) if not req else MISSING
        desc = resolved.get("description")
        param = Param(name, node, required=req, default=copy.deepcopy(default),
                      description=desc if isinstance(desc, str) else None)
        if not req:
            _check_default(param, pw)
        params.append(param)
    return params


def params_from_model(model: Any, tool: str) -> list[Param]:
    try:
        schema = model.model_json_schema()
    except Exception as exc:  # noqa: BLE001
        raise SchemaError(f"tool {tool!r}: cannot build the JSON Schema of {model!r}: {exc}") from None
    return params_from_json_schema(schema, tool)
