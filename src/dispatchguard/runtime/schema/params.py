"""Parameters (:class:`Param`) and the JSON Schemas built from them (plain and OpenAI strict)."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dispatchguard.runtime.schema.core import _BAD, MISSING, SchemaError
from dispatchguard.runtime.schema.nodes import EnumNode, TypeNode


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
