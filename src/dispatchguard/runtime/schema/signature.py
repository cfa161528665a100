"""Parameters from Python annotations: a function signature, ``Annotated`` metadata, pydantic ``Field``."""

from __future__ import annotations

import enum
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dispatchguard.runtime.schema.containers import AnyNode, ArrayNode, union
from dispatchguard.runtime.schema.core import MISSING, SchemaError
from dispatchguard.runtime.schema.nodes import EnumNode, Prim, TypeNode
from dispatchguard.runtime.schema.params import Param, _check_default

_NoneType = type(None)
_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", _NoneType: "null"}


def node_from_annotation(ann: Any, where: str) -> tuple[TypeNode, str | None]:
    """Translate a type annotation; returns ``(node, description from Annotated metadata)``."""
    if ann is inspect.Parameter.empty or ann is Any or ann is object:
        return AnyNode(), None
    if ann is None:
        return Prim("null"), None
    if ann in _SIMPLE:
        return Prim(_SIMPLE[ann]), None
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is typing.Annotated:
        node, desc = node_from_annotation(args[0], where)
        constraints: dict[str, Any] = {}
        for meta in args[1:]:
            if isinstance(meta, str):
                desc = meta
                continue
            desc = _apply_metadata(meta, constraints) or desc
        if constraints:
            node = _constrain(node, constraints, where)
        return node, desc
    if origin is typing.Union or (sys.version_info >= (3, 10) and origin is types.UnionType):
        return union([node_from_annotation(a, where)[0] for a in args]), None
    if origin is typing.Literal:
        return EnumNode(list(args)), None
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        members = list(ann)
        try:
            return EnumNode([m.value for m in members], members, ann.__name__), None
        except SchemaError as exc:
            raise SchemaError(f"{where}: enum {ann.__name__}: {exc}") from None
    if ann in (list, tuple, Sequence, typing.Sequence) or origin in (list, tuple, Sequence):
        if not args:
            return ArrayNode(None), None
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise SchemaError(f"{where}: fixed-length tuples are not supported; use list[T]")
        item, _ = node_from_annotation(args[0], where)
        try:
            return ArrayNode(None if isinstance(item, AnyNode) else item), None
        except SchemaError as exc:
            raise SchemaError(f"{where}: {exc}") from None
    if isinstance(ann, str):
        raise SchemaError(f"{where}: cannot resolve the annotation {ann!r}")
    raise SchemaError(
        f"{where}: unsupported type {getattr(ann, '__name__', ann)!r}; tool arguments are JSON "
        "primitives (str, int, float, bool, None), Literal/Enum values or lists of those"
    )


_META_KEYS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum",
              "multiple_of": "multipleOf", "min_length": "minLength", "max_length": "maxLength",
              "pattern": "pattern"}


def _apply_metadata(meta: Any, constraints: dict[str, Any]) -> str | None:
    """annotated_types constraints (Ge, Le, MinLen, ...) and pydantic FieldInfo; returns a description."""
    desc = None
    inner = getattr(meta, "metadata", None)
    if isinstance(getattr(meta, "description", None), str):
        desc = meta.description
    if isinstance(inner, list):  # pydantic FieldInfo
        for m in inner:
            _apply_metadata(m, constraints)
    for attr, key in _META_KEYS.items():
        val = getattr(meta, attr, None)
        if val is not None and not callable(val):
            constraints[key] = val
    return desc


def _constrain(node: TypeNode, constraints: dict[str, Any], where: str) -> TypeNode:
    try:
        if isinstance(node, Prim):
            if node.type == "string" and "pattern" in constraints and not isinstance(constraints["pattern"], str):
                constraints["pattern"] = constraints["pattern"].pattern
            return Prim(node.type, {**node.constraints, **constraints})
        if isinstance(node, ArrayNode):
            mapped = {"minItems" if k == "minLength" else "maxItems" if k == "maxLength" else k: v
                      for k, v in constraints.items()}
            return ArrayNode(node.items, {**node.constraints, **mapped})
    except SchemaError as exc:
        raise SchemaError(f"{where}: {exc}") from None
    raise SchemaError(f"{where}: constraints {sorted(constraints)} do not apply to {node.describe()}")


def _field_info_cls() -> Any:
    mod = sys.modules.get("pydantic.fields")
    return getattr(mod, "FieldInfo", None) if mod else None


def params_from_signature(func: Callable[..., Any], tool: str,
                          doc_params: Mapping[str, str] | None = None) -> list[Param]:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"tool {tool!r}: cannot read the signature of {func!r}: {exc}") from None
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable forward references: fall back per parameter
        hints = {}
    doc_params = doc_params or {}
    params = []
    items = list(sig.parameters.values())
    field_info = _field_info_cls()
    for p in items:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        where = f"tool {tool!r}, parameter {p.name!r}"
        if p.kind is p.POSITIONAL_ONLY:
            raise SchemaError(f"{where}: positional-only parameters cannot be passed by name")
        ann = hints.get(p.name, p.annotation)
        node, desc = node_from_annotation(ann, where)
        default = p.default
        required = default is inspect.Parameter.empty
        if field_info is not None and isinstance(default, field_info):
            fi = default
            constraints: dict[str, Any] = {}
            desc = _apply_metadata(fi, constraints) or desc
            if constraints:
                node = _constrain(node, constraints, where)
            fdefault = fi.default
            required = type(fdefault).__name__ == "PydanticUndefinedType" and fi.default_factory is None
            default = fdefault if not required and fi.default_factory is None else MISSING
            if fi.default_factory is not None:
                raise SchemaError(f"{where}: default_factory is not supported; use a plain default")
        param = Param(p.name, node, required=required,
                      default=MISSING if required else default,
                      description=desc or doc_params.get(p.name))
        if not required:
            _check_default(param, where)
        params.append(param)
    return params
