import asyncio
import json
import logging
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dispatchguard
from dispatchguard.runtime import (
    TOOL_REGISTRY,
    ToolAction,
    ToolRegistry,
    adispatch_tool,
    dispatch_tool,
    dispatch_tool_result,
)
from dispatchguard.runtime.dispatcher import adispatch_tool_result, error_json


def _raise(name):
    raise ValueError(name)


def strict(s):
    assert type(s) is str
    s.encode("utf-8")
    return json.loads(s, parse_constant=_raise)


class HttpError(Exception):
    error_kind = "http_error"

    def __init__(self, msg, **details):
        super().__init__(msg)
        self.error_details = details


def test_returns_json_text(reg):
    assert dispatch_tool({"name": "add", "args": {"a": 1, "b": 2}}, registry=reg) == "3"
    assert dispatch_tool('{"name": "add", "args": {"a": 1, "b": 2}}', registry=reg) == "3"
    assert dispatch_tool(ToolAction(name="add", args={"a": 1, "b": 2}), registry=reg) == "3"


def test_error_objects(reg):
    cases = {
        "{": "invalid_json",
        '{"name": "add"}': "invalid_action",
        '{"name": "sub", "args": {}}': "unknown_tool",
        '{"name": "add", "args": {"a": "1", "b": 2}}': "invalid_args",
        '{"name": "None", "args": {"clarification_needed": "Which numbers?"}}': "clarification",
    }
    for payload, kind in cases.items():
        obj = strict(dispatch_tool(payload, registry=reg))
        assert obj["kind"] == kind and set(obj) >= {"error", "kind", "tool"}, obj
    clar = strict(dispatch_tool(json.dumps({"name": "None", "args": {"clarification_needed": "Q?"}}), registry=reg))
    assert clar["question"] == "Q?" and clar["tool"] == "None"
    # the limit applies to the arguments the tool receives: unknown ones are dropped unread
    assert dispatch_tool({"name": "add", "args": {"a": 1, "b": 2, "pad": "x" * 5000}}, registry=reg,
                         max_bytes=1000) == "3"
    reg.register("echo", lambda text: text)
    too_big = strict(dispatch_tool({"name": "echo", "args": {"text": "x" * 5000}}, registry=reg, max_bytes=1000))
    assert too_big["kind"] == "payload_too_large"
    assert strict(dispatch_tool({"name": "add", "args": {"a": 1, "b": 2, "c": 3}}, registry=reg,
                                unknown_args="reject"))["kind"] == "invalid_args"
    assert strict(dispatch_tool({"name": "add", "args": {}}, registry=reg, unknown_args="x"))["kind"] == "invalid_call"


def test_tool_exceptions_and_details(caplog):
    r = ToolRegistry()

    @r.tool
    def boom() -> None:
        raise ValueError("bad thing")

    @r.tool
    def http() -> None:
        raise HttpError("503 from upstream", url="https://x", status=503, attempts=3, error="x", kind="y",
                        tool="z", obj=object(), nan=float("nan"))

    class WeirdKind(Exception):
        error_kind = 5
        error_details = ("not", "a", "mapping")

    @r.tool
    def weird() -> None:
        raise WeirdKind()

    class BadDetails(Exception):
        def __init__(self, msg):
            super().__init__(msg)
            self.error_details = {1: "int key"}

    @r.tool
    def bad_details() -> None:
        raise BadDetails("x")

    with caplog.at_level(logging.WARNING, logger="dispatchguard.runtime"):
        e = strict(dispatch_tool({"name": "boom", "args": {}}, registry=r))
    assert e == {"error": "tool 'boom' failed: ValueError: bad thing", "kind": "tool_error", "tool": "boom"}
    assert "bad thing" in caplog.text
    h = strict(dispatch_tool({"name": "http", "args": {}}, registry=r))
    assert h["kind"] == "http_error" and h["tool"] == "http" and h["error"].startswith("tool 'http' failed")
    assert (h["url"], h["status"], h["attempts"], h["nan"]) == ("https://x", 503, 3, None)
    assert h["obj"].startswith("<object object")
    w = strict(dispatch_tool({"name": "weird", "args": {}}, registry=r))
    assert w == {"error": "tool 'weird' failed: WeirdKind", "kind": "tool_error", "tool": "weird"}
    assert strict(dispatch_tool({"name": "bad_details", "args": {}}, registry=r))["1"] == "int key"


def test_error_json_hostile_details():
    class Hostile(dict):
        def items(self):
            raise RuntimeError

    assert strict(error_json("m", "k", "t", Hostile(a=1))) == {"error": "m", "kind": "k", "tool": "t"}
    assert strict(error_json("m", "k", 5))["tool"] == "5"


