"""Argument types of a tool: built once at registration, then exported and checked per call.

A tool's arguments are JSON primitives or arrays of primitives (the ``ToolAction`` contract), so
the supported type language is small and the validator is a set of precompiled closures (no
pydantic on the hot path). Three sources produce the same internal :class:`Param` list:
a function signature (plus docstring), a pydantic model class (``args_schema``), or an explicit
JSON Schema dict. From it we derive the JSON Schema (``ToolRegistry.schema``), the OpenAI strict
variant, and the validator. Anything outside the language is rejected at registration with
:class:`SchemaError`.
"""

from __future__ import annotations

import copy
import enum
import inspect
import math
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MISSING",
    "ArgsError",
    "Param",
    "SchemaError",
    "TypeNode",
    "build_json_schema",
    "build_strict_schema",
    "compile_validator",
    "params_from_json_schema",
    "params_from_model",
    "params_from_signature",
    "parse_docstring",
]


class SchemaError(ValueError):
    """A tool's argument types cannot be expressed as JSON primitives / arrays of primitives."""


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


MISSING: Any = _Missing()
_BAD: Any = object()
_PRIM_TYPES = ("string", "integer", "number", "boolean", "null")
_ANY_PRIM = ["string", "number", "boolean", "null"]
_CONSTRAINT_KEYS = {
    "string": ("minLength", "maxLength", "pattern"),
    "integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "array": ("minItems", "maxItems"),
}
# Keywords that only annotate (ignored by the validator, kept out of our schemas).
_ANNOTATIONS = {"title", "description", "default", "examples", "format", "deprecated", "readOnly",
                "writeOnly", "$comment", "contentMediaType", "contentEncoding"}


def _json_type(v: Any) -> str:
    from dispatchguard.runtime.models import json_type_name

    return json_type_name(v)


def _show(v: Any) -> str:
    from dispatchguard.runtime.models import short_repr

    return short_repr(v)


# --------------------------------------------------------------------------------------------
# type nodes


class TypeNode:
    """One argument type. ``check(v)`` returns the (possibly converted) value or ``_BAD``."""

    nullable = False

    def schema(self) -> dict:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def checker(self) -> Callable[[Any], Any]:
        raise NotImplementedError

    def explain(self, v: Any) -> str:
        return f"expected {self.describe()}, got {_json_type(v)} {_show(v)}"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class Prim(TypeNode):
    def __init__(self, type_: str, constraints: Mapping[str, Any] | None = None) -> None:
        if type_ not in _PRIM_TYPES:
            raise SchemaError(f"unsupported type {type_!r}")
        self.type = type_
        self.constraints = dict(constraints or {})
        self.nullable = type_ == "null"
        allowed = _CONSTRAINT_KEYS.get(type_, ())
        for k, val in self.constraints.items():
            if k not in allowed:
                raise SchemaError(f"unsupported keyword {k!r} for type {type_!r}")
            if k == "pattern":
                if not isinstance(val, str):
                    raise SchemaError("'pattern' must be a string")
                try:
                    re.compile(val)
                except re.error as exc:
                    raise SchemaError(f"invalid pattern {val!r}: {exc}") from None
            elif k in ("minLength", "maxLength"):
                if not _is_int(val) or val < 0:
                    raise SchemaError(f"{k!r} must be a non-negative integer")
            elif not (_is_int(val) or isinstance(val, float)) or not math.isfinite(val):
                raise SchemaError(f"{k!r} must be a finite number")
            elif k == "multipleOf" and val <= 0:
                raise SchemaError("'multipleOf' must be positive")

    def schema(self) -> dict:
        return {"type": self.type, **self.constraints}

    def describe(self) -> str:
        names = {"string": "string", "integer": "integer", "number": "number",
                 "boolean": "boolean", "null": "null"}
        text = names[self.type]
        c = self.constraints
        parts = []
        for key, op in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="),
                        ("exclusiveMaximum", "<")):
            if key in c:
                parts.append(f"{op} {c[key]}")
        if "multipleOf" in c:
            parts.append(f"a multiple of {c['multipleOf']}")
        if "minLength" in c:
            parts.append(f"at least {c['minLength']} characters")
        if "maxLength" in c:
            parts.append(f"at most {c['maxLength']} characters")
        if "pattern" in c:
            parts.append(f"matching {c['pattern']!r}")
        return text + (" (" + ", ".join(parts) + ")" if parts else "")

    def checker(self) -> Callable[[Any], Any]:
        t = self.type
        if t == "string":
            def base(v: Any) -> Any:
                if type(v) is str:
                    return v
                return str.__str__(v) if isinstance(v, str) else _BAD
        elif t == "integer":
            def base(v: Any) -> Any:
                if type(v) is int:
                    return v
                return int.__index__(v) if _is_int(v) else _BAD
        elif t == "number":
            def base(v: Any) -> Any:
                tv = type(v)
                if tv is float:
                    return v if math.isfinite(v) else _BAD
                if tv is int or _is_int(v):
                    try:
                        return float(v)
                    except OverflowError:
                        return _BAD
                if isinstance(v, float):
                    f = float(v)
                    return f if math.isfinite(f) else _BAD
                return _BAD
        elif t == "boolean":
            def base(v: Any) -> Any:
                return v if type(v) is bool else _BAD
        else:
            def base(v: Any) -> Any:
                return None if v is None else _BAD
        if not self.constraints:
            return base
        tests = _constraint_tests(self.constraints)

        def constrained(v: Any) -> Any:
            r = base(v)
            if r is _BAD:
                return _BAD
            for test in tests:
                if not test(r):
                    return _BAD
            return r

        return constrained


