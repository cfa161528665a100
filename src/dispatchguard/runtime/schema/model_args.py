"""Arguments from Python types: a function signature or a pydantic v2 model, validated by pydantic-core.

The signature becomes a pydantic model (``create_model``); the model's core schema is compiled
once into a strict :class:`pydantic_core.SchemaValidator` over its fields, so a call costs one
validation in Rust and returns a plain ``dict`` (no model instance). Strict mode is what a tool call
needs, with the values JSON can carry mapped back to their Python types:

* no coercion: ``"5"`` is not an ``int``, ``True`` is not an ``int``, ``2.0`` is not an ``int``;
  an ``int`` is a valid ``float`` (passed on as a ``float``); ``inf``/``nan`` are rejected;
* enums and literals match by JSON type and value (``"red"`` for a ``Color`` or ``(str, Enum)``,
  never ``true`` for ``1``); the tool receives the enum member;
* ``datetime``, ``date``, ``time`` and ``UUID`` are JSON strings (ISO 8601, canonical UUID);
  ``Decimal`` and ``timedelta`` strings or numbers;
* nested models, ``TypedDict`` and ``dict[str, T]`` are JSON objects, checked field by field.
"""

from __future__ import annotations

import inspect
import typing
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic_core import SchemaValidator

from dispatchguard.runtime.schema.base import ArgsError, CompiledArgs, InjectedParam, SchemaError
from dispatchguard.runtime.schema.injected import annotation_injection, injection_kind
from dispatchguard.runtime.schema.json_schemas import args_of, describe, strict_schema, tidy_schema

__all__ = ["compile_model", "compile_signature", "is_pydantic_model"]

# Core-schema keys whose values are not schemas (classes, callables, defaults, configs).
_OPAQUE = frozenset({"metadata", "serialization", "cls", "function", "ref", "default", "expected",
                     "members", "config", "schema_ref", "custom_error_message", "default_factory"})
_STRING_ONLY = frozenset({"datetime", "date", "time", "uuid"})
_STRING_OR_NUMBER = frozenset({"decimal", "timedelta"})
_ARRAY_ENCODED = frozenset({"tuple", "set", "frozenset"})
_STRICT: dict[str, Any] = {"strict": True}
_CORE_WORDS = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "none": "null",
               "list": "array", "tuple": "array", "set": "array", "dict": "object", "model": "object",
               "typed-dict": "object", "dataclass": "object", "datetime": "date-time string",
               "date": "date string", "time": "time string", "uuid": "UUID string", "any": "any value"}
_EXPECTED = {"int_type": "integer", "int_parsing": "integer", "int_from_float": "integer",
             "float_type": "number", "float_parsing": "number", "string_type": "string",
             "bool_type": "boolean", "list_type": "array", "tuple_type": "array", "set_type": "array",
             "dict_type": "object", "model_type": "object", "model_attributes_type": "object",
             "dataclass_type": "object", "typed_dict_type": "object", "none_required": "null",
             "finite_number": "a finite number"}


def is_pydantic_model(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, BaseModel)


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
    if t == "union":
        return " or ".join(_words(c[0] if isinstance(c, tuple) else c) for c in node["choices"])
    return _CORE_WORDS.get(t, str(t))


def _rewrite(node: Any) -> Any:
    """The strict tool-call form of a core schema (see the module docstring); never mutates."""
    if isinstance(node, list):
        return [_rewrite(x) for x in node]
    if isinstance(node, tuple):
        return tuple(_rewrite(x) for x in node)
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in _OPAQUE:
            out[k] = v
        elif k == "fields" and isinstance(v, dict):  # field name -> field schema (a name may be "type")
            out[k] = {name: _rewrite(f) for name, f in v.items()}
        else:
            out[k] = _rewrite(v)
    t = out.get("type")
    if not isinstance(t, str):
        return out
    if t == "model" and not out.get("root_model") and out["schema"].get("type") == "model-fields":
        return _model_from_fields(out)
    elif t == "enum":
        sub = {"str": "str", "int": "int", "float": "float"}.get(out.get("sub_type", ""))
        guard = {"type": sub, **_STRICT} if sub else _value_guard([m.value for m in out["members"]])
        if guard is not None:
            return _guarded(out, guard)
    elif t == "literal":
        return _typed_literal(out)
    elif t in _ARRAY_ENCODED:
        return _guarded(out, {"type": "list", **_STRICT})
    elif t in _STRING_ONLY:
        return _guarded(out, {"type": "str", **_STRICT})
    elif t in _STRING_OR_NUMBER:
        return _guarded(out, {"type": "union", "choices": [
            {"type": "str", **_STRICT}, {"type": "int", **_STRICT}, {"type": "float", **_STRICT}]})
    elif t == "union" and "custom_error_type" not in out:
        out["custom_error_type"] = "union_mismatch"
        out["custom_error_message"] = f"expected {_words(out)}"
    return out


