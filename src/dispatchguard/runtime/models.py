"""``ToolAction``, ``Clarification`` and ``parse_tool_action``: the shape of a model's tool call.

A tool call is a JSON object with exactly two keys: ``name`` (``tool`` is accepted as an input
alias, since some models emit it) and ``args``, an object mapping argument names to JSON values
(nested objects and arrays included; finite numbers only). Nothing else.

The shape rules live in :func:`check_action_shape`, shared by the pydantic model, by
:func:`parse_tool_action` and by the validator/dispatcher fast path, so all of them agree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue, model_validator

__all__ = [
    "CLARIFICATION_ARG",
    "CLARIFICATION_NAME",
    "DEFAULT_MAX_BYTES",
    "Clarification",
    "ToolAction",
    "ToolActionError",
    "check_action_shape",
    "decode_action",
    "decode_json",
    "json_type_name",
    "parse_tool_action",
]

#: Default limit (bytes of UTF-8) for JSON text and for the size of ``args``: 1 MiB.
DEFAULT_MAX_BYTES = 1 << 20
#: The tool name a model uses to ask the user a question instead of calling a tool.
CLARIFICATION_NAME = "None"
CLARIFICATION_ARG = "clarification_needed"

_PRIMITIVES = (str, int, float, bool, type(None))
#: Argument values nested deeper than this (objects and arrays) are refused.
MAX_ARG_DEPTH = 64


class ToolActionError(ValueError):
    """Why a model's answer is not a valid tool call.

    ``kind`` is one of ``"invalid_json"`` (not JSON; ``pos``/``lineno``/``colno`` say where),
    ``"invalid_action"`` (JSON, but not the ``{"name", "args"}`` shape), ``"invalid_args"`` (an
    argument value or name is not allowed in a tool call) or ``"payload_too_large"``.
    """

    def __init__(
        self,
        message: str,
        kind: str = "invalid_action",
        *,
        pos: int | None = None,
        lineno: int | None = None,
        colno: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.pos = pos
        self.lineno = lineno
        self.colno = colno


def json_type_name(value: Any) -> str:
    """The JSON name of a Python value's type, for error messages (``"string"``, ``"integer"``...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    try:
        return f"Python {type(value).__name__}"
    except Exception:  # pragma: no cover - pathological metaclass
        return "Python object"


def short_repr(value: Any, limit: int = 60) -> str:
    """A bounded, never-raising JSON-ish rendering of a value for error messages."""
    from dispatchguard.runtime.json_text import ensure_json_str

    if isinstance(value, str):
        if len(value) > limit:
            value = value[:limit] + "..."
        return ensure_json_str(json.dumps(value, ensure_ascii=False))
    if isinstance(value, float) and not math.isfinite(value):
        return float.__repr__(value)
    text = ensure_json_str(value)
    return text if len(text) <= limit + 2 else text[:limit] + "..."


