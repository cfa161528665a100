"""Hypothesis fuzz of the loop and the executor with hostile model output, sync and async: the loop
ends with a known stop reason and never raises; the executor answers JSON."""

from __future__ import annotations

import asyncio
import json

from hypothesis import given
from hypothesis import strategies as st

from dispatchguard import ToolRegistry
from dispatchguard.agent import ModelReply, ToolCall, arun_tool_loop, execute_tools, run_tool_loop

STOP_REASONS = {"answer", "clarification", "max_steps", "invalid_output", "breaker", "llm_error"}

registry = ToolRegistry()


@registry.tool(parallel_safe=True)
def add(a: int, b: int = 1) -> int:
    """Add."""
    return a + b


@registry.tool()
def echo(value: list) -> list:
    """Echo."""
    return value


def nested(depth: int, opener: str, closer: str) -> str:
    return opener * depth + "1" + closer * depth


deep = st.builds(
    nested, st.integers(min_value=1, max_value=4000), st.sampled_from(["[", '{"x": ']), st.sampled_from(["]", "}"])
)
arguments = st.one_of(
    st.none(), st.text(max_size=50), deep, deep.map(lambda t: f'{{"a": {t}}}'), deep.map(lambda t: f'{{"value": {t}}}'),
    st.dictionaries(st.sampled_from(["a", "b", "value", "clarification_needed"]),
                    st.integers() | st.text(max_size=5) | st.none(), max_size=3),
)
calls = st.lists(st.builds(ToolCall, st.text(max_size=5), st.sampled_from(["add", "echo", "None", "", "nope"]),
                           arguments), max_size=3)
texts = st.one_of(st.text(max_size=30), deep, deep.map(lambda t: f'{{"name": "add", "args": {{"a": {t}}}}}'))
replies = st.lists(st.builds(ModelReply, texts, calls.map(tuple)), min_size=1, max_size=4)


class Scripted:
    """A native model client answering from a list of replies, then a final answer."""

    native_tools = True

    def __init__(self, script):
        self.script = list(script)

    async def achat(self, messages, registry):
        return self.script.pop(0) if self.script else ModelReply("done")


class TextScripted:
    """A JSON-in-text client answering from the replies' text."""

    def __init__(self, script):
        self.script = [reply.text for reply in script]

    def complete(self, messages):
        return self.script.pop(0) if self.script else "done"


@given(replies)
def test_the_native_loop_survives_hostile_replies(script):
    result = run_tool_loop(Scripted(script), "go", registry=registry, max_steps=3)
    assert result.stop_reason in STOP_REASONS
    json.dumps(result.to_dict())


@given(replies)
def test_the_async_text_loop_survives_hostile_replies(script):
    result = asyncio.run(arun_tool_loop(TextScripted(script), "go", registry=registry, max_steps=3))
    assert result.stop_reason in STOP_REASONS


@given(st.lists(st.one_of(deep, deep.map(lambda t: f'{{"name": "add", "args": {{"a": {t}}}}}'),
                          st.text(max_size=30), st.binary(max_size=30)), max_size=3))
def test_execute_tools_answers_hostile_actions(actions):
    for text in asyncio.run(execute_tools(actions, registry=registry)):
        json.loads(text)
