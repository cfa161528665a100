"""Type nodes: one argument type each, with its JSON Schema, its description and its checker.

:class:`TypeNode` is the interface; this module holds the scalar nodes (:class:`Prim`, a JSON
primitive with optional constraints, and :class:`EnumNode`, a fixed set of primitive values). The
composite nodes (arrays, ``Any``, unions) are in :mod:`.containers`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dispatchguard.runtime.schema.core import (
    _BAD,
    _CONSTRAINT_KEYS,
    _PRIM_TYPES,
    SchemaError,
    _json_type,
    _show,
)


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

