"""ensure_json_str: every bullet of the contract, as hypothesis properties over hostile objects."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import logging
import sys
import uuid
from collections import OrderedDict, deque
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from dispatchguard.runtime.json_text import (
    CIRCULAR,
    MAX_DEPTH,
    TOO_DEEP,
    JsonReturningToolMixin,
    ensure_json_str,
    safe_text,
    to_jsonable,
)


def _raise(name):
    raise ValueError(name)


def strict_loads(s):
    return json.loads(s, parse_constant=_raise)


def assert_strict(s):
    assert type(s) is str
    s.encode("utf-8")
    return strict_loads(s)


class Color(enum.Enum):
    RED = "red"
    BLUE = 2


class Level(enum.IntEnum):
    LOW = 1


class Model(BaseModel):
    x: int
    when: dt.date
    tags: list[str] = []


@dataclasses.dataclass
class Point:
    x: float
    y: object = None


class BadStr:
    def __str__(self):
        raise RuntimeError("no str")

    def __repr__(self):
        raise RuntimeError("no repr")


class BadStrOnly:
    def __str__(self):
        raise RuntimeError("no str")

    def __repr__(self):
        return "BadStrOnly()"


class WeirdStr(str):
    def __str__(self):
        raise RuntimeError("hostile")


class BadMapping(dict):
    def items(self):
        raise RuntimeError("boom")


class BadModel(BaseModel):
    x: int = 1

    def model_dump(self, **kw):
        raise RuntimeError("no dump")


def circular_list():
    a = [1]
    a.append(a)
    return a


def circular_dict():
    d = {"k": 1}
    d["self"] = d
    return d


def deep(n):
    x = []
    for _ in range(n):
        x = [x]
    return x


leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(), st.binary(max_size=20), st.decimals(allow_nan=True, allow_infinity=True),
    st.uuids(), st.datetimes(), st.dates(), st.times(), st.timedeltas(),
    st.sampled_from([Color.RED, Color.BLUE, Level.LOW]),
    st.builds(BadStr), st.builds(BadStrOnly), st.builds(object),
    st.integers(min_value=10**4400, max_value=10**4500),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF).map(lambda c: "x" + c),
    st.builds(Point, st.floats(), st.none()),
    st.builds(Model, x=st.integers(-10, 10), when=st.dates()),
    st.builds(circular_list), st.builds(circular_dict),
    st.builds(deep, st.sampled_from([MAX_DEPTH - 1, MAX_DEPTH + 1, 3000, 100_000])),
)
keys = st.one_of(st.text(max_size=5), st.integers(), st.floats(), st.booleans(), st.none(),
                 st.tuples(st.integers()), st.just(Color.RED), st.builds(BadStrOnly))
hostile = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner),
        st.dictionaries(keys, inner, max_size=4),
        st.frozensets(st.one_of(st.integers(), st.text(max_size=3)), max_size=4),
        st.sets(st.one_of(st.integers(), st.none()), max_size=3),
    ),
    max_leaves=20,
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(hostile)
def test_always_strict_json_and_idempotent(obj):
    s = ensure_json_str(obj)
    assert_strict(s)
    assert ensure_json_str(s) == s


@given(json_values)
def test_json_document_strings_are_returned_unchanged(value):
    text = json.dumps(value, ensure_ascii=False)
    text = text if not any(0xD800 <= ord(c) <= 0xDFFF for c in text) else json.dumps(value)
    assert ensure_json_str(text) == text


# A str is text already: kept when it is a JSON document ("0", "[1]"), else a string literal (the
# tests around this one); every other JSON value is serialised and reads back equal.
@given(json_values.filter(lambda value: not isinstance(value, str)))
def test_plain_values_serialise_like_json(value):
    assert strict_loads(ensure_json_str(value)) == value


@given(st.text())
def test_other_strings_become_string_literals(text):
    try:
        strict_loads(text)
        text.encode("utf-8")
        is_doc = True
    except (ValueError, RecursionError, UnicodeEncodeError):
        is_doc = False
    s = ensure_json_str(text)
    assert_strict(s)
    if not is_doc:
        assert strict_loads(s) == text or any(0xD800 <= ord(c) <= 0xDFFF for c in text)
        assert s.startswith('"')


def test_not_ascii_escaped():
    assert ensure_json_str({"k": "é"}) == '{"k": "é"}'
    assert ensure_json_str("hello") == '"hello"'
    assert ensure_json_str("NaN") == '"NaN"'
    assert ensure_json_str(" [1, 2] ") == " [1, 2] "


@given(st.sampled_from([float("nan"), float("inf"), float("-inf"), -float("nan")]))
def test_non_finite_floats_become_null(f):
    assert ensure_json_str(f) == "null"
    assert ensure_json_str([f, {"x": f}]) == '[null, {"x": null}]'


def test_lone_surrogates_are_escaped():
    s = ensure_json_str("a\ud800b")
    assert s == '"a\\ud800b"'
    assert strict_loads(s) == "a\ud800b"
    doc = '{"k": "\ud83d"}'
    out = ensure_json_str(doc)
    assert out == '{"k": "\\ud83d"}'
    assert ensure_json_str({"\udfff": 1}) == '{"\\udfff": 1}'


def test_documented_encodings():
    assert strict_loads(ensure_json_str(Model(x=1, when=dt.date(2024, 1, 2)))) == Model(
        x=1, when=dt.date(2024, 1, 2)).model_dump(mode="json")
    assert strict_loads(ensure_json_str(Point(1.5, Color.RED))) == {"x": 1.5, "y": "red"}
    assert ensure_json_str(dt.datetime(2024, 1, 2, 3, 4, 5)) == '"2024-01-02T03:04:05"'
    assert ensure_json_str(dt.date(2024, 1, 2)) == '"2024-01-02"'
    assert ensure_json_str(dt.time(3, 4)) == '"03:04:00"'
    assert ensure_json_str(dt.timedelta(seconds=90)) == "90.0"
    assert ensure_json_str(Decimal("1.10")) == '"1.10"'
    assert ensure_json_str(Decimal("NaN")) == "null"
    u = uuid.UUID(int=5)
    assert ensure_json_str(u) == f'"{u}"'
    assert ensure_json_str({3, 1, 2}) == "[1, 2, 3]"
    assert strict_loads(ensure_json_str(frozenset({1, "a"}))) in ([1, "a"], ["a", 1])
    assert ensure_json_str((1, "a")) == '[1, "a"]'
    assert ensure_json_str(deque([1])) == "[1]"
    assert ensure_json_str(b"abc") == '"abc"'
    assert ensure_json_str(b"\xff\x00") == '"/wA="'
    assert ensure_json_str(bytearray(b"x")) == '"x"'
    assert ensure_json_str(Color.RED) == '"red"'
    assert ensure_json_str(Level.LOW) == "1"
    assert ensure_json_str(OrderedDict(a=1)) == '{"a": 1}'
    assert ensure_json_str({1: "a", None: 1, False: 2, 1.5: 3, float("nan"): 4, (1,): 5, Color.BLUE: 6}) == (
        '{"1": "a", "null": 4, "false": 2, "1.5": 3, "(1,)": 5, "2": 6}'
    )
    out = strict_loads(ensure_json_str({(1, 2): "t", Level.LOW: "e", WeirdStr("w"): 1, 10**5000: 1}))
    assert out["(1, 2)"] == "t" and out["1"] == "e" and out["w"] == 1
    assert ensure_json_str(True) == "true" and ensure_json_str(None) == "null"
    assert ensure_json_str(1.5) == "1.5"


def test_subclasses_of_primitives():
    class S(str):
        pass

    class Int(int):
        pass

    class F(float):
        pass

    assert ensure_json_str(S("x")) == '"x"'
    assert ensure_json_str(S("[1]")) == "[1]"
    assert ensure_json_str(WeirdStr("y")) == '"y"'
    assert ensure_json_str([Int(3), F(2.5), F("inf")]) == "[3, 2.5, null]"


def test_huge_ints(caplog):
    n = 10 ** (sys.get_int_max_str_digits() + 10)
    with caplog.at_level(logging.DEBUG, logger="dispatchguard.runtime.json_text"):
        s = ensure_json_str(n)
    assert strict_loads(s) == "1" + "0" * (sys.get_int_max_str_digits() + 10)
    assert "str-conversion limit" in caplog.text
    assert strict_loads(ensure_json_str(-n)).startswith("-1000")
    huge = 1 << 400_000
    assert strict_loads(ensure_json_str(huge)).startswith("0x1")
    assert strict_loads(ensure_json_str([n]))[0].startswith("1000")


def test_circular_references(caplog):
    with caplog.at_level(logging.DEBUG, logger="dispatchguard.runtime.json_text"):
        assert strict_loads(ensure_json_str(circular_list())) == [1, CIRCULAR]
    assert "circular" in caplog.text
    assert strict_loads(ensure_json_str(circular_dict())) == {"k": 1, "self": CIRCULAR}
    shared = [1]
    assert strict_loads(ensure_json_str([shared, shared])) == [[1], [1]]  # not a cycle


def test_deep_nesting():
    s = ensure_json_str(deep(100_000))
    v = assert_strict(s)
    depth = 0
    while isinstance(v, list):
        v = v[0] if v else None
        depth += 1
    assert depth == MAX_DEPTH and v == TOO_DEEP
    text = "[" * 100_000 + "]" * 100_000
    assert strict_loads(ensure_json_str(text)) == text
    d = {}
    cur = d
    for _ in range(5000):
        cur["a"] = {}
        cur = cur["a"]
    assert_strict(ensure_json_str(d))


def test_deep_nesting_costs_two_frames_a_level():
    """The containers cut off at MAX_DEPTH convert properly from a caller whose stack leaves only
    2.5 frames per level of nesting (the converters recurse two frames a level, as they did in
    one function), not through the last resort."""
    import inspect

    value = deep(MAX_DEPTH + 20)
    expected = ensure_json_str(value)
    assert expected.startswith("[[") and TOO_DEEP in expected  # converted, cut off: not the last resort

    def stack_depth() -> int:
        frame, n = inspect.currentframe(), 0
        while frame is not None:
            frame, n = frame.f_back, n + 1
        return n

    def convert_at(spare: int):
        if stack_depth() < sys.getrecursionlimit() - spare:
            return convert_at(spare)
        return ensure_json_str(value)

    assert convert_at(MAX_DEPTH * 5 // 2) == expected


def test_hostile_repr_and_last_resort(caplog):
    assert ensure_json_str(BadStr()) == '"<unprintable BadStr object>"'
    assert ensure_json_str(BadStrOnly()) == '"BadStrOnly()"'
    with caplog.at_level(logging.DEBUG, logger="dispatchguard.runtime.json_text"):
        s = ensure_json_str(BadMapping(a=1))
    assert list(strict_loads(s)) == ["result"]
    assert "falling back" in caplog.text
    assert strict_loads(ensure_json_str(BadModel())) == "x=1"

    assert safe_text(BadStrOnly()) == "BadStrOnly()"


def test_last_resort_when_even_repr_fails():
    class Evil(dict):
        def items(self):
            raise RuntimeError

        def __repr__(self):
            raise RuntimeError

    s = ensure_json_str(Evil(a=1))
    assert strict_loads(s) == {"result": strict_loads(s)["result"]}


def test_to_jsonable_bytes_memoryview():
    assert to_jsonable(memoryview(b"ab")) == "ab"


def test_mixin_wraps_run_and_arun():
    import asyncio

    class Tool(JsonReturningToolMixin):
        def run(self, x):
            return {"x": x}

        def _run(self, x):
            return [x]

        async def arun(self, x):
            return {"a": x}

    class Sub(Tool):
        def run(self, x):
            return super().run(x)

    t = Tool()
    assert t.run(1) == '{"x": 1}'
    assert t._run(float("nan")) == "[null]"
    assert asyncio.run(t.arun(2)) == '{"a": 2}'
    assert Sub().run(3) == '{"x": 3}'  # wrapped once per level, idempotent
    assert Tool.__dict__["run"].__name__ == "run"


def test_mixin_on_pydantic_based_tools():
    class Base(BaseModel):
        name: str = "t"

        def run(self, **kw):
            return self._run(**kw)

    class Tool(JsonReturningToolMixin, Base):
        def _run(self, x: int):
            return {"x": x, "when": dt.date(2024, 1, 1)}

    assert Tool().run(x=1) == '{"x": 1, "when": "2024-01-01"}'


@given(st.integers(-(10**6), 10**6), st.dates(), st.lists(st.text(max_size=5), max_size=3))
def test_property_pydantic_models_like_model_dump(x, when, tags):
    m = Model(x=x, when=when, tags=tags)
    assert strict_loads(ensure_json_str(m)) == m.model_dump(mode="json")


@given(st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5))
def test_property_dataclasses_as_objects(x, y):
    assert strict_loads(ensure_json_str(Point(x, y))) == {"x": x, "y": y}


@given(st.decimals(allow_nan=False, allow_infinity=False), st.uuids(), st.datetimes(), st.dates(),
       st.binary(max_size=30), st.sets(st.integers(), max_size=5), st.sampled_from(list(Color)))
def test_property_documented_encodings(dec, u, when, day, raw, ints, color):
    import base64

    out = strict_loads(ensure_json_str([dec, u, when, day, raw, ints, color, (1, 2)]))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = base64.b64encode(raw).decode()
    assert out == [str(dec), str(u), when.isoformat(), day.isoformat(), text, sorted(ints), color.value, [1, 2]]
    assert Decimal(out[0]) == dec


@given(st.text())
def test_property_strings_round_trip(text):
    s = ensure_json_str(text)
    assert_strict(s)
    assert ensure_json_str(s) == s


def test_nested_generators_share_one_budget():
    """Issue 23: the cap was per generator, so width 10 at depth 7 (10**7 items) ran for minutes."""
    import time

    from dispatchguard.runtime.json_text import MAX_ITEMS, ensure_json_str

    def tree(depth):
        return (tree(depth - 1) if depth else i for i in range(10))

    from dispatchguard import ToolRegistry, dispatch_tool

    started = time.process_time()
    ensure_json_str(tree(7))
    registry = ToolRegistry()
    registry.register("tree", lambda: tree(7))
    error = json.loads(dispatch_tool({"name": "tree", "args": {}}, registry=registry))
    assert time.process_time() - started < 5  # seconds, where 10**7 items took minutes
    assert error["kind"] == "tool_error" and f"more than {MAX_ITEMS} items in all" in error["error"]
    flat = ensure_json_str(i for i in range(MAX_ITEMS))  # exactly the budget is fine
    assert flat.startswith("[0, 1, 2")
