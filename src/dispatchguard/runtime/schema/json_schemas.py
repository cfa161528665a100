"""JSON Schema documents for the model: tidied exports, the OpenAI strict form, prompt wording."""

from __future__ import annotations

import copy
import json
from typing import Any

from dispatchguard.runtime.schema.base import MISSING, ArgInfo

_SUBSCHEMA = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


_DEFS_KEYS = ("$defs", "definitions")
#: Where a keyword holds subschemas: ``one`` (its value), ``list`` (its items), ``map`` (its values).
_HOLDS = {**dict.fromkeys(_SUBSCHEMA, "one"), **dict.fromkeys(_SCHEMA_LISTS, "list"),
          **dict.fromkeys(_SCHEMA_MAPS, "map")}


def _walk(s: Any, visit: Any) -> Any:
    """Rebuild schema ``s`` bottom-up, calling ``visit(schema) -> schema`` on every subschema."""
    if not isinstance(s, dict):
        return s
    out = {}
    for key, value in s.items():  # a loop, not a helper: a level of nesting costs one frame
        holds = _HOLDS.get(key)
        if holds == "one":
            out[key] = _walk(value, visit)
        elif holds == "list" and isinstance(value, list):
            out[key] = [_walk(v, visit) for v in value]
        elif holds == "map" and isinstance(value, dict):
            out[key] = {k: _walk(v, visit) for k, v in value.items()}
        else:
            out[key] = value
    return visit(out)


def _local_defs(schema: dict) -> dict:
    defs: dict = {}
    for key in _DEFS_KEYS:
        value = schema.get(key)
        if isinstance(value, dict):
            defs.update({f"#/{key}/{name}": sub for name, sub in value.items()})
    return defs


def _resolved_ref(s: dict, defs: dict, seen: tuple[str, ...]) -> tuple[dict, bool]:
    """``s`` with its local ``$ref`` replaced by the (inlined) target; the flag says a recursive
    ref was kept."""
    ref = s.get("$ref")
    if not isinstance(ref, str) or ref not in defs:
        return s, False
    if ref in seen:
        return s, True
    rest = {k: v for k, v in s.items() if k != "$ref"}
    target, kept = _inline(defs[ref], defs, (*seen, ref))
    return ({**target, **rest} if isinstance(target, dict) else s), kept


def _inline(s: Any, defs: dict, seen: tuple[str, ...]) -> tuple[Any, bool]:
    """``s`` with local ``$ref``s replaced by their targets; the flag says a recursive ref was kept."""
    if not isinstance(s, dict):
        return s, False
    s, kept = _resolved_ref(s, defs, seen)
    if kept:
        return s, True
    out = {}
    for key, value in s.items():
        # the definitions stay as they are: what is kept of them is decided by tidy_schema
        holds = None if key in _DEFS_KEYS else _HOLDS.get(key)
        if holds == "one":
            out[key], here = _inline(value, defs, seen)
        elif holds == "list" and isinstance(value, list):
            pairs = [_inline(v, defs, seen) for v in value]
            out[key], here = [v for v, _ in pairs], any(k for _, k in pairs)
        elif holds == "map" and isinstance(value, dict):
            named = {name: _inline(v, defs, seen) for name, v in value.items()}
            out[key], here = {name: v for name, (v, _) in named.items()}, any(k for _, k in named.values())
        else:
            out[key], here = value, False
        kept |= here
    return out, kept


def _simplify(s: dict) -> dict:
    s.pop("title", None)
    branches = s.get("anyOf")
    if isinstance(branches, list) and branches and all(
        isinstance(b, dict) and set(b) == {"type"} and isinstance(b["type"], str) for b in branches
    ):
        types: list[str] = []
        for b in branches:
            if b["type"] not in types:
                types.append(b["type"])
        del s["anyOf"]
        s["type"] = types if len(types) > 1 else types[0]
    return s


def tidy_schema(schema: dict) -> dict:
    """A model-facing copy of an arguments schema: local ``$ref``s inlined (recursive ones kept
    with their ``$defs``), generated titles dropped, ``anyOf`` of bare types as a ``type`` list."""
    defs = _local_defs(schema)
    inlined, kept = _inline(copy.deepcopy(schema), defs, ())
    if not kept:
        inlined.pop("$defs", None)
        inlined.pop("definitions", None)
    props = inlined.get("properties")
    if isinstance(props, dict):  # a property may be called "title": walk the values only
        inlined["properties"] = {name: _walk(sub, _simplify) for name, sub in props.items()}
    for key in ("$defs", "definitions"):
        if isinstance(inlined.get(key), dict):
            inlined[key] = {name: _walk(sub, _simplify) for name, sub in inlined[key].items()}
    inlined.pop("title", None)
    return inlined