def _json_problem(value: Any, depth: int) -> str | None:
    """Why ``value`` is not a JSON value a tool call may carry, or ``None``."""
    t = type(value)
    if value is None or t is str or t is bool or t is int:
        return None
    if t is float or isinstance(value, float):
        return None if math.isfinite(value) else "numbers must be finite"
    if isinstance(value, _PRIMITIVES):
        return None
    if depth >= MAX_ARG_DEPTH:
        return f"values are nested deeper than {MAX_ARG_DEPTH} levels"
    if t is list or t is tuple:
        for item in value:
            problem = _json_problem(item, depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"object keys must be strings, got {json_type_name(k)} {short_repr(k)}"
            problem = _json_problem(v, depth + 1)
            if problem is not None:
                return problem
        return None
    return f"values must be JSON (string, number, boolean, null, array, object), got {json_type_name(value)}"


def check_arg_value(key: Any, value: Any) -> None:
    """Raise :class:`ToolActionError` unless ``key``/``value`` may appear in a tool call's args."""
    if not isinstance(key, str):
        raise ToolActionError(
            f"argument names must be strings, got {json_type_name(key)} {short_repr(key)}",
            "invalid_args",
        )
    problem = _json_problem(value, 0)
    if problem is not None:
        raise ToolActionError(f"argument {key!r}: {problem}", "invalid_args")


def check_action_shape(data: Any, *, check_values: bool = True) -> tuple[str, dict]:
    """Check the ``{"name"|"tool", "args"}`` shape; return ``(name, args)``.

    Raises :class:`ToolActionError` (kind ``invalid_action`` or ``invalid_args``). With
    ``check_values=False`` the argument values are left to the caller (the per-tool validator).
    """
    if type(data) is not dict:
        if not isinstance(data, Mapping):
            raise ToolActionError(
                f'a tool call must be a JSON object {{"name": ..., "args": {{...}}}}, '
                f"got {json_type_name(data)}"
            )
        data = dict(data)
    if len(data) == 2 and "args" in data:
        if "name" in data:
            name = data["name"]
        elif "tool" in data:
            name = data["tool"]
        else:
            name = _shape_error(data)
    else:
        name = _shape_error(data)
    args = data["args"]
    if type(name) is not str:
        if isinstance(name, str):
            name = str.__str__(name)
        else:
            raise ToolActionError(f"'name' must be a string, got {json_type_name(name)}")
    if type(args) is not dict:
        if not isinstance(args, Mapping):
            raise ToolActionError(
                f"'args' must be an object mapping argument names to values, "
                f"got {json_type_name(args)}"
            )
        args = dict(args)
    if check_values:
        for k, v in args.items():
            check_arg_value(k, v)
    return name, args


def _shape_error(data: dict) -> Any:
    keys = list(data)
    bad = [k for k in keys if not isinstance(k, str)]
    if bad:
        raise ToolActionError(f"a tool call's keys must be strings, got {short_repr(bad[0])}")
    if "name" in data and "tool" in data:
        raise ToolActionError("give the tool name once: both 'name' and 'tool' are present")
    extra = sorted(k for k in keys if k not in ("name", "tool", "args"))
    if extra:
        shown = ", ".join(repr(k[:40]) for k in extra[:5])
        raise ToolActionError(
            f"unexpected key(s) {shown}: a tool call has exactly the keys 'name' and 'args'"
        )
    missing = [k for k in ("name", "args") if k not in data and not (k == "name" and "tool" in data)]
    raise ToolActionError(
        f"missing key(s) {', '.join(repr(k) for k in missing)}: "
        f'a tool call is {{"name": "<tool>", "args": {{...}}}}'
    )


class ToolAction(BaseModel):
    """A model's request to call one tool: ``{"name": "<tool>", "args": {...}}``.

    ``tool`` is accepted in place of ``name`` on input. ``args`` values are JSON values (finite
    numbers, nesting at most ``MAX_ARG_DEPTH`` deep); no other keys are allowed. Nothing is coerced.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: str
    args: dict[str, JsonValue]

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        if isinstance(data, cls):
            return data
        try:
            name, args = check_action_shape(data)
        except ToolActionError as exc:
            raise ValueError(exc.message) from None
        return {"name": name, "args": args}


class Clarification(BaseModel):
    """The model asked a question (``name == "None"``) instead of calling a tool. Never dispatched."""

    model_config = ConfigDict(frozen=True)

    question: str
    args: dict[str, Any] = {}


def _strip_fence(text: str) -> str:
    s = text.strip()
    if s.startswith("```") and s.endswith("```") and len(s) >= 6:
        body = s[3:-3]
        nl = body.find("\n")
        if nl >= 0:
            tag = body[:nl].strip()
            if not tag or tag.isalnum():  # a language tag such as ```json
                body = body[nl + 1 :]
        return body
    return text


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (non-finite numbers are not allowed)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: JSON syntax, but no finite double; never becomes inf
        raise ValueError(f"number {text[:40]} is out of range (non-finite numbers are not allowed)")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:  # pragma: no branch - a duplicate exists
            if k in seen:
                raise ValueError(f"duplicate key {k[:40]!r}")
            seen.add(k)
    return d


def text_too_large(text: str | bytes, max_bytes: int) -> bool:
    """Whether ``text`` is over ``max_bytes`` once UTF-8 encoded (a surrogate counts 3 bytes).

    A str is encoded only when its length alone cannot decide.
    """
    if len(text) > max_bytes:
        return True
    if isinstance(text, str) and len(text) * 4 > max_bytes:
        return len(text.encode("utf-8", "surrogatepass")) > max_bytes
    return False


def decode_json(text: str | bytes | bytearray, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """Strictly decode JSON text: size limit, no NaN/Infinity, no duplicate keys, bounded nesting."""
    if text_too_large(text, max_bytes):
        raise ToolActionError(
            f"JSON text is larger than the limit of {max_bytes} bytes", "payload_too_large"
        )
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolActionError(
                f"invalid JSON: not UTF-8 ({exc.reason} at byte {exc.start})",
                "invalid_json",
                pos=exc.start,
            ) from None
    text = _strip_fence(text)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise ToolActionError(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno} (char {exc.pos})",
            "invalid_json",
            pos=exc.pos,
            lineno=exc.lineno,
            colno=exc.colno,
        ) from None
    except RecursionError:
        raise ToolActionError("invalid JSON: nested too deeply", "invalid_json") from None
    except ValueError as exc:  # NaN/Infinity, duplicate keys, int beyond the digit limit
        raise ToolActionError(f"invalid JSON: {exc}", "invalid_json") from None


class _Pairs(list):
    """An object's key/value pairs as the C scanner hands them over (see decode_action)."""

    __slots__ = ()


_PAIRS_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float,
                                  object_pairs_hook=_Pairs)


