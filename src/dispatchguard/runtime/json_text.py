"""``ensure_json_str``: turn anything a tool returns into strict JSON text, never raising.

Contract (every point is tested, most of them as hypothesis properties):

* a ``str`` that already is a JSON document (strictly: no ``NaN``/``Infinity``, numbers within
  the double range, parseable within the parser's nesting limit on a fresh stack, so whatever the
  caller's stack depth) is returned unchanged, except that raw lone surrogates inside it are written as ``\\uXXXX``
  escapes; any other string becomes a JSON string literal;
* everything else is serialised to JSON text with ``ensure_ascii=False``;
* the result is always a ``str`` that :func:`json.loads` accepts with non-finite constants
  rejected, and that encodes to UTF-8;
* idempotent: ``ensure_json_str(ensure_json_str(x)) == ensure_json_str(x)``;
* never raises (``KeyboardInterrupt``/``SystemExit`` aside). The last resort is
  ``{"result": "<text>"}``; every fallback is logged at debug level on the
  ``dispatchguard.runtime.json_text`` logger.

Encodings of non-JSON values (see docs/runtime.md):

==========================  ===============================================================
value                       JSON
==========================  ===============================================================
``float`` nan / inf         ``null``
``int`` beyond the limit    a string of its decimal digits (hex ``"0x..."`` past 100 000 digits)
pydantic model              ``model_dump(mode="json")``, then encoded by these rules
pydantic v1 model           ``.dict()``, then encoded by these rules
LangChain ``ToolMessage``   its ``content``
generator                   array of its items (at most ``MAX_ITEMS``; more is an error object)
dataclass instance          object of its fields (shallow, then encoded by these rules)
``datetime``/``date``/time  ``isoformat()`` string
``timedelta``               total seconds (number)
``Decimal``                 string of the exact decimal (``"1.10"``); non-finite -> ``null``
``UUID``                    canonical string
``Enum`` member             its ``value``, encoded by these rules
``set``/``frozenset``       array, sorted when the items are sortable
``tuple``/``deque``         array
other ``Mapping``           object
``bytes``/``bytearray``     the text when valid UTF-8, otherwise standard base64
dict keys                   str as is; int/float/bool/None as JSON spells them; others ``str(key)``
circular reference          the string ``"<circular reference>"``
nesting deeper than 100     the string ``"<nested too deeply>"`` in place of the deeper value
anything else               ``str(obj)`` (then ``repr``, then ``"<unprintable T object>"``)
==========================  ===============================================================
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import dataclasses
import datetime as _dt
import enum
import functools
import inspect
import json
import logging
import math
import re
import sys
import uuid
from collections import deque
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "JsonReturningToolMixin", "drain", "ensure_json_str",
           "safe_text", "to_jsonable"]

log = logging.getLogger(__name__)

#: Python containers nested deeper than this are cut off (the deeper value becomes a marker string).
MAX_DEPTH = 100
#: A generator result is consumed up to this many items; a longer one is refused.
MAX_ITEMS = 10_000
CIRCULAR = "<circular reference>"
TOO_DEEP = "<nested too deeply>"
_HEX_DIGITS_BEYOND = 100_000  # decimal conversion of bigger ints is quadratic: use hex past this

_SURROGATES = re.compile("[\ud800-\udfff]")
_DUMPS = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False).encode
_DECODER = json.JSONDecoder()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def _strict_loads(text: str) -> Any:
    try:
        return _loads(text)
    except RecursionError:  # decide on a fresh stack, so that the caller's depth does not matter
        return _on_fresh_stack(_loads, text)


def _on_fresh_stack(func: Any, arg: Any) -> Any:
    import threading

    out: list = []

    def run() -> None:
        try:
            out.append((True, func(arg)))
        except BaseException as exc:
            out.append((False, exc))

    thread = threading.Thread(target=run, name="dispatchguard-json", daemon=True)
    thread.start()
    thread.join()
    ok, value = out[0]
    if not ok:
        raise value
    return value


def _escape_surrogates(text: str) -> str:
    """Write raw lone surrogates as ``\\uXXXX`` escapes (only valid inside JSON strings)."""
    if text.isascii() or _SURROGATES.search(text) is None:
        return text
    return _SURROGATES.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def safe_text(obj: Any) -> str:
    """``str(obj)``, falling back to ``repr(obj)`` and then to a type-name placeholder. Never raises
    (``KeyboardInterrupt``/``SystemExit`` aside, even from a ``__str__`` raising a ``BaseException``)."""
    for conv in (str, repr):
        try:
            text = conv(obj)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:
            continue
        if type(text) is str:  # pragma: no branch - str()/repr() return str or raise
            return text
    log.debug("ensure_json_str: str() and repr() failed for an object; using a placeholder")
    return f"<unprintable {type(obj).__qualname__} object>"


def _big_int_text(n: int) -> str:
    """Decimal digits of an int too long for ``str()`` (``sys.get_int_max_str_digits``)."""
    if n.bit_length() > _HEX_DIGITS_BEYOND * 3.33:
        return hex(n)
    sign = "-" if n < 0 else ""
    n = abs(n)
    chunk = 10**1000
    parts = []
    while n:
        n, rem = divmod(n, chunk)
        parts.append(rem)
    out = [str(parts[-1])]
    out.extend(str(p).zfill(1000) for p in reversed(parts[:-1]))
    return sign + "".join(out)


def _int(n: int) -> int | str:
    n = int.__index__(n)  # plain int for int subclasses
    try:
        str(n)
    except ValueError:
        log.debug("ensure_json_str: int beyond the str-conversion limit encoded as a string")
        return _big_int_text(n)
    return n


def _key(k: Any) -> str:
    if type(k) is str:
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if k is None:
        return "null"
    if isinstance(k, enum.Enum):
        return _key(k.value)
    if isinstance(k, int):
        v = _int(k)
        return v if type(v) is str else str(v)
    if isinstance(k, float):
        return float.__repr__(k) if math.isfinite(k) else "null"
    if isinstance(k, str):
        return str.__str__(k)
    return safe_text(k)


#: Items the generators of one conversion may yield in all (nested generators share it: a width
#: of 10 at a depth of 7 once ran for minutes, each generator under its own cap).
_GENERATOR_BUDGET: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("generator_budget", default=None)


def to_jsonable(obj: Any, _depth: int = 0, _path: set[int] | None = None) -> Any:
    """Convert ``obj`` to plain JSON data (dict/list/str/int/float/bool/None).

    The result has no cycles, no non-finite floats, no ints beyond the str-conversion limit and
    is at most :data:`MAX_DEPTH` containers deep; the generators in it yield at most
    :data:`MAX_ITEMS` items in all. May raise only on pathological objects (for example a mapping
    whose ``items()`` raises); :func:`ensure_json_str` catches that.
    """
    if _GENERATOR_BUDGET.get() is not None:
        return _convert(obj, _depth, _path)
    token = _GENERATOR_BUDGET.set([MAX_ITEMS])
    try:
        return _convert(obj, _depth, _path)
    finally:
        _GENERATOR_BUDGET.reset(token)


def _convert(obj: Any, _depth: int = 0, _path: set[int] | None = None) -> Any:
    return _converter_of(obj)(obj, _depth, _path)


def _converter_of(obj: Any) -> Any:
    """``obj``'s converter ``(obj, depth, path) -> JSON data``: by exact type first (the plain JSON
    types and the built-in containers), then by the ordered table of kinds (:data:`_KINDS`).
    Containers call it on their items themselves, so that a level of nesting costs two frames."""
    return _EXACT.get(type(obj)) or _converter(obj)


def _same(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    return obj


def _as_int(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    return _int(obj)


def _as_float(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    f = float(obj)
    return f if math.isfinite(f) else None


def _as_str(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    return str.__str__(obj)


def _enum_value(obj: Any, depth: int, path: set[int] | None) -> Any:
    value = obj.value
    return _converter_of(value)(value, depth, path)


def _tool_message_content(obj: Any, depth: int, path: set[int] | None) -> Any:
    content = obj.content
    return _converter_of(content)(content, depth, path)


def _enter(obj: Any, depth: int, path: set[int] | None) -> tuple[set[int], str | None]:
    """Enter container ``obj``: the path with it added, or a marker in its place (past
    :data:`MAX_DEPTH`, or a cycle). Its converter removes it from the path when done."""
    path = set() if path is None else path
    if depth >= MAX_DEPTH:
        log.debug("ensure_json_str: nesting deeper than %d replaced by a marker", MAX_DEPTH)
        return path, TOO_DEEP
    if id(obj) in path:
        log.debug("ensure_json_str: circular reference replaced by a marker")
        return path, CIRCULAR
    path.add(id(obj))
    return path, None


def _mapping(obj: Any, depth: int, path: set[int] | None) -> Any:
    path, cut = _enter(obj, depth, path)
    if cut is not None:
        return cut
    try:
        return {_key(k): _converter_of(v)(v, depth + 1, path) for k, v in obj.items()}
    finally:
        path.discard(id(obj))


def _array(obj: Any, depth: int, path: set[int] | None) -> Any:
    path, cut = _enter(obj, depth, path)
    if cut is not None:
        return cut
    try:
        return [_converter_of(v)(v, depth + 1, path) for v in obj]
    finally:
        path.discard(id(obj))


def _set(obj: Any, depth: int, path: set[int] | None) -> Any:
    path, cut = _enter(obj, depth, path)
    if cut is not None:
        return cut
    try:
        items = list(obj)
        with contextlib.suppress(Exception):  # unsortable items, or a hostile __lt__
            items = sorted(items)
        return [_converter_of(v)(v, depth + 1, path) for v in items]
    finally:
        path.discard(id(obj))


def _model(obj: Any, depth: int, path: set[int] | None) -> Any:
    path, cut = _enter(obj, depth, path)
    if cut is not None:
        return cut
    try:
        try:
            data = obj.model_dump(mode="json")
        except Exception:
            log.debug("ensure_json_str: model_dump failed; using str()")
            return safe_text(obj)
        return _converter_of(data)(data, depth + 1, path)
    finally:
        path.discard(id(obj))


def _dataclass(obj: Any, depth: int, path: set[int] | None) -> Any:
    path, cut = _enter(obj, depth, path)
    if cut is not None:
        return cut
    try:
        values = {f.name: getattr(obj, f.name, None) for f in dataclasses.fields(obj)}
        return {name: _converter_of(v)(v, depth + 1, path) for name, v in values.items()}
    finally:
        path.discard(id(obj))


def _generator(obj: Any, depth: int, path: set[int] | None) -> Any:
    return _array(drain(obj, _GENERATOR_BUDGET.get()), depth, path)


def _v1_model(obj: Any, depth: int, path: set[int] | None) -> Any:
    return _mapping(obj.dict(), depth, path)


def _isoformat(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    return obj.isoformat()


def _seconds(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    return obj.total_seconds()


def _decimal(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    return str(obj) if obj.is_finite() else None


def _uuid(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    return str(obj)


def _bytes(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    raw = bytes(obj)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return base64.b64encode(raw).decode("ascii")


def _text(obj: Any, _depth: int, _path: set[int] | None) -> Any:
    log.debug("ensure_json_str: %s encoded with str()", type(obj).__name__)
    return safe_text(obj)


def drain(gen: Any, budget: list[int] | None = None) -> list:
    """The items of a generator, at most :data:`MAX_ITEMS`, or what is left of a shared ``budget``
    (``ValueError`` beyond; the generator is closed)."""
    budget = budget if budget is not None else [MAX_ITEMS]
    items = []
    for item in gen:
        if budget[0] <= 0:
            gen.close()
            raise ValueError(f"the generators yielded more than {MAX_ITEMS} items in all; return a list instead")
        budget[0] -= 1
        items.append(item)
    return items


def _is_tool_message(obj: Any) -> bool:
    cls = type(obj)
    return cls.__name__ == "ToolMessage" and (getattr(cls, "__module__", "") or "").startswith("langchain_core.")


def _is_v1_model(obj: Any) -> bool:
    mod = sys.modules.get("pydantic.v1")
    base = getattr(mod, "BaseModel", None) if mod is not None else None
    return base is not None and isinstance(obj, base)


def _pydantic_model_cls() -> Any:
    mod = sys.modules.get("pydantic")
    return getattr(mod, "BaseModel", None) if mod is not None else None


_EXACT: dict[type, Any] = {
    str: _same, type(None): _same, bool: _same, int: _as_int, float: _as_float,
    dict: _mapping, list: _array, tuple: _array, deque: _array, set: _set, frozenset: _set,
}


def _is_instance(*types: type) -> Any:
    return lambda obj: isinstance(obj, types)


def _is_model(obj: Any) -> bool:
    model = _pydantic_model_cls()
    return model is not None and isinstance(obj, model)


def _is_dataclass(obj: Any) -> bool:
    return dataclasses.is_dataclass(obj) and not isinstance(obj, type)


#: The kinds of value past the exact types, in the order they are tried: an enum member before
#: the str/int/float it may also be, models and dataclasses before the mappings they may also be.
_KINDS: tuple[tuple[Any, Any], ...] = (
    (_is_instance(enum.Enum), _enum_value),
    (_is_instance(str), _as_str),
    (_is_instance(int), _as_int),  # an int subclass (bool cannot be subclassed)
    (_is_instance(float), _as_float),
    (inspect.isgenerator, _generator),
    (_is_tool_message, _tool_message_content),
    (_is_v1_model, _v1_model),
    (_is_model, _model),
    (_is_dataclass, _dataclass),
    (_is_instance(Mapping), _mapping),
    (_is_instance(set, frozenset), _set),
    (_is_instance(list, tuple, deque), _array),
    (_is_instance(_dt.datetime, _dt.date, _dt.time), _isoformat),
    (_is_instance(_dt.timedelta), _seconds),
    (_is_instance(Decimal), _decimal),
    (_is_instance(uuid.UUID), _uuid),
    (_is_instance(bytes, bytearray, memoryview), _bytes),
)


def _converter(obj: Any) -> Any:
    """The converter of the first kind ``obj`` is, else ``str()``."""
    return next((convert for test, convert in _KINDS if test(obj)), _text)


def _from_str(text: str) -> str:
    try:
        _strict_loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return _escape_surrogates(_DUMPS(text))
    return _escape_surrogates(text)


def ensure_json_str(obj: Any) -> str:
    """Return ``obj`` as strict JSON text. Never raises; see the module docstring for the rules."""
    try:
        t = type(obj)
        if t is str:
            return _from_str(obj)
        if t is int:
            try:
                return str(obj)
            except ValueError:
                pass
        elif obj is None:
            return "null"
        elif t is bool:
            return "true" if obj else "false"
        elif t is float and math.isfinite(obj):
            return float.__repr__(obj)
        elif isinstance(obj, str):
            return _from_str(str.__str__(obj))
        return _escape_surrogates(_DUMPS(to_jsonable(obj)))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:
        log.debug("ensure_json_str: serialisation failed; falling back to {'result': text}", exc_info=True)
        return _last_resort(obj)


def _last_resort(obj: Any) -> str:
    try:
        import reprlib

        text = reprlib.Repr().repr(obj)  # bounded depth and length; catches hostile __repr__
        if type(text) is not str:  # pragma: no cover - reprlib always returns str
            text = "<unprintable object>"
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:
        text = "<unprintable object>"
    try:
        return _escape_surrogates(_DUMPS({"result": text}))
    except Exception:  # pragma: no cover - text is a plain str
        return '{"result": "<unprintable object>"}'


# --------------------------------------------------------------------------------------------
# class-based tools


_WRAPPED = "__dispatchguard_json_wrapped__"


def _wrap_sync(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        return ensure_json_str(fn(*args, **kwargs))

    setattr(wrapper, _WRAPPED, True)
    return wrapper


def _wrap_async(fn: Any) -> Any:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> str:
        return ensure_json_str(await fn(*args, **kwargs))

    setattr(wrapper, _WRAPPED, True)
    return wrapper


class JsonReturningToolMixin:
    """Mixin for class-based tools (CrewAI/LangChain style).

    ``run``/``_run`` (and the async ``arun``/``_arun``) defined by a subclass are wrapped so that
    their results pass through :func:`ensure_json_str`. Put the mixin first in the bases::

        class FileWriterTool(JsonReturningToolMixin, BaseTool):
            def _run(self, path: str, text: str) -> dict: ...
    """

    _json_methods = ("run", "_run", "arun", "_arun")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in cls._json_methods:
            fn = cls.__dict__.get(name)
            if fn is None or not callable(fn) or getattr(fn, _WRAPPED, False):
                continue
            wrapped = _wrap_async(fn) if inspect.iscoroutinefunction(fn) else _wrap_sync(fn)
            setattr(cls, name, wrapped)
