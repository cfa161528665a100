import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from dispatchguard.runtime.models import (
    Clarification,
    ToolAction,
    ToolActionError,
    check_action_shape,
    decode_action,
    decode_json,
    json_type_name,
    parse_tool_action,
    short_repr,
)


def test_tool_action_alias_and_strictness():
    assert ToolAction(name="a", args={"x": 1}).name == "a"
    assert ToolAction.model_validate({"tool": "a", "args": {}}).name == "a"
    assert ToolAction.model_validate_json('{"tool": "a", "args": {"l": [1, "x", null]}}').args == {"l": [1, "x", None]}
    for bad in ({"name": "a"}, {"name": "a", "args": {}, "x": 1}, {"name": 1, "args": {}},
                {"name": "a", "args": []}, {"name": "a", "args": {"x": {1: 1}}},
                {"name": "a", "args": {"x": [float("inf")]}}, {"name": "a", "tool": "b", "args": {}},
                {"args": {}}, [1], {1: "a", "args": {}}):
        with pytest.raises(ValidationError):
            ToolAction.model_validate(bad)
    a = ToolAction(name="a", args={})
    assert ToolAction.model_validate(a) is a
    nested = ToolAction(name="a", args={"p": {"x": [1, {"y": None}]}})  # any JSON value
    assert nested.args["p"] == {"x": [1, {"y": None}]}
    deep: object = 1
    for _ in range(70):
        deep = [deep]
    with pytest.raises(ValidationError, match="nested deeper than 64"):
        ToolAction(name="a", args={"d": deep})
    with pytest.raises(ValidationError, match="values must be JSON"):
        ToolAction(name="a", args={"o": object()})


def test_parse_tool_action_ok_and_fences():
    assert parse_tool_action('{"name": "add", "args": {"a": 1}}') == ToolAction(name="add", args={"a": 1})
    assert parse_tool_action(b'{"tool": "add", "args": {}}').name == "add"
    assert parse_tool_action('```json\n{"name": "x", "args": {}}\n```').name == "x"
    assert parse_tool_action('```\n{"name": "x", "args": {}}\n```').name == "x"
    assert parse_tool_action('```{"name": "x", "args": {}}```').name == "x"
    assert parse_tool_action({"name": "x", "args": {}}).name == "x"


def test_parse_clarification():
    c = parse_tool_action('{"name": "None", "args": {"clarification_needed": "Which file?"}}')
    assert isinstance(c, Clarification) and c.question == "Which file?"
    with pytest.raises(ToolActionError, match="clarification_needed"):
        parse_tool_action('{"name": "None", "args": {}}')


@pytest.mark.parametrize(
    ("text", "kind", "match"),
    [
        ('{"name": "a", "args": {}', "invalid_json", "line 1 column"),
        ('{"name": "a", "args": {"x": NaN}}', "invalid_json", "NaN"),
        ('{"name": "a", "args": {"x": Infinity}}', "invalid_json", "Infinity"),
        ('{"name": "a", "name": "b", "args": {}}', "invalid_json", "duplicate key"),
        ("[" * 100_000, "invalid_json", "nested too deeply|Expecting"),
        ('{"name": "a", "args": {"x": ' + "9" * 5000 + "}}", "invalid_json", "invalid JSON"),
        (b"\xff\xfe", "invalid_json", "not UTF-8"),
        ("[1, 2]", "invalid_action", "JSON object"),
        ('{"name": "a"}', "invalid_action", "missing key"),
        ('{"args": {}}', "invalid_action", "missing key"),
        ('{"name": "a", "args": {}, "extra": 1}', "invalid_action", "unexpected key"),
        ('{"name": "a", "tool": "a", "args": {}}', "invalid_action", "both"),
        ('{"name": 5, "args": {}}', "invalid_action", "must be a string"),
        ('{"name": "a", "args": [1]}', "invalid_action", "'args' must be an object"),
        ('{"name": "a", "args": {"x": 1e400}}', "invalid_json", "out of range"),
        ('{"name": "a", "args": {"x": [1, -1e999]}}', "invalid_json", "out of range"),
    ],
)
def test_parse_errors(text, kind, match):
    with pytest.raises(ToolActionError, match=match) as ei:
        parse_tool_action(text)
    assert ei.value.kind == kind


def test_parse_error_position():
    with pytest.raises(ToolActionError) as ei:
        parse_tool_action('{\n  "name": x}')
    assert (ei.value.lineno, ei.value.colno) == (2, 11)


def test_size_limit():
    big = '{"name": "a", "args": {"x": "' + "y" * 2000 + '"}}'
    with pytest.raises(ToolActionError) as ei:
        parse_tool_action(big, max_bytes=1000)
    assert ei.value.kind == "payload_too_large"
    wide = '{"name": "a", "args": {"x": "' + "é" * 300 + '"}}'
    with pytest.raises(ToolActionError):
        parse_tool_action(wide, max_bytes=400)  # 300 chars but 600 bytes
    assert parse_tool_action(wide, max_bytes=1000).args["x"] == "é" * 300


def test_not_text_or_mapping():
    with pytest.raises(ToolActionError, match="JSON text or a mapping"):
        parse_tool_action(42)  # type: ignore[arg-type]


def test_shape_helpers():
    from collections import OrderedDict

    class S(str):
        pass

    assert check_action_shape(OrderedDict(name=S("a"), args=OrderedDict(x=1))) == ("a", {"x": 1})
    with pytest.raises(ToolActionError, match="argument names must be strings"):
        check_action_shape({"name": "a", "args": {1: 2}})
    assert json_type_name(object()) == "Python object"
    assert json_type_name((1,)) == "array" and json_type_name({}) == "object"
    assert json_type_name(1.5) == "number" and json_type_name(None) == "null"
    assert short_repr("x" * 100).endswith('..."')
    assert short_repr(list(range(100))).endswith("...")


_scalars = st.sampled_from(['1', '"x"', "null", "true", "2.5", "NaN", "[]", "[1, [2]]", '[{"k": 1}]', "{}",
                            '{"y": 1}', '{"y": 1, "y": 2}', "1e400", "-0"])
_keys = st.sampled_from(['"name"', '"tool"', '"args"', '"a"', '"b"'])


@st.composite
def _objects(draw, depth=0):
    n = draw(st.integers(0, 4))
    parts = []
    for _ in range(n):
        k = draw(_keys)
        v = draw(_objects(depth + 1)) if depth < 2 and draw(st.booleans()) else draw(_scalars)
        parts.append(f"{k}: {v}")
    return "{" + ", ".join(parts) + "}"


def _outcome(fn, text):
    try:
        return ("ok", fn(text))
    except ToolActionError as exc:
        return ("error", exc.kind, exc.message)


@given(st.one_of(_objects(), _scalars, st.text(max_size=20)))
def test_decode_action_agrees_with_decode_json(text):
    assert _outcome(decode_action, text) == _outcome(decode_json, text)


def test_decode_action_fallbacks():
    for text in ('{"name": "a", "args": {"x": {"y": 1}}}', '{"name": "a", "args": {"x": 1, "x": 2}}',
                 '{"name": "a", "name": "b", "args": {}}', '{"name": {"n": 1}, "args": {}}',
                 '{"name": [{"n": 1}], "args": {}}', '{"name": "a", "args": {"x": [[1]]}}',
                 '{"name": "a", "args": {}', b'{"name": "a", "args": {}}', ' {"name": "a", "args": {}}'):
        assert _outcome(decode_action, text) == _outcome(decode_json, text)