def test_propagates_interrupts():
    r = ToolRegistry()

    @r.tool
    def stop() -> None:
        raise KeyboardInterrupt

    @r.tool
    def exit_() -> None:
        raise SystemExit(2)

    @r.tool
    async def cancelled() -> None:
        raise asyncio.CancelledError

    with pytest.raises(KeyboardInterrupt):
        dispatch_tool({"name": "stop", "args": {}}, registry=r)
    with pytest.raises(SystemExit):
        dispatch_tool({"name": "exit_", "args": {}}, registry=r)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(adispatch_tool({"name": "cancelled", "args": {}}, registry=r))


def test_base_exception_subclass_is_contained():
    class Odd(BaseException):
        pass

    r = ToolRegistry()

    @r.tool
    def odd() -> None:
        raise Odd("weird")

    assert strict(dispatch_tool({"name": "odd", "args": {}}, registry=r))["kind"] == "tool_error"


def test_async_tools():
    r = ToolRegistry()

    @r.tool
    async def slow(x: int) -> dict:
        await asyncio.sleep(0)
        return {"x": x}

    @r.tool
    async def fails() -> None:
        raise HttpError("nope", status=404)

    @r.tool
    def sync(x: int) -> int:
        return x * 2

    assert dispatch_tool({"name": "slow", "args": {"x": 1}}, registry=r) == '{"x": 1}'

    async def main():
        a = await adispatch_tool({"name": "slow", "args": {"x": 2}}, registry=r)
        b = await adispatch_tool({"name": "sync", "args": {"x": 2}}, registry=r)
        c = strict(await adispatch_tool({"name": "fails", "args": {}}, registry=r))
        d = strict(dispatch_tool({"name": "slow", "args": {"x": 1}}, registry=r))  # loop running
        e = strict(await adispatch_tool("{", registry=r))
        f = strict(await adispatch_tool({"name": "sync", "args": {}}, registry=r, unknown_args="bad"))
        g = await adispatch_tool_result({"name": "slow", "args": {"x": 3}}, registry=r)
        return a, b, c, d, e, f, g

    a, b, c, d, e, f, g = asyncio.run(main())
    assert (a, b) == ('{"x": 2}', "4")
    assert c["kind"] == "http_error" and c["status"] == 404
    assert d["kind"] == "async_tool"
    assert e["kind"] == "invalid_json" and f["kind"] == "invalid_call"
    assert g.ok and g.text == '{"x": 3}' and g.tool == "slow"


def test_dispatch_tool_result(reg):
    ok = dispatch_tool_result({"name": "add", "args": {"a": 1, "b": 2}}, registry=reg)
    assert (ok.ok, ok.status, ok.kind, ok.tool, ok.text, ok.error) == (True, "ok", None, "add", "3", None)
    assert ok.duration_s >= 0
    bad = dispatch_tool_result({"name": "add", "args": {"a": 1}}, registry=reg)
    assert (bad.ok, bad.status, bad.kind, bad.tool) == (False, "error", "invalid_args", "add")
    assert "missing required argument 'b'" in bad.error
    clar = dispatch_tool_result({"name": "None", "args": {"clarification_needed": "?"}}, registry=reg)
    assert clar.kind == "clarification"
    r = ToolRegistry()
    r.register("fake_error", lambda: {"error": "x", "kind": "y", "tool": "z"})
    looks_like_error = dispatch_tool_result({"name": "fake_error", "args": {}}, registry=r)
    assert looks_like_error.ok  # a tool's own output is never mistaken for a dispatch error


def test_default_registry_and_top_level():
    name = "dg-test-default-registry-tool"
    TOOL_REGISTRY.register(name, lambda: "ok")
    try:
        assert dispatchguard.dispatch_tool({"name": name, "args": {}}) == '"ok"'
        assert dispatchguard.validate_tool_call({"name": name, "args": {}}).valid
        assert dispatchguard.ToolSpec is type(TOOL_REGISTRY.spec(name))
    finally:
        TOOL_REGISTRY.unregister(name)
    with pytest.raises(AttributeError):
        dispatchguard.no_such_name  # noqa: B018
    assert "dispatch_tool" in dir(dispatchguard)


def test_bad_names_never_dispatched(reg):
    for name in ("../etc/passwd", "add\x00", "a\\b", "add\n", "", "x" * 10_000):
        obj = strict(dispatch_tool({"name": name, "args": {}}, registry=reg))
        assert obj["kind"] == "unknown_tool"
        assert len(obj["error"]) < 500


