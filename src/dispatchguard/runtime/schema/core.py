"""The errors, sentinels and keyword tables shared by the schema modules."""

from __future__ import annotations

from typing import Any


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