def nullable(s: dict) -> dict:
    """``s`` widened to admit ``null``."""
    s = dict(s)
    if "anyOf" in s:
        if not any(b.get("type") == "null" for b in s["anyOf"] if isinstance(b, dict)):
            s["anyOf"] = [*s["anyOf"], {"type": "null"}]
        return s
    if "enum" in s and None not in s["enum"]:
        s["enum"] = [*s["enum"], None]
    if "const" in s:
        return {"anyOf": [s, {"type": "null"}]}
    t = s.get("type")
    if isinstance(t, list):
        if "null" not in t:
            s["type"] = [*t, "null"]
    elif t is not None and t != "null":
        s["type"] = [t, "null"]
    elif t is None and "enum" not in s:
        return {"anyOf": [s, {"type": "null"}]}
    return s


def _strict_objects(s: dict) -> dict:
    s.pop("default", None)
    props = s.get("properties")
    if s.get("type") == "object" and isinstance(props, dict):
        s["required"] = list(props)
        s["additionalProperties"] = False
    return s


def strict_schema(params: tuple[ArgInfo, ...], base: dict) -> dict:
    """OpenAI strict mode: every property required, optional ones nullable (null = the default),
    ``additionalProperties: false`` on every object, no ``default`` keywords."""
    props: dict[str, Any] = {}
    for p in params:
        s = _walk(copy.deepcopy(p.schema), _strict_objects)
        s.pop("description", None)
        desc = p.description or ""
        if not p.required:
            s = nullable(s)
            if p.default is MISSING:
                note = "Optional: null leaves it unset."
            elif p.default is None:
                note = "Optional: null is the default."
            else:
                note = f"Optional: null means the default ({json.dumps(p.default, ensure_ascii=False)})."
            desc = f"{desc} {note}".strip()
        if desc:
            s["description"] = desc
        props[p.name] = s
    out: dict[str, Any] = {"type": "object", "properties": props, "required": [p.name for p in params],
                           "additionalProperties": False}
    for key in ("$defs", "definitions"):
        if isinstance(base.get(key), dict):
            out[key] = {name: _walk(copy.deepcopy(sub), _strict_objects) for name, sub in base[key].items()}
    return out


def args_of(schema: dict) -> tuple[ArgInfo, ...]:
    """The arguments of a tidied object schema, in property order."""
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    out = []
    for name, sub in props.items():
        sub = sub if isinstance(sub, dict) else {}
        desc = sub.get("description")
        default = sub.get("default", MISSING) if name not in required else MISSING
        out.append(ArgInfo(name, sub, name in required, default, desc if isinstance(desc, str) else None))
    return tuple(out)


#: The constraints a description names, in this order: (keyword, wording of its value).
_CONSTRAINTS = (("minimum", ">= {}"), ("exclusiveMinimum", "> {}"), ("maximum", "<= {}"),
                ("exclusiveMaximum", "< {}"), ("multipleOf", "a multiple of {}"),
                ("minLength", "at least {} characters"), ("maxLength", "at most {} characters"),
                ("minItems", "at least {} items"), ("maxItems", "at most {} items"),
                ("pattern", "matching {!r}"), ("format", "format {}"))


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _enum_words(s: dict) -> str:
    shown = ", ".join(_json_text(v) for v in s["enum"][:12])
    return f"one of {shown}" + (", ..." if len(s["enum"]) > 12 else "")


def _has_list(key: str) -> Any:
    return lambda s: isinstance(s.get(key), list)


#: How a schema is described when it has one of these shapes, tried in order (the first wins).
_SHAPES: tuple[tuple[Any, Any], ...] = (
    (lambda s: "const" in s, lambda s: f"exactly {_json_text(s['const'])}"),
    (_has_list("enum"), _enum_words),
    (_has_list("anyOf"), lambda s: " or ".join(describe(b) for b in s["anyOf"])),
    (_has_list("oneOf"), lambda s: " or ".join(describe(b) for b in s["oneOf"])),
    (lambda s: "$ref" in s, lambda s: f"a {str(s['$ref']).rsplit('/', 1)[-1]} object"),
    (_has_list("type"), lambda s: " or ".join(describe({**s, "type": x}) for x in s["type"])),
)


def _array_words(s: dict) -> str:
    return f"array of {describe(s.get('items'))}" if s.get("items") else "array"


def _object_words(s: dict) -> str:
    props = s.get("properties")
    return f"object with {', '.join(props)}" if isinstance(props, dict) and props else "object"


#: The words for a ``type`` other than its plain name, by type.
_TYPE_WORDS = {"array": _array_words, "object": _object_words}


def describe(s: Any) -> str:
    """A short English description of a schema for the prompt: ``integer (>= 0)``, ``one of "a", "b"``."""
    if not isinstance(s, dict) or not s:
        return "any JSON value"
    shaped = next((words for test, words in _SHAPES if test(s)), None)
    if shaped is not None:
        return shaped(s)
    t = s.get("type")
    if t == "null" or not isinstance(t, str):
        return "null" if t == "null" else "any JSON value"
    text = _TYPE_WORDS[t](s) if t in _TYPE_WORDS else t
    parts = [word.format(s[key]) for key, word in _CONSTRAINTS if key in s]
    return text + (f" ({', '.join(parts)})" if parts else "")
