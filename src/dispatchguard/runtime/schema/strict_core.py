"""The strict tool-call form of a pydantic core schema: JSON values in, Python types out.

pydantic's strict mode is Python's: an enum field wants the member, a datetime field a datetime. A
tool call is JSON, so :func:`strict_core_schema` rewrites a model's core schema once: each type JSON
carries as another type (enum and literal values, ISO strings for dates and UUIDs, arrays for tuples
and sets) becomes a strict guard on the JSON type chained to the lax conversion; nested models are
validated field by field (pydantic-core would otherwise reuse their own, lax, validators); unions
report one error naming their branches. Everything else keeps pydantic-core's strict semantics.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MODEL_MARK", "accepts_null", "strict_core_schema"]

# Core-schema keys whose values are not schemas (classes, callables, defaults, configs).
_OPAQUE = frozenset({"metadata", "serialization", "cls", "function", "ref", "default", "expected",
                     "members", "config", "schema_ref", "custom_error_message", "default_factory"})
_STRING_ONLY = frozenset({"datetime", "date", "time", "uuid"})
_STRING_OR_NUMBER = frozenset({"decimal", "timedelta"})
_ARRAY_ENCODED = frozenset({"tuple", "set", "frozenset"})
_STRICT: dict[str, Any] = {"strict": True}
CORE_WORDS = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "none": "null",
               "list": "array", "tuple": "array", "set": "array", "dict": "object", "model": "object",
               "typed-dict": "object", "model-fields": "object", "dataclass": "object", "datetime": "date-time string",
               "date": "date string", "time": "time string", "uuid": "UUID string", "any": "any value"}
def _value_guard(values: list[Any]) -> dict | None:
    """A strict core schema admitting exactly the JSON types of ``values`` (None: not all JSON)."""
    choices: list[dict] = []
    for v in values:
        if v is None:
            s: dict = {"type": "none"}
        elif type(v) is bool:
            s = {"type": "bool", **_STRICT}
        elif isinstance(v, int):
            s = {"type": "int", **_STRICT}
        elif isinstance(v, float):
            s = {"type": "float", **_STRICT}
        elif isinstance(v, str):
            s = {"type": "str", **_STRICT}
        else:
            return None
        if s not in choices:
            choices.append(s)
    if not choices:
        return None
    return choices[0] if len(choices) == 1 else {"type": "union", "choices": choices}


def _guarded(node: dict, guard: dict) -> dict:
    """``node`` (run in lax mode) behind ``guard`` (strict JSON types): JSON values, no coercion."""
    inner = {k: v for k, v in node.items() if k != "ref"}
    if node["type"] != "literal":
        inner["strict"] = False
    chain: dict = {"type": "chain", "steps": [guard, inner]}
    if "ref" in node:
        chain["ref"] = node["ref"]
    return chain


def _typed_literal(node: dict) -> dict:
    """A literal matched by JSON type and value: one strict branch per type (``True`` is not ``1``)."""
    groups: dict[str, list[Any]] = {}
    for v in node["expected"]:
        guard = _value_guard([v])
        if guard is None:  # a value JSON cannot carry (bytes, an enum member): left as it is
            return node
        groups.setdefault(guard["type"], []).append(v)
    branches = [_guarded({**node, "expected": values}, _value_guard(values)) for values in groups.values()]
    if len(branches) == 1:
        return branches[0]
    out: dict = {"type": "union", "choices": branches, "custom_error_type": "literal_mismatch",
                 "custom_error_message": f"expected {_words(node)}"}
    if "ref" in node:
        out["ref"] = node["ref"]
        for b in branches:
            b.pop("ref", None)
    return out


def _words(node: Any) -> str:
    if not isinstance(node, dict):
        return "a value"
    t = node.get("type")
    if t in ("enum", "literal"):
        values = [getattr(m, "value", m) for m in node.get("members", node.get("expected", []))]
        return "one of " + ", ".join(repr(v) for v in values[:8])
    if t in ("default", "nullable"):
        inner = _words(node.get("schema"))
        return inner if t == "default" else f"{inner} or null"
    if t == "chain":
        return _words(node["steps"][-1])
    if t in ("function-after", "function-before", "function-wrap"):  # a validator: what it wraps
        return _words(node.get("schema"))
    if t == "union":
        return " or ".join(_words(c[0] if isinstance(c, tuple) else c) for c in node["choices"])
    return CORE_WORDS.get(t, str(t))


def strict_core_schema(node: Any) -> Any:
    """The strict tool-call form of a core schema (see the module docstring); never mutates."""
    if isinstance(node, list):
        return [strict_core_schema(x) for x in node]
    if isinstance(node, tuple):
        return tuple(strict_core_schema(x) for x in node)
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():  # a loop, not a helper: a level of nesting costs one frame
        if k in _OPAQUE:
            out[k] = v
        elif k == "fields" and isinstance(v, dict):  # field name -> field schema (a name may be "type")
            out[k] = {name: strict_core_schema(f) for name, f in v.items()}
        else:
            out[k] = strict_core_schema(v)
    t = out.get("type")
    rewrite = _REWRITES.get(t) if isinstance(t, str) else None
    return out if rewrite is None else rewrite(out)


# The rewrites, by core-schema type, of a node whose children are strict already.


def _strict_model(node: dict) -> dict:
    """A model validated by our strict schema, never by its own (lax) validator: its fields, behind
    its before-validators if it has any, or a root model's root."""
    if node.get("root_model"):
        return _root_model(node)
    befores, inner = [], node["schema"]
    while inner.get("type") == "function-before":  # model_validator(mode="before"), innermost last
        befores.append(inner)
        inner = inner["schema"]
    if inner.get("type") != "model-fields":
        return node
    out = _model_from_fields({**node, "schema": inner})
    if not befores:
        return out
    ref = out.pop("ref", None)
    for wrapper in reversed(befores):
        out = {**wrapper, "schema": out}
    if ref is not None:
        out["ref"] = ref
    return out


