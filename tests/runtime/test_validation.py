import json

import pytest

from dispatchguard.runtime import (
    ToolAction,
    ToolRegistry,
    sanitize_args,
    validate_tool_call,
)
from dispatchguard.runtime.validation import display_name


@pytest.fixture
def r():
    r = ToolRegistry()

    def f(i: int, x: float = 1.5, flag: bool = False, s: str = "d", tags: list[str] = ["t"],  # noqa: B006
          o: int | None = 4):
        return i

    r.register("f", f)
    return r


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ({"i": "5"}, "argument 'i': expected integer, got string \"5\""),
        ({"i": True}, "expected integer, got boolean true"),
        ({"i": 2.5}, "expected integer, got number 2.5"),
        ({"i": 2.0}, "expected integer"),
        ({"i": 1, "flag": 1}, "argument 'flag': expected boolean, got integer 1"),
        ({"i": 1, "x": "1.0"}, "argument 'x': expected number"),
        ({"i": 1, "x": True}, "expected number"),
        ({"i": 1, "x": float("inf")}, "expected a finite number, got a number too large for a float"),
        ({"i": 1, "x": 10**400}, "expected number"),
        ({"i": 1, "tags": "t"}, "argument 'tags': expected array, got string \"t\""),
        ({"i": 1, "tags": ["a", 1]}, "argument 'tags': item 1: expected string, got integer 1"),
        ({}, "missing required argument 'i'"),
        ({"i": None}, "expected integer, got null"),
    ],
)
def test_strict_types(r, args, match):
    v = validate_tool_call({"name": "f", "args": args}, r)
    assert not v.valid and v.kind == "invalid_args" and v.tool_name == "f"
    assert match in v.error
    assert v.args == {}


def test_valid_defaults_and_int_for_float(r):
    v = validate_tool_call('{"name": "f", "args": {"i": 3, "x": 2}}', r)
    assert v.valid and v.error is None and v.kind is None
    assert v.args == {"i": 3, "x": 2.0, "flag": False, "s": "d", "tags": ["t"], "o": 4}
    assert type(v.args["x"]) is float
    v2 = validate_tool_call({"tool": "f", "args": {"i": 3}}, r)
    assert v2.args["tags"] is not v.args["tags"]  # mutable defaults are copied


def test_null_maps_to_default(r):
    v = validate_tool_call({"name": "f", "args": {"i": 1, "x": None, "s": None, "tags": None, "o": None}}, r)
    assert v.valid and v.args == {"i": 1, "x": 1.5, "flag": False, "s": "d", "tags": ["t"], "o": None}


def test_unknown_args(r):
    v = validate_tool_call({"name": "f", "args": {"i": 1, "zzz": 2}}, r)
    assert v.valid and "zzz" not in v.args
    v = validate_tool_call({"name": "f", "args": {"i": 1, "zzz": 2}}, r, unknown_args="reject")
    assert not v.valid and "unknown argument(s) \"zzz\"" in v.error and "'i'" in v.error
    v = validate_tool_call({"name": "f", "args": {"i": 1, "zzz": {"a": 1}}}, r)
    assert v.valid and "zzz" not in v.args  # dropped unread
    v = validate_tool_call({"name": "f", "args": {"i": 1, 7: 1}}, r)
    assert not v.valid and "argument names must be strings" in v.error
    v = validate_tool_call({"name": "f", "args": {}}, r, unknown_args="bogus")
    assert v.kind == "invalid_call"
    strict = ToolRegistry(unknown_args="reject")
    strict.register("g", lambda: 1)
    assert validate_tool_call({"name": "g", "args": {"q": 1}}, strict).kind == "invalid_args"


def test_payload_forms(r):
    assert validate_tool_call(ToolAction(name="f", args={"i": 1}), r).valid
    assert validate_tool_call(b'{"name": "f", "args": {"i": 1}}', r).valid
    from collections import OrderedDict

    assert validate_tool_call(OrderedDict(name="f", args={"i": 1}), r).valid
    assert validate_tool_call([1], r).kind == "invalid_action"
    assert validate_tool_call("{", r).kind == "invalid_json"
    assert validate_tool_call({"name": "nope", "args": {}}, r).kind == "unknown_tool"


def test_clarification(r):
    v = validate_tool_call({"name": "None", "args": {"clarification_needed": "Which?"}}, r)
    assert (v.valid, v.kind, v.question, v.tool_name) == (False, "clarification", "Which?", "None")
    assert validate_tool_call({"name": "None", "args": {}}, r).question == ""
    assert validate_tool_call({"name": "None", "args": {"clarification_needed": 5}}, r).question == "5"