_MODEL_MARK = "dispatchguard_model"


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
                 "schema": fields_schema, "metadata": {_MODEL_MARK: cls}}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


def _accepts_null(node: Any, defs: Mapping[str, Any]) -> bool:
    if not isinstance(node, dict):
        return False
    t = node.get("type")
    if t in ("nullable", "none", "any"):
        return True
    if t == "literal":
        return None in node["expected"]
    if t == "union":
        return any(_accepts_null(c[0] if isinstance(c, tuple) else c, defs) for c in node["choices"])
    if t == "definition-ref":
        return _accepts_null(defs.get(node["schema_ref"]), defs)
    if t in ("default", "function-after", "function-before", "function-wrap"):
        return _accepts_null(node.get("schema"), defs)
    if t == "chain":
        return _accepts_null(node["steps"][0], defs)
    return False


def _shown(v: Any) -> str:
    from dispatchguard.runtime.models import json_type_name, short_repr

    return f"{json_type_name(v)} {short_repr(v)}"


def format_validation_error(tool: str, exc: ValidationError, schemas: Mapping[str, dict]) -> ArgsError:
    """The first error of ``exc`` as our message: argument, path, expected and actual type."""
    errors = exc.errors(include_url=False)
    e = errors[0]
    loc = e.get("loc") or ()
    arg = loc[0] if loc and isinstance(loc[0], str) else None
    more = f" (and {len(errors) - 1} more error(s))" if len(errors) > 1 else ""
    if e["type"] == "missing" and len(loc) == 1:
        return ArgsError(f"tool {tool!r}: missing required argument {arg!r} ({describe(schemas.get(arg))}){more}",
                         arg)
    path = "".join(f"item {x}: " if isinstance(x, int) else f"field {x!r}: " for x in loc[1:])
    kind = e["type"]
    if kind == "missing":
        return ArgsError(f"tool {tool!r}: argument {arg!r}: {path}missing{more}", arg)
    if kind in _EXPECTED:
        what = f"expected {_EXPECTED[kind]}"
    elif kind in ("enum", "literal_error") and "expected" in (e.get("ctx") or {}):
        what = f"expected one of {e['ctx']['expected']}"
    elif kind in ("union_mismatch", "literal_mismatch"):
        what = e["msg"]
    else:
        msg = str(e["msg"])
        what = (msg[:1].lower() + msg[1:]).replace("input should be", "expected")
    where = f"argument {arg!r}: " if arg is not None else ""
    return ArgsError(f"tool {tool!r}: {where}{path}{what}, got {_shown(e.get('input'))}{more}", arg)


