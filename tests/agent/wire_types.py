"""A strict check of a JSON value against the official SDKs' request TypedDicts.

pydantic's TypeAdapter validates the SDKs' ``Iterable[...]`` fields lazily (it never looks inside a
list of messages) and ignores unknown keys, so it would accept almost anything we send. This walks
the SDK's own annotations instead: every key must be declared, every ``Required`` key present,
literals and unions matched, lists checked element by element.
"""

from __future__ import annotations

import collections.abc
import types
import typing

import typing_extensions

_UNION_TYPES = (typing.Union, types.UnionType)


class WireMismatch(AssertionError):
    pass


def _is_typed_dict(tp: object) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__annotations__") \
        and hasattr(tp, "__total__")


def _strip(tp: object) -> tuple[object, bool]:
    """The type inside Required/NotRequired/Annotated, and whether it was marked Required."""
    required = False
    while True:
        origin = typing_extensions.get_origin(tp)
        if origin in (typing_extensions.Required, typing.Required if hasattr(typing, "Required") else None):
            required, tp = True, typing_extensions.get_args(tp)[0]
        elif origin in (typing_extensions.NotRequired, typing_extensions.Annotated) or \
                origin is getattr(typing, "NotRequired", object()):
            tp = typing_extensions.get_args(tp)[0]
        else:
            return tp, required


def check(value: object, tp: object, path: str = "$") -> None:
    """Raise :class:`WireMismatch` naming the first place where ``value`` does not fit ``tp``."""
    tp, _ = _strip(tp)
    origin = typing_extensions.get_origin(tp)
    args = typing_extensions.get_args(tp)
    if tp is object or tp is typing.Any:
        return
    if tp is None or tp is type(None):
        if value is not None:
            raise WireMismatch(f"{path}: expected null, got {value!r}")
        return
    if origin in _UNION_TYPES:
        errors = []
        for option in args:
            try:
                check(value, option, path)
                return
            except WireMismatch as exc:
                errors.append(str(exc))
        raise WireMismatch(f"{path}: fits none of {len(args)} options: " + " | ".join(errors[:6]))
    if origin is typing.Literal or origin is typing_extensions.Literal:
        if value not in args:
            raise WireMismatch(f"{path}: {value!r} is not one of {args}")
        return
    if _is_typed_dict(tp):
        if not isinstance(value, dict):
            raise WireMismatch(f"{path}: expected an object ({tp.__name__}), got {type(value).__name__}")
        hints = typing_extensions.get_type_hints(tp, include_extras=True)
        unknown = set(value) - set(hints)
        if unknown:
            raise WireMismatch(f"{path}: {tp.__name__} has no keys {sorted(unknown)}")
        for key, hint in hints.items():
            _, marked = _strip(hint)
            required = marked or (tp.__total__ and key in getattr(tp, "__required_keys__", ()))
            if key not in value:
                if required:
                    raise WireMismatch(f"{path}: {tp.__name__} requires {key!r}")
                continue
            check(value[key], hint, f"{path}.{key}")
        return
    if origin in (collections.abc.Iterable, collections.abc.Sequence, list, typing.List):  # noqa: UP006
        if not isinstance(value, list):
            raise WireMismatch(f"{path}: expected a list, got {type(value).__name__}")
        for index, item in enumerate(value):
            check(item, args[0] if args else object, f"{path}[{index}]")
        return
    if origin in (dict, collections.abc.Mapping, typing.Dict) or tp in (dict, typing.Dict):  # noqa: UP006
        if not isinstance(value, dict):
            raise WireMismatch(f"{path}: expected an object, got {type(value).__name__}")
        return
    if tp is float:
        if type(value) not in (int, float):
            raise WireMismatch(f"{path}: expected a number, got {value!r}")
        return
    if tp in (str, int, bool):
        if type(value) is not tp:
            raise WireMismatch(f"{path}: expected {tp.__name__}, got {value!r}")
        return
    if isinstance(tp, type) and isinstance(value, tp):
        return
    raise WireMismatch(f"{path}: cannot check {tp!r} against {value!r}")