def _constraint_tests(c: Mapping[str, Any]) -> list[Callable[[Any], bool]]:
    tests: list[Callable[[Any], bool]] = []
    if "minimum" in c:
        lo = c["minimum"]
        tests.append(lambda v: v >= lo)
    if "exclusiveMinimum" in c:
        xlo = c["exclusiveMinimum"]
        tests.append(lambda v: v > xlo)
    if "maximum" in c:
        hi = c["maximum"]
        tests.append(lambda v: v <= hi)
    if "exclusiveMaximum" in c:
        xhi = c["exclusiveMaximum"]
        tests.append(lambda v: v < xhi)
    if "multipleOf" in c:
        m = c["multipleOf"]

        def multiple(v: Any) -> bool:
            if _is_int(v) and _is_int(m):
                return v % m == 0
            q = v / m
            return math.isfinite(q) and abs(q - round(q)) <= 1e-9 * max(1.0, abs(q))

        tests.append(multiple)
    if "minLength" in c:
        mn = c["minLength"]
        tests.append(lambda v: _codepoints(v) >= mn)
    if "maxLength" in c:
        mx = c["maxLength"]
        tests.append(lambda v: _codepoints(v) <= mx)
    if "pattern" in c:
        rx = re.compile(c["pattern"])
        tests.append(lambda v: rx.search(v) is not None)
    return tests


def _codepoints(s: str) -> int:
    return len(s)


class EnumNode(TypeNode):
    """A fixed set of primitive values (``Literal[...]``, an ``Enum`` class, JSON ``enum``/``const``)."""

    def __init__(self, values: Sequence[Any], members: Sequence[Any] | None = None,
                 name: str | None = None) -> None:
        if not values:
            raise SchemaError("an enum needs at least one value")
        self.values = list(values)
        self.name = name
        for v in self.values:
            if not (v is None or type(v) in (str, int, float, bool)):
                raise SchemaError(f"enum values must be JSON primitives, got {v!r}")
            if type(v) is float and not math.isfinite(v):
                raise SchemaError("enum values must be finite")
        self.members = list(members) if members is not None else list(values)
        self.nullable = any(v is None for v in self.values)
        # (type, value) keys: True is not 1, 1 is not 1.0, "1" is not 1.
        self._lookup = {(_kind(v), v): m for v, m in zip(self.values, self.members)}

    def schema(self) -> dict:
        kinds = sorted({_kind(v) for v in self.values}, key=_PRIM_TYPES.index)
        out: dict[str, Any] = {"enum": list(self.values)}
        if len(kinds) == 1:
            out = {"type": kinds[0], **out}
        elif kinds:
            out = {"type": kinds, **out}
        return out

    def describe(self) -> str:
        shown = ", ".join(_show(v) for v in self.values[:12])
        more = ", ..." if len(self.values) > 12 else ""
        return f"one of {shown}{more}"

    def checker(self) -> Callable[[Any], Any]:
        lookup = self._lookup

        def check(v: Any) -> Any:
            try:
                return lookup.get((_kind(v), v), _BAD)
            except TypeError:  # unhashable
                return _BAD

        return check


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    t = type(v)
    if t is bool:
        return "boolean"
    if t is int:
        return "integer"
    if t is float:
        return "number"
    if t is str:
        return "string"
    return "other"