def _fields_validator(core: dict, excluded: frozenset[str]) -> tuple[Callable[[dict], dict], dict, Mapping]:
    """A validator returning the fields as a dict, the field schemas, and the core definitions."""
    defs: dict[str, Any] = {}
    root = core
    if core.get("type") == "definitions":
        defs = {d["ref"]: d for d in core["definitions"] if isinstance(d, dict) and "ref" in d}
        root = core["schema"]
        if root.get("type") == "definition-ref":
            root = defs[root["schema_ref"]]
    config = {"strict": True, "allow_inf_nan": False}
    if _MODEL_MARK in (root.get("metadata") or {}):
        fields_schema = root["schema"]
        fields = {k: v for k, v in fields_schema["fields"].items() if k not in excluded}
        # A typed dict returns the plain dict we hand to the tool (no fields set, no model).
        typed: dict = {"type": "typed-dict", "extra_behavior": "ignore", "config": config, "fields": {
            k: {"type": "typed-dict-field", "schema": f["schema"], "required": f["schema"].get("type") != "default",
                **({"validation_alias": f["validation_alias"]} if "validation_alias" in f else {})}
            for k, f in fields.items()}}
        schema = typed if not defs else {"type": "definitions", "schema": typed, "definitions": list(defs.values())}
        return SchemaValidator(schema, config).validate_python, fields, defs
    # A model with model validators (or another wrapper): validate whole, then read the fields.
    whole = SchemaValidator(core, config).validate_python
    names = list(root.get("schema", {}).get("schema", {}).get("fields", {}))

    def validate_model(args: dict) -> dict:
        obj = whole(args)
        return {k: getattr(obj, k) for k in names if k not in excluded}

    return validate_model, {}, defs


def compile_model(model: type[BaseModel], tool: str, doc_params: Mapping[str, str] | None = None,
                  injected: tuple[InjectedParam, ...] = ()) -> CompiledArgs:
    """Compile a pydantic v2 model's fields (those marked as injected are left to the caller)."""
    try:
        if not model.__pydantic_complete__:
            model.model_rebuild()
        fields_info = dict(model.model_fields)
        found = list(injected)
        for name, fi in fields_info.items():
            kind = injection_kind(fi.metadata)
            if kind is not None and all(p.name != name for p in found):
                found.append(InjectedParam(name, kind[1] or ("tool_call_id" if kind[0] == "call_id" else name),
                                           fi.is_required(), kind[0] == "call_id"))
        excluded = frozenset(p.name for p in found)
        core = _rewrite(model.__pydantic_core_schema__)
        validate_fields, field_schemas, defs = _fields_validator(core, excluded)
        json_schema = model.model_json_schema()
    except Exception as exc:  # pydantic raises many kinds at schema build time
        raise SchemaError(f"tool {tool!r}: cannot compile the arguments of {model.__name__}: {exc}") from None
    ref = json_schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and "properties" not in json_schema:
        # a recursive model is exported as a reference to itself
        json_schema = {**json_schema["$defs"][ref.rsplit("/", 1)[-1]], "$defs": json_schema["$defs"]}
    props = json_schema.get("properties") or {}
    for name in excluded:
        props.pop(name, None)
    json_schema["required"] = [r for r in json_schema.get("required", []) if r not in excluded]
    for name, text in (doc_params or {}).items():
        if name in props and "description" not in props[name]:
            props[name]["description"] = text
    json_schema["properties"] = props
    json_schema["additionalProperties"] = False
    json_schema.pop("description", None)
    tidy = tidy_schema(json_schema)
    params = args_of(tidy)
    null_to_default = frozenset(
        name for name, f in field_schemas.items()
        if f["schema"].get("type") == "default" and not _accepts_null(f["schema"]["schema"], defs)
    )
    names = frozenset(p.name for p in params) | {
        fi.alias for n, fi in fields_info.items() if fi.alias and n not in excluded}
    schemas = {p.name: p.schema for p in params}
    validate = _validator(tool, validate_fields, names, null_to_default, schemas)
    return CompiledArgs(tidy, strict_schema(params, tidy), params, validate, tuple(found))


def check_unknown(tool: str, args: dict, names: frozenset[str], reject: bool) -> None:
    """Arguments the tool does not declare: names must be strings; rejected by name if ``reject``."""
    from dispatchguard.runtime.models import json_type_name, short_repr

    extra = [k for k in args if k not in names]
    for k in extra:
        if not isinstance(k, str):
            raise ArgsError(f"tool {tool!r}: argument names must be strings, got {json_type_name(k)} {short_repr(k)}")
    if reject:
        shown = ", ".join(short_repr(k) for k in extra[:5])
        expected = ", ".join(repr(n) for n in sorted(names)) or "none"
        raise ArgsError(f"tool {tool!r}: unknown argument(s) {shown}; expected arguments: {expected}", extra[0])