def test_tool_outputs_are_json_text():
    r = ToolRegistry()
    r.register("nan", lambda: float("nan"))
    r.register("text", lambda: "plain words")
    r.register("doc", lambda: '{"already": "json"}')
    def circ():
        a = []
        a.append(a)
        return a

    r.register("circ", circ)
    assert dispatch_tool({"name": "nan", "args": {}}, registry=r) == "null"
    assert dispatch_tool({"name": "text", "args": {}}, registry=r) == '"plain words"'
    assert dispatch_tool({"name": "doc", "args": {}}, registry=r) == '{"already": "json"}'
    assert strict(dispatch_tool({"name": "circ", "args": {}}, registry=r)) == ["<circular reference>"]


prims = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
arg_values = prims | st.lists(prims, max_size=3) | st.dictionaries(st.text(max_size=3), prims, max_size=2) | \
    st.builds(object) | st.sets(st.integers(), max_size=2)
payloads = st.one_of(
    st.fixed_dictionaries({"name": st.sampled_from(["add", "echo", "boom", "None", "nope"]) | st.text(max_size=8),
                           "args": st.dictionaries(st.sampled_from(["a", "b", "x", "clarification_needed"])
                                                   | st.text(max_size=3) | st.integers(), arg_values, max_size=4)}),
    st.dictionaries(st.text(max_size=5) | st.integers(), arg_values, max_size=3),
    st.text(max_size=40),
    st.binary(max_size=40),
    arg_values,
)


@given(payloads, st.booleans())
def test_dispatch_never_raises_and_returns_strict_json(payload, as_text):
    r = _hyp_registry()
    if as_text and not isinstance(payload, (str, bytes)):
        try:
            payload = json.dumps(payload)
        except (TypeError, ValueError):
            pass
    out = dispatch_tool(payload, registry=r)
    value = strict(out)
    if isinstance(value, dict) and "kind" in value and "error" in value:
        assert isinstance(value["error"], str)
    assert math.isfinite(len(out))


_HYP = None


def _hyp_registry():
    global _HYP
    if _HYP is None:
        r = ToolRegistry()
        r.register("add", lambda a, b: a + b, schema={"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": ["integer", "string"]}}, "required": ["a", "b"]})
        r.register("echo", lambda **kw: kw, schema={"type": "object", "properties": {"x": {}}})

        def boom(x=None):
            raise RuntimeError(x)

        r.register("boom", boom)
        _HYP = r
    return _HYP


def test_other_payload_types(reg):
    from dispatchguard.runtime import Clarification, parse_tool_action

    class MyAction(ToolAction):
        pass

    assert dispatch_tool(MyAction(name="add", args={"a": 1, "b": 1}), registry=reg) == "2"
    clar = parse_tool_action('{"name": "None", "args": {"clarification_needed": "Which?"}}')
    assert isinstance(clar, Clarification)
    obj = strict(dispatch_tool(clar, registry=reg))
    assert obj["kind"] == "clarification" and obj["question"] == "Which?"


def test_deeply_nested_and_oversized_text(reg):
    assert strict(dispatch_tool("[" * 100_000, registry=reg))["kind"] == "invalid_json"
    nested = '{"name": "add", "args": {"a": ' + "[" * 50 + "]" * 50 + "}}"
    assert strict(dispatch_tool(nested, registry=reg))["kind"] == "invalid_args"
    big = '{"name": "add", "args": {"a": 1, "b": 2, "pad": "' + "x" * (1 << 20) + '"}}'
    assert strict(dispatch_tool(big, registry=reg))["kind"] == "payload_too_large"
    small = ToolRegistry(max_bytes=100)
    small.register("add", lambda a, b: a + b)
    assert strict(dispatch_tool({"name": "add", "args": {"a": "x" * 200, "b": ""}}, registry=small))[
        "kind"] == "payload_too_large"