class ArrayNode(TypeNode):
    def __init__(self, items: TypeNode | None, constraints: Mapping[str, Any] | None = None) -> None:
        if items is not None and isinstance(items, (ArrayNode, AnyNode)) or (
            isinstance(items, UnionNode) and any(isinstance(b, (ArrayNode, AnyNode)) for b in items.branches)
        ):
            raise SchemaError("array items must be primitives (arrays of arrays are not tool arguments)")
        self.items = items
        self.constraints = dict(constraints or {})
        for k, val in self.constraints.items():
            if k not in _CONSTRAINT_KEYS["array"]:
                raise SchemaError(f"unsupported keyword {k!r} for type 'array'")
            if not _is_int(val) or val < 0:
                raise SchemaError(f"{k!r} must be a non-negative integer")

    def schema(self) -> dict:
        items = self.items.schema() if self.items is not None else {"type": list(_ANY_PRIM)}
        return {"type": "array", "items": items, **self.constraints}

    def describe(self) -> str:
        inner = self.items.describe() if self.items is not None else "primitive"
        text = f"array of {inner}"
        c = self.constraints
        if "minItems" in c:
            text += f" (at least {c['minItems']} items)"
        if "maxItems" in c:
            text += f" (at most {c['maxItems']} items)"
        return text

    def checker(self) -> Callable[[Any], Any]:
        item = self.items.checker() if self.items is not None else _any_prim
        mn = self.constraints.get("minItems", 0)
        mx = self.constraints.get("maxItems")

        def check(v: Any) -> Any:
            if type(v) is not list:
                return _BAD
            n = len(v)
            if n < mn or (mx is not None and n > mx):
                return _BAD
            out = []
            for x in v:
                r = item(x)
                if r is _BAD:
                    return _BAD
                out.append(r)
            return out

        return check

    def explain(self, v: Any) -> str:
        if type(v) is list and self.items is not None:
            item = self.items.checker()
            for i, x in enumerate(v):
                if item(x) is _BAD:
                    return f"item {i}: {self.items.explain(x)}"
        return super().explain(v)


def _any_prim(v: Any) -> Any:
    if v is None or type(v) in (str, int, bool):
        return v
    if type(v) is float:
        return v if math.isfinite(v) else _BAD
    return _BAD


class AnyNode(TypeNode):
    """Unannotated / ``Any``: any primitive, or an array of primitives."""

    nullable = True

    def schema(self) -> dict:
        return {"anyOf": [{"type": list(_ANY_PRIM)},
                          {"type": "array", "items": {"type": list(_ANY_PRIM)}}]}

    def describe(self) -> str:
        return "a primitive or an array of primitives"

    def checker(self) -> Callable[[Any], Any]:
        def check(v: Any) -> Any:
            if type(v) is list:
                for x in v:
                    if _any_prim(x) is _BAD:
                        return _BAD
                return list(v)
            return _any_prim(v)

        return check


class UnionNode(TypeNode):
    def __init__(self, branches: Sequence[TypeNode]) -> None:
        flat: list[TypeNode] = []
        for b in branches:
            flat.extend(b.branches if isinstance(b, UnionNode) else [b])
        if not flat:
            raise SchemaError("an empty union has no values")
        self.branches = flat
        self.nullable = any(b.nullable for b in flat)

    def schema(self) -> dict:
        if all(isinstance(b, Prim) and not b.constraints for b in self.branches):
            kinds = []
            for b in self.branches:
                if b.type not in kinds:  # pragma: no branch
                    kinds.append(b.type)
            return {"type": kinds if len(kinds) > 1 else kinds[0]}
        return {"anyOf": [b.schema() for b in self.branches]}

    def describe(self) -> str:
        return " or ".join(b.describe() for b in self.branches)

    def checker(self) -> Callable[[Any], Any]:
        checks = [b.checker() for b in self.branches]
        # Exact-type branches first so that an int for ``float | int`` stays an int.
        order = sorted(range(len(checks)), key=lambda i: isinstance(self.branches[i], Prim)
                       and self.branches[i].type == "number")
        checks = [checks[i] for i in order]

        def check(v: Any) -> Any:
            for c in checks:
                r = c(v)
                if r is not _BAD:
                    return r
            return _BAD

        return check


