"""Arguments from Python types: a function signature or a pydantic v2 model, validated by pydantic-core.

The signature becomes a pydantic model (``create_model``); the model's core schema is compiled
once into a strict :class:`pydantic_core.SchemaValidator` over its fields, so a call costs one
validation in Rust and returns a plain ``dict`` (no model instance). Strict mode is what a tool call
needs, with the values JSON can carry mapped back to their Python types (:mod:`.strict_core`):

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
from dispatchguard.runtime.schema.json_schemas import args_of, strict_schema, tidy_schema
from dispatchguard.runtime.schema.messages import check_unknown, format_validation_error
from dispatchguard.runtime.schema.strict_core import MODEL_MARK, accepts_null, strict_core_schema

__all__ = ["compile_model", "compile_signature", "is_pydantic_model"]


def is_pydantic_model(obj: Any) -> bool:
    """Whether ``obj`` is a pydantic v2 model class (not an instance, not a pydantic v1 model)."""
    return isinstance(obj, type) and issubclass(obj, BaseModel)


def _fields_validator(core: dict, excluded: frozenset[str],
                      names: tuple[str, ...]) -> tuple[Callable[[dict], dict], dict, Mapping]:
    """A validator returning the fields (the model's field ``names``) as a dict, the field schemas,
    and the core definitions."""
    defs: dict[str, Any] = {}
    root = core
    if core.get("type") == "definitions":
        defs = {d["ref"]: d for d in core["definitions"] if isinstance(d, dict) and "ref" in d}
        root = core["schema"]
        if root.get("type") == "definition-ref":
            root = defs[root["schema_ref"]]
    config = {"strict": True, "allow_inf_nan": False}
    if MODEL_MARK in (root.get("metadata") or {}):
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
    kept = [k for k in names if k not in excluded]

    def validate_model(args: dict) -> dict:
        obj = whole(args)
        return {k: getattr(obj, k) for k in kept}

    return validate_model, {}, defs


def _injected_fields(model: type[BaseModel], injected: tuple[InjectedParam, ...]) -> tuple[InjectedParam, ...]:
    """``injected`` and the model's fields marked as injected (``InjectedArg``, LangChain's markers)."""
    found = list(injected)
    for name, fi in model.model_fields.items():
        kind = injection_kind(fi.metadata)
        if kind is not None and all(p.name != name for p in found):
            found.append(InjectedParam(name, kind[1] or ("tool_call_id" if kind[0] == "call_id" else name),
                                       fi.is_required(), kind[0] == "call_id"))
    return tuple(found)


def _model_facing_schema(json_schema: dict, excluded: frozenset[str], doc_params: Mapping[str, str]) -> dict:
    """The model's JSON Schema as the model sees it: injected fields left out, descriptions from
    the docstring where the field has none, no other arguments."""
    ref = json_schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and "properties" not in json_schema:
        # a recursive model is exported as a reference to itself
        json_schema = {**json_schema["$defs"][ref.rsplit("/", 1)[-1]], "$defs": json_schema["$defs"]}
    props = {name: sub for name, sub in (json_schema.get("properties") or {}).items() if name not in excluded}
    for name, text in doc_params.items():
        if name in props and "description" not in props[name]:
            props[name]["description"] = text
    json_schema["required"] = [r for r in json_schema.get("required", []) if r not in excluded]
    json_schema["properties"] = props
    json_schema["additionalProperties"] = False
    json_schema.pop("description", None)
    return tidy_schema(json_schema)


def compile_model(model: type[BaseModel], tool: str, doc_params: Mapping[str, str] | None = None,
                  injected: tuple[InjectedParam, ...] = ()) -> CompiledArgs:
    """Compile a pydantic v2 model's fields (those marked as injected are left to the caller)."""
    try:
        if not model.__pydantic_complete__:
            model.model_rebuild()
        found = _injected_fields(model, injected)
        excluded = frozenset(p.name for p in found)
        core = strict_core_schema(model.__pydantic_core_schema__)
        validate_fields, field_schemas, defs = _fields_validator(core, excluded, tuple(model.model_fields))
        json_schema = model.model_json_schema()
    except Exception as exc:  # pydantic raises many kinds at schema build time
        raise SchemaError(f"tool {tool!r}: cannot compile the arguments of {model.__name__}: {exc}") from None
    tidy = _model_facing_schema(json_schema, excluded, doc_params or {})
    params = args_of(tidy)
    null_to_default = frozenset(
        name for name, f in field_schemas.items()
        if f["schema"].get("type") == "default" and not accepts_null(f["schema"]["schema"], defs)
    )
    aliases = {fi.alias for n, fi in model.model_fields.items() if fi.alias and n not in excluded}
    names = frozenset(p.name for p in params) | aliases
    schemas = {p.name: p.schema for p in params}
    validate = _validator(tool, validate_fields, names, null_to_default, schemas)
    return CompiledArgs(tidy, strict_schema(params, tidy), params, validate, found)


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


def _parameter(p: inspect.Parameter, hints: Mapping[str, Any], func: Callable[..., Any], tool: str,
               doc_params: Mapping[str, str]) -> tuple[Any, Any] | InjectedParam:
    """A parameter as a model field ``(annotation, FieldInfo or default)``, or as an injected one."""
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
        return InjectedParam(p.name, key, p.default is p.empty, kind[0] == "call_id")
    if ann is p.empty or ann is Any or ann is object:
        ann = JsonValue
    desc = doc_params.get(p.name) or _annotated_text(ann)
    return ann, _field(p.default, p.empty, ann, desc, where)


def _field(default: Any, empty: Any, ann: Any, desc: str | None, where: str) -> Any:
    """The field of a parameter with ``default`` (``empty``: none), described by ``desc``."""
    described = {"description": desc} if desc else {}
    if isinstance(default, FieldInfo):
        return FieldInfo.merge_field_infos(default, description=desc) if desc and not default.description else default
    if default is empty:
        return Field(**described)
    if default is not None:
        default = _checked_default(ann, default, where)
    return Field(default, **described)


def compile_signature(func: Callable[..., Any], tool: str,
                      doc_params: Mapping[str, str] | None = None) -> CompiledArgs:
    """Compile a function's parameters (``*args``/``**kwargs`` ignored; unannotated means any JSON)."""
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:
        hints = {}
    fields: dict[str, Any] = {}
    injected: list[InjectedParam] = []
    for p in _params_of(func, tool):
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            got = _parameter(p, hints, func, tool, doc_params or {})
            if isinstance(got, InjectedParam):
                injected.append(got)
            else:
                fields[p.name] = got
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # field names shadowing BaseModel attributes are fine here
            model = create_model("ToolArguments", __config__=ConfigDict(protected_namespaces=()), **fields)
    except Exception as exc:
        raise SchemaError(f"tool {tool!r}: unsupported argument type: {exc}") from None
    return compile_model(model, tool, None, tuple(injected))