def _validator(tool: str, validate_fields: Callable[[dict], dict], names: frozenset[str],
               null_to_default: frozenset[str], schemas: Mapping[str, dict]) -> Callable[[dict, bool], dict]:
    def validate(args: dict, reject_unknown: bool = False) -> dict:
        if null_to_default and None in args.values():  # null for an optional argument: its default
            args = {k: v for k, v in args.items() if v is not None or k not in null_to_default}
        if not names.issuperset(args):
            check_unknown(tool, args, names, reject_unknown)
        try:
            return validate_fields(args)
        except ValidationError as exc:
            raise format_validation_error(tool, exc, schemas) from None
        except (ValueError, TypeError, ArithmeticError) as exc:  # a validator's own failure
            raise ArgsError(f"tool {tool!r}: invalid arguments: {type(exc).__name__}: {exc}") from None

    return validate


def _resolve_annotation(text: str, func: Callable[..., Any], where: str) -> Any:
    """A string annotation evaluated in the function's module (when the others' hints failed)."""
    namespace = getattr(inspect.unwrap(func), "__globals__", {})
    try:
        return eval(text, dict(namespace))
    except Exception:
        raise SchemaError(f"{where}: cannot resolve the annotation {text!r}") from None


def _annotated_text(annotation: Any) -> str | None:
    """A plain string in ``Annotated[T, "description"]``."""
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, str):
                return meta
    return None


def _checked_default(annotation: Any, default: Any, where: str) -> Any:
    """The default as the parameter's type holds it (a tuple for a list becomes a list), or SchemaError."""
    try:
        return TypeAdapter(annotation).validate_python(default)
    except ValidationError as exc:
        raise SchemaError(f"{where}: the default {default!r} is not a valid value: "
                          f"{exc.errors(include_url=False)[0]['msg']}") from None
    except Exception:
        return default


def _params_of(func: Callable[..., Any], tool: str) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"tool {tool!r}: cannot read the signature of {func!r}: {exc}") from None


def compile_signature(func: Callable[..., Any], tool: str,
                      doc_params: Mapping[str, str] | None = None) -> CompiledArgs:
    """Compile a function's parameters (``*args``/``**kwargs`` ignored; unannotated means any JSON)."""
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:
        hints = {}
    doc_params = doc_params or {}
    fields: dict[str, Any] = {}
    injected: list[InjectedParam] = []
    for p in _params_of(func, tool):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        where = f"tool {tool!r}, parameter {p.name!r}"
        if p.kind is p.POSITIONAL_ONLY:
            raise SchemaError(f"{where}: positional-only parameters cannot be passed by name")
        if p.name.startswith("_"):
            raise SchemaError(f"{where}: names starting with '_' cannot be tool arguments")
        ann = hints.get(p.name, p.annotation)
        if isinstance(ann, str):
            ann = _resolve_annotation(ann, func, where)
        kind = annotation_injection(ann)
        if kind is not None:
            key = kind[1] or ("tool_call_id" if kind[0] == "call_id" else p.name)
            injected.append(InjectedParam(p.name, key, p.default is p.empty, kind[0] == "call_id"))
            continue
        if ann is p.empty or ann is Any or ann is object:
            ann = JsonValue
        desc = doc_params.get(p.name) or _annotated_text(ann)
        described = {"description": desc} if desc else {}
        default = p.default
        if isinstance(default, FieldInfo):
            if desc and not default.description:
                default = FieldInfo.merge_field_infos(default, description=desc)
            fields[p.name] = (ann, default)
        elif default is p.empty:
            fields[p.name] = (ann, Field(**described))
        else:
            if default is not None:
                default = _checked_default(ann, default, where)
            fields[p.name] = (ann, Field(default, **described))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # field names shadowing BaseModel attributes are fine here
            model = create_model("ToolArguments", __config__=ConfigDict(protected_namespaces=()), **fields)
    except Exception as exc:
        raise SchemaError(f"tool {tool!r}: unsupported argument type: {exc}") from None
    return compile_model(model, tool, None, tuple(injected))
