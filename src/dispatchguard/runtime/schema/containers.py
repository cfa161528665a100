"""Composite type nodes: arrays of primitives, ``Any`` and unions."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dispatchguard.runtime.schema.core import (
    _ANY_PRIM,
    _BAD,
    _CONSTRAINT_KEYS,
    SchemaError,
)
from dispatchguard.runtime.schema.nodes import Prim, TypeNode, _is_int


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