def union(branches: Sequence[TypeNode]) -> TypeNode:
    u = UnionNode(branches)
    return u.branches[0] if len(u.branches) == 1 else u


# --------------------------------------------------------------------------------------------
# parameters


@dataclass
class Param:
    name: str
    node: TypeNode
    required: bool = True
    default: Any = MISSING  # MISSING: optional and left out when absent
    description: str | None = None
    python_default: Any = MISSING  # the value injected (an Enum member, say); defaults to default

    @property
    def injected_default(self) -> Any:
        return self.default if self.python_default is MISSING else self.python_default


def _jsonable_default(value: Any) -> Any:
    """The JSON form of a default, or MISSING when it has none we can state in a schema."""
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or type(value) in (str, int, bool):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else MISSING
    if type(value) in (list, tuple) and all(
        v is None or type(v) in (str, int, bool) or (type(v) is float and math.isfinite(v)) for v in value
    ):
        return list(value)
    return MISSING


def build_json_schema(params: Sequence[Param]) -> dict:
    props: dict[str, Any] = {}
    required = []
    for p in params:
        s = p.node.schema()
        if p.description:
            s["description"] = p.description
        if not p.required and p.default is not MISSING:
            d = _jsonable_default(p.default)
            if d is not MISSING:
                s["default"] = d
        props[p.name] = s
        if p.required:
            required.append(p.name)
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


def _nullable(s: dict) -> dict:
    s = dict(s)
    if "anyOf" in s:
        if not any(b.get("type") == "null" for b in s["anyOf"]):
            s["anyOf"] = [*s["anyOf"], {"type": "null"}]
        return s
    if "enum" in s and None not in s["enum"]:
        s["enum"] = [*s["enum"], None]
    t = s.get("type")
    if isinstance(t, list):
        if "null" not in t:
            s["type"] = [*t, "null"]
    elif t is not None and t != "null":
        s["type"] = [t, "null"]
    return s


def build_strict_schema(params: Sequence[Param]) -> dict:
    """OpenAI strict mode: every property required, optional ones nullable (null = the default)."""
    props: dict[str, Any] = {}
    for p in params:
        s = p.node.schema()
        desc = p.description or ""
        if not p.required:
            s = _nullable(s)
            d = _jsonable_default(p.default) if p.default is not MISSING else MISSING
            if p.default is MISSING:
                note = "Optional: null leaves it unset."
            elif p.default is None:
                note = "Optional: null is the default."
            elif d is MISSING:
                note = "Optional: null means the default."
            else:
                import json

                note = f"Optional: null means the default ({json.dumps(d, ensure_ascii=False)})."
            desc = f"{desc} {note}".strip()
        if desc:
            s["description"] = desc
        props[p.name] = s
    return {"type": "object", "properties": props, "required": [p.name for p in params],
            "additionalProperties": False}


def compile_validator(params: Sequence[Param], tool: str) -> Callable[[dict, bool], dict]:
    """Build ``validate(args, reject_unknown) -> dict`` raising :class:`ArgsError`.

    Rules: every required argument present; strict types; ``null`` for an optional argument whose
    type does not admit null means the default (absent when it has none); defaults injected;
    unknown arguments dropped, or rejected when ``reject_unknown``.
    """
    from dispatchguard.runtime.models import ToolActionError, check_arg_value

    plan = []
    for p in params:
        null_default = (not p.required) and not p.node.nullable
        d = p.injected_default
        plan.append((p.name, p.node.checker(), p.required, d, type(d) is list, null_default, p.node))
    names = frozenset(p.name for p in params)
    plan_t = tuple(plan)
    n_params = len(plan_t)

    def unknown(args: dict, reject: bool) -> None:
        extra = [k for k in args if k not in names]
        for k in extra:
            try:
                check_arg_value(k, args[k])
            except ToolActionError as exc:
                raise ArgsError(f"tool {tool!r}: {exc.message}", k if isinstance(k, str) else None) from None
        if reject:
            shown = ", ".join(_show(k) for k in extra[:5])
            expected = ", ".join(repr(n) for n in sorted(names)) or "none"
            raise ArgsError(
                f"tool {tool!r}: unknown argument(s) {shown}; expected arguments: {expected}",
                extra[0],
            )

    def validate(args: dict, reject_unknown: bool = False) -> dict:
        out = {}
        seen = 0
        for name, check, required, default, copy_default, null_default, node in plan_t:
            v = args.get(name, MISSING)
            if v is MISSING:
                if required:
                    raise ArgsError(
                        f"tool {tool!r}: missing required argument {name!r} ({node.describe()})", name
                    )
                if default is not MISSING:
                    out[name] = list(default) if copy_default else default
                continue
            seen += 1
            if v is None and null_default:
                if default is not MISSING:
                    out[name] = list(default) if copy_default else default
                continue
            r = check(v)
            if r is _BAD:
                raise ArgsError(f"tool {tool!r}: argument {name!r}: {node.explain(v)}", name)
            out[name] = r
        if seen != len(args):
            unknown(args, reject_unknown)
        return out

    validate.n_params = n_params  # type: ignore[attr-defined]
    return validate


