"""Argument compilation on pydantic-core and jsonschema-rs: JSON types mapped back to Python types,
no coercion, our error messages, exports of models, injected arguments."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import json
import uuid
from typing import Annotated, Any, Literal

import pydantic
import pytest
from langchain_core.tools import InjectedToolCallId
from pydantic import BaseModel, Field, model_validator

from dispatchguard import InjectedArg, ToolRegistry, dispatch_tool, render_tool_prompt, validate_tool_call
from dispatchguard.runtime import RegistryError


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Mixed(enum.Enum):
    ONE = 1
    A = "a"
    HALF = 0.5


class Pair(enum.Enum):
    P = (1, 2)


class Point(BaseModel):
    x: int
    y: int = 0


def ok(reg, name, args):
    v = validate_tool_call({"name": name, "args": args}, reg)
    assert v.valid, v.error
    return v


def bad(reg, name, args):
    v = validate_tool_call({"name": name, "args": args}, reg)
    assert not v.valid and v.kind == "invalid_args", v
    return v.error


def test_enums_and_literals_match_json_type_and_value():
    reg = ToolRegistry()

    def f(c: Color, m: Mixed = Mixed.ONE, lit: Literal[1, "x", None, 2.5, False] = "x", p: Pair = Pair.P):
        return [c, m, lit]

    reg.register("f", f)
    v = ok(reg, "f", {"c": "green", "m": "a", "lit": None})
    assert v.values["c"] is Color.GREEN and v.values["m"] is Mixed.A and v.args["c"] == "green"
    assert ok(reg, "f", {"c": "red", "m": 0.5, "lit": 2.5}).values["m"] is Mixed.HALF
    assert ok(reg, "f", {"c": "red", "lit": False}).values["lit"] is False
    bad(reg, "f", {"c": "red", "m": True})  # True is not 1
    assert ok(reg, "f", {"c": "red", "lit": 1}).values["lit"] == 1
    assert "expected one of 'red' or 'green', got string \"blue\"" in bad(reg, "f", {"c": "blue"})
    assert "expected string, got integer 1" in bad(reg, "f", {"c": 1})
    bad(reg, "f", {"c": "red", "lit": True})  # True is not 1
    bad(reg, "f", {"c": "red", "lit": 1.0})  # 1.0 is not 1
    bad(reg, "f", {"c": "red", "m": 2})
    bad(reg, "f", {"c": "red", "p": [1, 2]})  # a tuple-valued enum cannot come from JSON
    assert dispatch_tool({"name": "f", "args": {"c": "green"}}, registry=reg) == '["green", 1, "x"]'
    props = reg.schema("f")["properties"]
    assert props["c"] == {"type": "string", "enum": ["red", "green"]}
    assert 'c (one of "red", "green", required)' in render_tool_prompt(reg)


def test_json_encoded_python_types():
    reg = ToolRegistry()

    def f(when: dt.datetime, day: dt.date, at: dt.time, ident: uuid.UUID, amount: decimal.Decimal,
          wait: dt.timedelta, tags: set[str] = frozenset(), pair: tuple[int, str] = (0, "")):
        return {"when": when, "day": day, "at": at, "ident": ident, "amount": amount, "wait": wait,
                "tags": tags, "pair": pair}

    reg.register("f", f)
    good = {"when": "2024-05-01T10:00:00Z", "day": "2024-05-01", "at": "10:00:00",
            "ident": "12345678-1234-5678-1234-567812345678", "amount": "1.10", "wait": "PT1H",
            "tags": ["b", "a"], "pair": [1, "x"]}
    v = ok(reg, "f", good)
    assert isinstance(v.values["when"], dt.datetime) and v.values["wait"] == dt.timedelta(hours=1)
    assert v.values["amount"] == decimal.Decimal("1.10") and v.values["pair"] == (1, "x")
    assert ok(reg, "f", {**good, "amount": 2, "wait": 60}).values["wait"] == dt.timedelta(seconds=60)
    assert json.loads(dispatch_tool({"name": "f", "args": good}, registry=reg)) == {
        "when": "2024-05-01T10:00:00+00:00", "day": "2024-05-01", "at": "10:00:00",
        "ident": "12345678-1234-5678-1234-567812345678", "amount": "1.10", "wait": 3600.0,
        "tags": ["a", "b"], "pair": [1, "x"]}
    for field, value in (("when", 1714557600), ("when", "yesterday"), ("ident", "nope"), ("day", 5),
                         ("tags", "ab"), ("pair", [1, 2])):
        bad(reg, "f", {**good, field: value})
    props = reg.schema("f")["properties"]
    assert props["when"] == {"type": "string", "format": "date-time"}
    assert props["ident"]["format"] == "uuid"


def test_nested_models_dicts_and_unions():
    reg = ToolRegistry()

    def f(at: Point, counts: dict[str, int], either: int | Color | None = None, more: list[Point] = ()):
        return [at, counts, either, more]

    reg.register("f", f)
    v = ok(reg, "f", {"at": {"x": 1}, "counts": {"a": 1}, "either": "red", "more": [{"x": 2, "y": 3}]})
    assert v.values["at"] == Point(x=1) and v.values["either"] is Color.RED
    assert v.args["more"] == [{"x": 2, "y": 3}]
    assert "argument 'at': field 'x': missing" in bad(reg, "f", {"at": {}, "counts": {}})
    assert "argument 'at': field 'x': expected integer, got string \"1\"" in bad(reg, "f",
                                                                                 {"at": {"x": "1"}, "counts": {}})
    assert "argument 'counts': field 'a': expected integer" in bad(reg, "f", {"at": {"x": 1}, "counts": {"a": 1.5}})
    assert "argument 'more': item 0: field 'x'" in bad(reg, "f", {"at": {"x": 1}, "counts": {}, "more": [{}]})
    err = bad(reg, "f", {"at": {"x": 1}, "counts": {}, "either": 1.5})
    assert "argument 'either': expected integer or one of 'red', 'green', got number 1.5" in err
    assert "(and" not in err
    many = bad(reg, "f", {"at": {}, "counts": 1})
    assert "(and 1 more error(s))" in many
    strict = reg.export("openai")[0]["function"]["parameters"]
    assert strict["properties"]["at"]["additionalProperties"] is False
    assert strict["properties"]["at"]["required"] == ["x", "y"]
    assert '"default"' not in json.dumps(strict)


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


class Ordered(BaseModel):
    low: int
    high: int

    @model_validator(mode="after")
    def check(self) -> Ordered:
        if self.low > self.high:
            raise ValueError("low must not exceed high")
        return self


class Later(BaseModel):
    inner: Inner


class Inner(BaseModel):
    v: int


def test_models_as_schemas():
    reg = ToolRegistry()
    reg.register("tree", lambda **kw: kw, schema=Tree)
    v = ok(reg, "tree", {"label": "a", "children": [{"label": "b"}]})
    assert v.values["children"][0] == Tree(label="b")
    assert "$defs" in reg.schema("tree")  # recursive: kept as a reference
    assert "children (array of object with label, children, optional, default [])" in render_tool_prompt(reg)

    reg.register("ordered", lambda low, high: high - low, schema=Ordered)
    assert dispatch_tool({"name": "ordered", "args": {"low": 1, "high": 3}}, registry=reg) == "2"
    assert "low must not exceed high" in bad(reg, "ordered", {"low": 3, "high": 1})
    assert "unknown argument(s)" in dispatch_tool({"name": "ordered", "args": {"low": 1, "high": 3, "z": 1}},
                                                  registry=reg, unknown_args="reject")

    reg.register("later", lambda inner: inner.v, schema=Later)
    assert dispatch_tool({"name": "later", "args": {"inner": {"v": 4}}}, registry=reg) == "4"

    def described(q: str):
        """Search.

        Args:
            q: what to look for
        """
        return q

    class Query(BaseModel):
        q: str

    reg.register("described", described, schema=Query)
    assert reg.schema("described")["properties"]["q"]["description"] == "what to look for"


def test_signature_details():
    reg = ToolRegistry()

    def f(a: int = Field(3, ge=0), b: Annotated[int, "b's words"] = 1, raw=None, *, c: Any = None):
        """Do.

        Args:
            a: the a
        """
        return [a, b, raw, c]

    reg.register("f", f)
    props = reg.schema("f")["properties"]
    assert props["a"]["description"] == "the a" and props["a"]["minimum"] == 0
    assert props["b"]["description"] == "b's words"
    assert ok(reg, "f", {"raw": {"any": ["json", 1]}}).values["raw"] == {"any": ["json", 1]}
    bad(reg, "f", {"a": -1})

    def g(x: Opaque = OPAQUE):
        return x

    with pytest.raises(RegistryError, match="unsupported argument type"):
        reg.register("g", g)
    with pytest.raises(RegistryError, match="not a valid value"):
        reg.register("h", _bad_default)
    with pytest.raises(RegistryError, match="must be coercible to an integer"):
        reg.register("m", _int_multiple_of_half)


class Opaque:
    pass


OPAQUE = Opaque()


def _bad_default(x: int = "three"):  # type: ignore[assignment]
    return x


def _int_multiple_of_half(n: Annotated[int, Field(multiple_of=0.5)]):
    return n


def test_patterns_are_rust_regexes_and_formats_are_checked():
    reg = ToolRegistry()

    def f(word: Annotated[str, Field(pattern=r"^[a-z]+$")] = "a", rx: Annotated[str, Field(pattern=r"^(a+)+$")] = "a"):
        return word

    reg.register("f", f)
    reg.register("g", lambda **kw: kw, schema={"type": "object", "properties": {
        "word": {"type": "string", "pattern": "^[a-z]+$"}, "rx": {"type": "string", "pattern": "^(a+)+$"},
        "when": {"type": "string", "format": "date-time"}, "n": {"type": "integer", "multipleOf": 0.5}}})
    for name in ("f", "g"):
        assert "match" in bad(reg, name, {"word": "abc\n"})  # $ is the end of the text, not of a line
        bad(reg, name, {"rx": "a" * 27 + "!"})  # linear-time engine (Python's re backtracks for seconds)
    assert "is not a \"date-time\"" in bad(reg, "g", {"when": "tomorrow"})
    huge = int("9" * 401)
    assert ok(reg, "g", {"n": huge}).values["n"] == huge

    def half(n: Annotated[float, Field(multiple_of=0.5)]):
        return n

    reg.register("half", half)
    assert "argument 'n': expected number, got integer 999" in bad(reg, "half", {"n": huge})  # beyond a double


def test_json_schema_errors_and_values():
    reg = ToolRegistry()
    reg.register("g", lambda **kw: kw, schema={"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "integer"}}}},
        "opt": {"type": "integer", "default": 2}}, "required": ["items"]})
    assert "missing required argument 'items' (array of object with k)" in bad(reg, "g", {})
    assert "argument 'items': item 0: field 'k': expected integer, got string \"1\"" in bad(
        reg, "g", {"items": [{"k": "1"}]})
    assert ok(reg, "g", {"items": [], "opt": None}).values == {"items": [], "opt": 2}
    assert "argument names must be strings" in bad(reg, "g", {"items": [], 3: 1})
    with pytest.raises(RegistryError, match="not JSON"):
        reg.register("nan", lambda **kw: kw, schema={"type": "object", "properties": {"a": {"enum": [float("nan")]}}})
    with pytest.raises(RegistryError, match="invalid JSON Schema"):
        reg.register("rx", lambda **kw: kw, schema={"type": "object", "properties": {"a": {"pattern": "("}}})
    with pytest.raises(RegistryError, match="remote"):
        reg.register("remote", lambda **kw: kw, schema={"type": "object", "properties": {
            "a": {"$ref": "https://example.com/s.json"}}})


def test_pydantic_v1_models_as_schemas():
    from pydantic.v1 import BaseModel as V1Model

    class Args(V1Model):
        q: str
        n: int = 2

    class Broken(V1Model):
        q: str

        @classmethod
        def schema(cls, *args, **kwargs):
            raise RuntimeError("no schema")

    reg = ToolRegistry()
    reg.register("v1", lambda q, n: q * n, schema=Args)
    assert dispatch_tool({"name": "v1", "args": {"q": "ab"}}, registry=reg) == '"abab"'
    with pytest.raises(RegistryError, match="cannot build the JSON Schema"):
        reg.register("broken", lambda q: q, schema=Broken)


def test_injected_arguments_of_plain_functions():
    reg = ToolRegistry()
    seen = []

    def f(q: str, user: Annotated[str, InjectedArg("user_id")], tenant: Annotated[str, InjectedArg] = "t0"):
        seen.append((q, user, tenant))
        return f"{user}@{tenant}:{q}"

    reg.register("f", f)
    assert list(reg.schema("f")["properties"]) == ["q"]
    assert [p.name for p in reg.spec("f").injected] == ["user", "tenant"]
    assert repr(InjectedArg("user_id")) == "InjectedArg('user_id')" and repr(InjectedArg()) == "InjectedArg()"
    call = {"name": "f", "args": {"q": "x", "user": "admin", "tenant": "evil"}}
    missing = json.loads(dispatch_tool(call, registry=reg))
    assert missing["kind"] == "missing_context" and "context={'user_id': ...}" in missing["error"]
    assert dispatch_tool(call, registry=reg, context={"user_id": "u1"}) == '"u1@t0:x"'
    assert dispatch_tool(call, registry=reg, context={"user_id": "u1", "tenant": "acme"}) == '"u1@acme:x"'
    assert seen == [("x", "u1", "t0"), ("x", "u1", "acme")]
    assert "user" not in render_tool_prompt(reg).split("Available tools:")[1].split("The tool call")[0]


def test_injected_tool_call_id_for_plain_functions():
    reg = ToolRegistry()

    def f(q: str, call: Annotated[str, InjectedToolCallId]):
        return f"{call}:{q}"

    reg.register("f", f)
    assert dispatch_tool({"name": "f", "args": {"q": "x"}}, registry=reg, context={"tool_call_id": "c1"}) == '"c1:x"'
    generated = json.loads(dispatch_tool({"name": "f", "args": {"q": "x", "call": "forged"}}, registry=reg))
    assert generated.startswith("call_") and generated.endswith(":x") and "forged" not in generated


class Normalised(BaseModel):
    """Arguments with a before-validator: it sees the model's JSON object, and what it returns is
    then checked as strictly as any arguments."""

    a: int
    b: int = 0

    @model_validator(mode="before")
    @classmethod
    def default_b_to_a(cls, data):
        return {**data, "b": data["a"]} if isinstance(data, dict) and "b" not in data and "a" in data else data


def test_a_model_with_a_before_validator_is_as_strict_as_any():
    reg = ToolRegistry()
    reg.register("norm", lambda a, b: a * 10 + b, schema=Normalised)
    assert dispatch_tool({"name": "norm", "args": {"a": 1}}, registry=reg) == "11"
    assert ok(reg, "norm", {"a": 2, "b": 5}).values == {"a": 2, "b": 5}
    assert "argument 'a': expected integer, got string \"1\"" in bad(reg, "norm", {"a": "1"})
    assert "expected integer" in bad(reg, "norm", {"a": True})
    assert "expected integer" in bad(reg, "norm", {"a": 1.0, "b": 2})


class Ints(pydantic.RootModel[list[int]]):
    pass


def test_a_root_model_argument_is_as_strict_as_any():
    reg = ToolRegistry()

    @reg.tool
    def count(tags: Ints) -> int:
        return len(tags.root)

    assert dispatch_tool({"name": "count", "args": {"tags": [1, 2]}}, registry=reg) == "2"
    v = ok(reg, "count", {"tags": [3]})
    assert type(v.values["tags"]) is Ints and v.values["tags"].root == [3] and v.args == {"tags": [3]}
    assert "expected integer" in bad(reg, "count", {"tags": ["1"]})
    assert "expected integer" in bad(reg, "count", {"tags": [True]})
    assert "expected array" in bad(reg, "count", {"tags": "1"})


def test_a_union_with_a_model_names_it_an_object():
    reg = ToolRegistry()

    @reg.tool
    def place(at: Point | int) -> int:
        return 1

    assert "argument 'at': expected object or integer, got string \"s\"" in bad(reg, "place", {"at": "s"})
    assert "expected object or integer" in bad(reg, "place", {"at": 1.5})


def test_a_deep_schema_costs_few_frames_a_level():
    """Registering, describing and rejecting with a schema nested 120 deep, from a caller whose
    stack leaves three frames a level: the schema walks recurse one frame a level (a copy two)."""
    import inspect
    import sys

    depth = 120
    schema: dict = {"type": "integer"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}

    def stack_depth() -> int:
        frame, n = inspect.currentframe(), 0
        while frame is not None:
            frame, n = frame.f_back, n + 1
        return n

    def run_at(spare: int) -> tuple[str, str]:
        if stack_depth() < sys.getrecursionlimit() - spare:
            return run_at(spare)
        reg = ToolRegistry()
        reg.register("deep", lambda x: 1, schema={"type": "object", "properties": {"x": schema}, "required": ["x"]})
        return render_tool_prompt(reg), dispatch_tool({"name": "deep", "args": {}}, registry=reg)

    prompt, error = run_at(3 * depth)
    assert "array of " * depth + "integer" in prompt
    assert "missing required argument 'x' (array of array of" in json.loads(error)["error"]