def decode_action(text: str | bytes | bytearray, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """:func:`decode_json` for a tool call, with a fast path for the usual shape.

    The C scanner hands each object over as a list of pairs, so duplicate keys are visible without a
    Python hook per object; only the top-level object and ``args`` are converted. Anything else (an
    error, a nested object, a duplicate key) is decoded again by :func:`decode_json`, which gives
    the exact result or error.
    """
    if type(text) is not str or len(text) * 4 > max_bytes or text[:1] != "{":
        return decode_json(text, max_bytes)
    try:
        top = _PAIRS_DECODER.decode(text)
    except (ValueError, RecursionError):
        return decode_json(text, max_bytes)
    if type(top) is not _Pairs:  # pragma: no cover - text starts with "{"
        return decode_json(text, max_bytes)
    data = dict(top)
    if len(data) != len(top):
        return decode_json(text, max_bytes)
    for k, v in top:
        if type(v) is _Pairs:
            if k != "args":
                return decode_json(text, max_bytes)
            args = dict(v)
            if len(args) != len(v):
                return decode_json(text, max_bytes)
            for x in args.values():
                if type(x) is _Pairs or (type(x) is list and any(type(i) in (_Pairs, list) for i in x)):
                    return decode_json(text, max_bytes)
            data[k] = args
        elif type(v) is list and any(type(i) in (_Pairs, list) for i in v):
            return decode_json(text, max_bytes)
    return data


def parse_tool_action(
    text: str | bytes | bytearray | Mapping[str, Any],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ToolAction | Clarification:
    """Parse a model's answer into a :class:`ToolAction` or a :class:`Clarification`.

    ``text`` is JSON text (a surrounding Markdown code fence is tolerated) or an already decoded
    mapping. Raises :class:`ToolActionError` (and nothing else) when the text is larger than
    ``max_bytes``, is not strict JSON (the message gives line, column and offset; numbers beyond
    the double range such as ``1e400`` included), nests too deeply, or is not exactly
    ``{"name"|"tool": str, "args": {name: JSON value}}``.
    A name of ``"None"`` with ``args.clarification_needed`` (a string) is a :class:`Clarification`.
    """
    if isinstance(text, (str, bytes, bytearray)):
        data = decode_action(text, max_bytes)
    elif isinstance(text, Mapping):
        data = text
    else:
        raise ToolActionError(
            f"expected JSON text or a mapping, got {json_type_name(text)}", "invalid_action"
        )
    name, args = check_action_shape(data)
    if name == CLARIFICATION_NAME:
        question = args.get(CLARIFICATION_ARG)
        if not isinstance(question, str) or not question.strip():
            raise ToolActionError(
                f"name {CLARIFICATION_NAME!r} asks for clarification and needs "
                f"args.{CLARIFICATION_ARG} (a non-empty string question)"
            )
        return Clarification(question=question, args=args)
    return ToolAction.model_construct(name=name, args=args)