def _root_model(node: dict) -> dict:
    """A root model: its root validated (strictly, as rewritten), then the model built around it."""
    out: dict = {"type": "function-after", "function": {"type": "no-info", "function": node["cls"].model_construct},
                 "schema": node["schema"]}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


_ENUM_SUB_TYPES = {"str": "str", "int": "int", "float": "float"}


def _strict_enum(node: dict) -> dict:
    sub = _ENUM_SUB_TYPES.get(node.get("sub_type", ""))
    guard = {"type": sub, **_STRICT} if sub else _value_guard([m.value for m in node["members"]])
    return node if guard is None else _guarded(node, guard)


def _behind(*types: str) -> Any:
    """The rewrite putting a node behind a strict guard on the JSON ``types`` (a fresh guard each)."""

    def rewrite(node: dict) -> dict:
        choices = [{"type": t, **_STRICT} for t in types]
        return _guarded(node, choices[0] if len(choices) == 1 else {"type": "union", "choices": choices})

    return rewrite


def _one_union_error(node: dict) -> dict:
    if "custom_error_type" not in node:
        node["custom_error_type"] = "union_mismatch"
        node["custom_error_message"] = f"expected {_words(node)}"
    return node


_REWRITES: dict[str, Any] = {
    "model": _strict_model,
    "enum": _strict_enum,
    "literal": _typed_literal,
    "union": _one_union_error,
    **{t: _behind("list") for t in _ARRAY_ENCODED},
    **{t: _behind("str") for t in _STRING_ONLY},
    **{t: _behind("str", "int", "float") for t in _STRING_OR_NUMBER},
}


MODEL_MARK = "dispatchguard_model"


def _model_from_fields(node: dict) -> dict:
    """A model validated field by field in strict mode, then built without validating again.

    pydantic-core reuses a complete model's own (lax) validator for a ``model`` schema, whatever
    its config says; validating the ``model-fields`` ourselves keeps the whole tree strict.
    """
    cls = node["cls"]

    def build(value: tuple) -> Any:
        fields, _extra, fields_set = value
        return cls.model_construct(_fields_set=fields_set, **fields)

    fields_schema = dict(node["schema"])
    config = node.get("config") or {}
    if "extra_fields_behavior" in config and "extra_behavior" not in fields_schema:
        fields_schema["extra_behavior"] = config["extra_fields_behavior"]
    out: dict = {"type": "function-after", "function": {"type": "no-info", "function": build},
                 "schema": fields_schema, "metadata": {MODEL_MARK: cls}}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


def accepts_null(node: Any, defs: Mapping[str, Any]) -> bool:
    """Whether the pydantic-core schema ``node`` lets ``None`` through (refs resolved in ``defs``).

    Conservative: a node type it does not know, or a non-dict node, counts as refusing null.
    """
    if not isinstance(node, dict):
        return False
    t = node.get("type")
    if t in ("nullable", "none", "any"):
        return True
    if t == "literal":
        return None in node["expected"]
    if t == "union":
        return any(accepts_null(c[0] if isinstance(c, tuple) else c, defs) for c in node["choices"])
    if t == "definition-ref":
        return accepts_null(defs.get(node["schema_ref"]), defs)
    if t in ("default", "function-after", "function-before", "function-wrap"):
        return accepts_null(node.get("schema"), defs)
    if t == "chain":
        return accepts_null(node["steps"][0], defs)
    return False