def test_size_limits(r):
    big = {"name": "f", "args": {"i": 1, "s": "x" * 2000}}
    assert validate_tool_call(big, r, max_bytes=1000).kind == "payload_too_large"
    assert validate_tool_call(json.dumps(big), r, max_bytes=1000).kind == "payload_too_large"
    assert validate_tool_call(big, r, max_bytes=4000).valid
    # borderline: needs the exact measurement (escapes make it bigger than the characters)
    quoted = {"name": "f", "args": {"i": 1, "s": "\x01" * 300}}
    assert validate_tool_call(quoted, r, max_bytes=1000).kind == "payload_too_large"
    assert validate_tool_call(quoted, r, max_bytes=2000).valid
    lst = {"name": "f", "args": {"i": 1, "tags": ["x" * 100] * 20, "o": 10**30}}
    assert validate_tool_call(lst, r, max_bytes=1000).kind == "payload_too_large"
    huge_int = {"name": "f", "args": {"i": 10**3000}}
    assert validate_tool_call(huge_int, r, max_bytes=1000).kind == "payload_too_large"
    huge_item = {"name": "f", "args": {"i": 1, "tags": ["9" * 3000]}}
    assert validate_tool_call(huge_item, r, max_bytes=1000).kind == "payload_too_large"
    weird = {"name": "f", "args": {"i": 1, "s": "x" * 150, "zz": float("nan")}}
    assert validate_tool_call(weird, r, max_bytes=1000).valid
    default = ToolRegistry()
    default.register("f", lambda s: s)
    assert validate_tool_call({"name": "f", "args": {"s": "x" * (1 << 20)}}, default).kind == "payload_too_large"


def test_hostile_payloads(r):
    from collections.abc import Mapping

    class BadMap(Mapping):
        def __getitem__(self, k):
            raise RuntimeError("no item")

        def __iter__(self):
            raise RuntimeError("no iter")

        def __len__(self):
            return 2

    v = validate_tool_call(BadMap(), r)
    assert not v.valid and v.kind == "invalid_action" and "RuntimeError" in v.error
    long_name = "x\n" * 100
    v = validate_tool_call({"name": long_name, "args": {}}, r)
    assert v.kind == "unknown_tool" and "\\n" in v.error and "\n" not in v.error


def test_display_name():
    assert display_name("a/b") == "a/b"
    assert display_name("a\x00") == "a\\x00"
    assert display_name(5) == "5"
    assert display_name("y" * 100).endswith("...")


def test_sanitize_args():
    class P:
        def __str__(self):
            return "P!"

    out = sanitize_args({"a": 1, "b": "s", "c": None, "d": 1.5, "e": True, "l": [1, "x", None], "t": (1, 2),
                         "obj": P(), "nested": {"x": 1}, "mixed": [1, {"y": 2}], 3: "k"})
    assert out == {"a": 1, "b": "s", "c": None, "d": 1.5, "e": True, "l": [1, "x", None], "t": [1, 2],
                   "obj": "P!", "nested": "{'x': 1}", "mixed": "[1, {'y': 2}]", "3": "k"}
    assert sanitize_args(None) == {}
    with pytest.raises(TypeError):
        sanitize_args([1, 2])  # type: ignore[arg-type]


# The received value, named by its JSON type and a short rendering; what JSON cannot carry, by what
# it means (1e400 and Infinity parse to an infinite float), on the validator's two engines.
RECEIVED = [
    ({"i": None}, "tool 'f': argument 'i': expected integer, got null"),
    ({"i": float("inf")}, "tool 'f': argument 'i': expected integer, got a number too large for a float"),
    ({"i": float("-inf")}, "tool 'f': argument 'i': expected integer, got a number too large for a float"),
    ({"i": float("nan")}, "tool 'f': argument 'i': expected integer, got NaN (not a number)"),
    ({"i": 1, "x": 10**400}, "tool 'f': argument 'x': expected number, got integer "),
    ({"i": True}, "tool 'f': argument 'i': expected integer, got boolean true"),
]


@pytest.mark.parametrize(("args", "message"), RECEIVED)
def test_messages_name_the_received_value(r, args, message):
    v = validate_tool_call({"name": "f", "args": args}, r)
    assert v.error.startswith(message), v.error
    assert "null null" not in v.error


@pytest.mark.parametrize(("args", "message"), [
    ({"i": None}, "tool 'g': argument 'i': expected integer, got null"),
    ({"i": float("inf")}, "tool 'g': argument 'i': expected integer, got a number too large for a float"),
    ({"i": 1, "xs": [1.0, float("-inf")]}, "tool 'g': argument 'xs': item 1: got a number too large for a float"),
])
def test_json_schema_messages_name_the_received_value(args, message):
    reg = ToolRegistry()
    reg.register("g", lambda **kw: 1, schema={"type": "object", "required": ["i"], "properties": {
        "i": {"type": "integer"}, "xs": {"type": "array", "items": {"type": "integer"}}}})
    assert validate_tool_call({"name": "g", "args": args}, reg).error == message


def test_large_integer_for_a_number_says_so(r):
    v = validate_tool_call({"name": "f", "args": {"i": 1, "x": 10**400}}, r)
    assert v.error.endswith("(too large for a float)")


def test_chat_native_call_names_the_received_value(llm, llm_server):
    """The /chat path: a native tool call whose arguments say 1e400 and null, answered to the model."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from dispatchguard.agent.testing import ScriptedReply, ScriptedToolCall
    from dispatchguard.server import create_app

    reg = ToolRegistry()

    @reg.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    llm_server.set_script([ScriptedReply(tool_calls=[ScriptedToolCall("add", '{"a": 1e400, "b": null}')]), "No."])
    with TestClient(create_app(reg, llm)) as client:
        assert client.post("/chat", json={"message": "add", "mode": "agent"}).status_code == 200
    tool_message = llm_server.requests[1]["messages"][-1]
    assert "tool 'add': argument 'a': expected integer, got a number too large for a float" in \
        tool_message["content"], tool_message