# --------------------------------------------------------------------------------------------
# from Python annotations

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
    if ann in (list, tuple, list, Sequence, typing.Sequence) or origin in (list, tuple, Sequence):
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


def _check_default(p: Param, where: str) -> None:
    """A default must itself be a valid value of the parameter's type (or None)."""
    d = p.default
    if d is MISSING or d is None:
        return
    if isinstance(p.node, EnumNode) and d in p.node.members and not isinstance(d, (str, int, float, bool)):
        p.python_default = d
        p.default = p.node.values[p.node.members.index(d)]
        return
    probe = list(d) if type(d) is tuple else d
    if p.node.checker()(probe) is _BAD:
        raise SchemaError(f"{where}: the default {d!r} is not a valid {p.node.describe()}")
    if type(d) is tuple:
        p.default = probe


# --------------------------------------------------------------------------------------------
# from JSON Schema (explicit dicts, pydantic ``args_schema``)


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


# --------------------------------------------------------------------------------------------
# docstrings

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns?|Raises|Yields|Examples?|Notes?|Attributes)\s*:?\s*$")
_GOOGLE_ITEM = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_SPHINX = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^(\w+)\s*(?::.*)?$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """``(summary, {param: description})`` from a Google, Sphinx or NumPy style docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    i = 0
    n = len(lines)
    in_summary = True
    while i < n:
        line = lines[i]
        m_sec = _SECTION.match(line)
        numpy_underline = i + 1 < n and set(lines[i + 1].strip()) == {"-"}
        if m_sec or line.lstrip().startswith(":"):
            in_summary = False
        if in_summary:
            summary.append(line)
            i += 1
            continue
        m_sp = _SPHINX.match(line)
        if m_sp:
            name, text = m_sp.group(1), [m_sp.group(2).strip()]
            i += 1
            while i < n and lines[i].startswith((" ", "\t")) and not _SPHINX.match(lines[i]):
                text.append(lines[i].strip())
                i += 1
            params[name] = " ".join(t for t in text if t)
            continue
        if m_sec and m_sec.group(1) in ("Args", "Arguments", "Parameters", "Params",
                                        "Keyword Args", "Keyword Arguments"):
            base_indent = len(line) - len(line.lstrip())
            i += 2 if numpy_underline else 1
            while i < n:
                cur = lines[i]
                if not cur.strip():
                    i += 1
                    continue
                indent = len(cur) - len(cur.lstrip())
                if _SECTION.match(cur) and indent <= base_indent:
                    break
                if numpy_underline:
                    m = _NUMPY_ITEM.match(cur.strip()) if indent == base_indent else None
                    if m is None:
                        break
                    name, text = m.group(1), []
                else:
                    if indent <= base_indent:
                        break
                    m = _GOOGLE_ITEM.match(cur)
                    if m is None:
                        i += 1
                        continue
                    name, text = m.group(1), [m.group(3).strip()]
                item_indent = indent
                i += 1
                while i < n and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > item_indent):
                    if lines[i].strip():
                        text.append(lines[i].strip())
                    i += 1
                params[name] = " ".join(t for t in text if t)
            continue
        i += 1
    text = " ".join(" ".join(summary).split())
    return text, params


__all__ += [
    "AnyNode",
    "ArrayNode",
    "EnumNode",
    "Prim",
    "UnionNode",
    "node_from_annotation",
    "node_from_json_schema",
]
