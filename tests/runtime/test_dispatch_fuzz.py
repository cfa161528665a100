"""Hypothesis fuzz of the dispatcher with hostile inputs, sync and async: every answer is one JSON
error object or the tool's result, of a known kind, and nothing escapes."""

from __future__ import annotations

import asyncio
import json

from hypothesis import given
from hypothesis import strategies as st

from dispatchguard import ToolRegistry, adispatch_tool, dispatch_tool, dispatch_tool_result

KINDS = {"invalid_json", "invalid_action", "unknown_tool", "invalid_args", "payload_too_large", "clarification",
         "tool_error"}

registry = ToolRegistry()


@registry.tool()
def add(a: int, b: int = 1) -> int:
    """Add."""
    return a + b


@registry.tool()
def echo(value: list[dict[str, int]]) -> list:
    """Echo nested values back."""
    return value


def nested(depth: int, opener: str, closer: str, core: str = "1") -> str:
    return opener * depth + core + closer * depth


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
deep_text = st.builds(
    lambda depth, kind, where: where.format(nested(depth, *kind)),
    st.integers(min_value=1, max_value=5000),
    st.sampled_from([("[", "]"), ('{"x": ', "}"), ("[{\"y\": ", "}]")]),
    st.sampled_from(["{}", '{{"name": "add", "args": {{"a": {}}}}}', '{{"name": "echo", "args": {{"value": {}}}}}',
                     '{{"name": {}, "args": {{}}}}']),
)
actions = st.one_of(
    deep_text,
    st.text(max_size=200),
    st.binary(max_size=200),
    json_values,
    st.builds(lambda name, args: {"name": name, "args": args}, st.sampled_from(["add", "echo", "None", "x"]),
              st.dictionaries(st.sampled_from(["a", "b", "value", "clarification_needed", "z"]), json_values)),
    st.builds(lambda text: text.encode(), deep_text),
)


def check(text: str) -> None:
    value = json.loads(text)
    if isinstance(value, dict) and "error" in value:
        assert value["kind"] in KINDS, value


@given(actions)
def test_dispatch_tool_answers_every_hostile_action(action):
    check(dispatch_tool(action, registry=registry))
    check(dispatch_tool(action, registry=registry, unknown_args="reject"))
    result = dispatch_tool_result(action, registry=registry)
    check(result.text)
    assert result.ok == (result.kind is None)


@given(actions)
def test_adispatch_tool_answers_every_hostile_action(action):
    check(asyncio.run(adispatch_tool(action, registry=registry)))