def test_benchmark_script_runs(capsys):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[2] / "benchmarks" / "dispatch_overhead.py"
    spec = importlib.util.spec_from_file_location("dispatch_overhead", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--repeat", "3", "--number", "200", "--json"]) == 0
    out = capsys.readouterr().out
    assert "dispatch_tool overhead (dict payload)" in out and "ratio LangChain / dispatch_tool" in out


@pytest.mark.integration
def test_benchmark_compares_two_trees_in_one_run(capsys):
    import importlib.util
    import pathlib

    root = pathlib.Path(__file__).parents[2]
    spec = importlib.util.spec_from_file_location("dispatch_overhead", root / "benchmarks" / "dispatch_overhead.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--against", str(root), "--rounds", "1", "--repeat", "2", "--number", "100"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [r[0] for r in rows] == ["dispatch_tool(dict)", "dispatch_tool(ToolAction)", "dispatch_tool(JSON",
                                    "dispatch_tool(invalid", "ensure_json_str(nested"]
    assert mod.main(["--against", str(root / "docs"), "--rounds", "1"]) == 2
    assert "has no src/dispatchguard" in capsys.readouterr().err


def test_bad_options(reg):
    for kw in ({"registry": {"add": 1}}, {"max_bytes": 0}, {"max_bytes": "1"}, {"unknown_args": "keep"}):
        opts = {"registry": reg, **kw}
        obj = strict(dispatch_tool({"name": "add", "args": {"a": 1, "b": 2}}, **opts))
        assert obj["kind"] == "invalid_call", kw
        from dispatchguard.runtime import validate_tool_call

        assert validate_tool_call({"name": "add", "args": {"a": 1, "b": 2}}, opts.pop("registry"), **opts).kind \
            == "invalid_call"


def test_sync_tool_returning_awaitable():
    r = ToolRegistry()

    async def inner(x):
        return {"x": x}

    r.register("wrapped", lambda x: inner(x), schema={"type": "object", "properties": {"x": {"type": "integer"}}})
    assert not r.spec("wrapped").is_async
    assert dispatch_tool({"name": "wrapped", "args": {"x": 1}}, registry=r) == '{"x": 1}'

    async def main():
        a = await adispatch_tool({"name": "wrapped", "args": {"x": 2}}, registry=r)
        b = strict(dispatch_tool({"name": "wrapped", "args": {"x": 3}}, registry=r))
        return a, b

    a, b = asyncio.run(main())
    assert a == '{"x": 2}' and b["kind"] == "async_tool" and b["tool"] == "wrapped"


def test_unknown_tool_field_is_bounded(reg):
    obj = strict(dispatch_tool({"name": "q" * 5000, "args": {}}, registry=reg))
    assert obj["tool"] == "q" * 64 + "..."
    alias = ToolRegistry()
    alias.register("File Tool", lambda p: p)
    obj = strict(dispatch_tool({"name": "File_Tool", "args": {}}, registry=alias))
    assert obj["tool"] == "File Tool" and obj["kind"] == "invalid_args"


class _HostileProperty(Exception):
    """An exception whose error attributes raise when read."""

    @property
    def error_kind(self):
        raise RuntimeError("error_kind exploded")

    @property
    def error_details(self):
        raise LookupError("error_details exploded")

    @property
    def display_name(self):
        raise ValueError("display_name exploded")


class _Boom(BaseException):
    """Not an Exception: a hostile mapping may raise anything."""


class _HostileDetails(Exception):
    class _Mapping(dict):
        def items(self):
            raise _Boom("items exploded")

    error_kind = "upstream"
    error_details = _Mapping(url="x")


@pytest.mark.parametrize("exc_type", [_HostileProperty, _HostileDetails])
def test_a_hostile_exception_never_escapes_any_dispatch_path(exc_type):
    """Red-team finding (issue 23): the sync fast path raised, the async paths said internal_error."""
    reg = ToolRegistry()

    def explode(q: str) -> str:
        raise exc_type("the tool failed")

    reg.register("explode", explode)
    call = {"name": "explode", "args": {"q": "x"}}
    expected_kind = "upstream" if exc_type is _HostileDetails else "tool_error"
    for text in (
        dispatch_tool(call, registry=reg),
        asyncio.run(adispatch_tool(call, registry=reg)),
        dispatch_tool_result(call, registry=reg).text,
    ):
        error = json.loads(text)
        assert error["kind"] == expected_kind, text
        assert error["tool"] == "explode" and "the tool failed" in error["error"]


def _counting_registry():
    """A tool whose argument model counts how often it is validated (a field's before-validator
    runs once per validation, whether the value then passes the strict check or not)."""
    from pydantic import BaseModel, field_validator

    runs: list[object] = []

    class Args(BaseModel):
        a: int

        @field_validator("a", mode="before")
        @classmethod
        def count(cls, value):
            runs.append(value)
            return value

    r = ToolRegistry()
    r.register("count", lambda a: a * 2, schema=Args)
    return r, runs


@pytest.mark.parametrize("options", [{}, {"unknown_args": "reject"}, {"max_bytes": 1 << 20}])
def test_a_call_is_validated_once_per_dispatch(options):
    r, runs = _counting_registry()
    entries = {
        "dispatch_tool": lambda p: dispatch_tool(p, registry=r, **options),
        "dispatch_tool_result": lambda p: dispatch_tool_result(p, registry=r, **options).text,
        "adispatch_tool": lambda p: asyncio.run(adispatch_tool(p, registry=r, **options)),
        "adispatch_tool_result": lambda p: asyncio.run(adispatch_tool_result(p, registry=r, **options)).text,
    }
    for entry, call in entries.items():
        for args, kind in (({"a": 2}, None), ({"a": "2"}, "invalid_args")):
            runs.clear()
            for payload in ({"name": "count", "args": args}, json.dumps({"name": "count", "args": args})):
                out = strict(call(payload))
                assert (out == 4) if kind is None else (out["kind"] == kind), (entry, args, out)
            assert len(runs) == 2, (entry, args, options, len(runs))
