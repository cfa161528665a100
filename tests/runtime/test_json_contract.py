"""Edge cases of the JSON contract: hostile objects, stack depth, non-finite numbers, generators,
pydantic v1 models and LangChain messages as results."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from dispatchguard import ToolRegistry, adispatch_tool, dispatch_tool, ensure_json_str
from dispatchguard.runtime.json_text import MAX_ITEMS, safe_text


class Boom(BaseException):
    """Not an Exception: what a careless __str__ may raise."""


class Hostile:
    def __str__(self):
        raise Boom("str")

    def __repr__(self):
        raise Boom("repr")


class Interrupting:
    def __str__(self):
        raise KeyboardInterrupt


def test_base_exception_in_str_and_repr_never_escapes():
    assert safe_text(Hostile()) == "<unprintable Hostile object>"
    assert json.loads(ensure_json_str(Hostile())) == "<unprintable Hostile object>"
    assert json.loads(ensure_json_str({"k": Hostile()})) == {"k": "<unprintable Hostile object>"}
    with pytest.raises(KeyboardInterrupt):
        ensure_json_str(Interrupting())


def test_last_resort_survives_a_base_exception_repr():
    class Weird(dict):
        def items(self):
            raise Boom("items")

        def __repr__(self):
            raise Boom("repr")

    assert json.loads(ensure_json_str(Weird(a=1))) == {"result": "<unprintable object>"}


def at_depth(depth: int, func, *args):
    if depth <= 0:
        return func(*args)
    return at_depth(depth - 1, func, *args)


def test_json_document_strings_do_not_depend_on_the_callers_stack():
    limit = sys.getrecursionlimit()
    doc = "[" * (limit - 100) + "]" * (limit - 100)  # decodable on a fresh stack
    too_deep = "[" * (limit + 100) + "]" * (limit + 100)
    for text in (doc, too_deep):
        here = ensure_json_str(text)
        assert at_depth(limit - 120, ensure_json_str, text) == here  # the caller's depth does not matter
    assert ensure_json_str(doc) == doc  # a JSON document: unchanged
    assert json.loads(ensure_json_str(too_deep)) == too_deep  # beyond the parser: a string literal
    wide = "[" + "[], " * 600 + "[]]"  # many brackets, shallow
    assert ensure_json_str(wide) == wide
    with_strings = '["[[[[", "]]]"]'
    assert ensure_json_str(with_strings) == with_strings


def test_out_of_range_numbers_are_not_json_documents():
    assert json.loads(ensure_json_str('{"a": 1e400}')) == '{"a": 1e400}'
    reg = ToolRegistry()
    reg.register("echo", lambda x: x)
    out = json.loads(dispatch_tool('{"name": "echo", "args": {"x": 1e400}}', registry=reg))
    assert out["kind"] == "invalid_json" and "out of range" in out["error"]
    out = json.loads(dispatch_tool('{"name": "echo", "args": {"x": [{"y": -1e999}]}}', registry=reg))
    assert out["kind"] == "invalid_json"


def test_generators_are_consumed_up_to_the_limit():
    assert ensure_json_str(x * 2 for x in range(3)) == "[0, 2, 4]"
    reg = ToolRegistry()

    def numbers(n: int):
        yield from range(n)

    def failing():
        yield 1
        raise RuntimeError("broke mid-way")

    async def agen(n: int):
        for i in range(n):
            yield i

    reg.register("numbers", numbers)
    reg.register("failing", failing)
    reg.register("agen", agen)
    assert dispatch_tool({"name": "numbers", "args": {"n": 3}}, registry=reg) == "[0, 1, 2]"
    assert asyncio.run(adispatch_tool({"name": "numbers", "args": {"n": 2}}, registry=reg)) == "[0, 1]"
    too_many = json.loads(dispatch_tool({"name": "numbers", "args": {"n": MAX_ITEMS + 1}}, registry=reg))
    assert too_many["kind"] == "tool_error" and f"more than {MAX_ITEMS} items" in too_many["error"]
    broke = json.loads(dispatch_tool({"name": "failing", "args": {}}, registry=reg))
    assert broke["kind"] == "tool_error" and "broke mid-way" in broke["error"]
    assert asyncio.run(adispatch_tool({"name": "agen", "args": {"n": 3}}, registry=reg)) == "[0, 1, 2]"
    many = json.loads(asyncio.run(adispatch_tool({"name": "agen", "args": {"n": MAX_ITEMS + 1}}, registry=reg)))
    assert many["kind"] == "tool_error" and "more than" in many["error"]
    sync = json.loads(dispatch_tool({"name": "agen", "args": {"n": 3}}, registry=reg))
    assert sync["kind"] == "tool_error" and "async generator" in sync["error"]
    text = ensure_json_str(x for x in range(MAX_ITEMS + 1))
    assert "result" in json.loads(text)  # the last resort, never an exception


def test_async_tool_returning_an_async_generator_under_sync_dispatch():
    reg = ToolRegistry()

    async def source():
        async def gen():
            yield "a"
            yield "b"

        return gen()

    reg.register("source", source)
    assert dispatch_tool({"name": "source", "args": {}}, registry=reg) == '["a", "b"]'


def test_pydantic_v1_models_and_langchain_messages_as_results():
    from langchain_core.messages import AIMessage, ToolMessage
    from pydantic.v1 import BaseModel as V1Model

    class Score(V1Model):
        a: int
        tags: list[str] = []

    assert json.loads(ensure_json_str(Score(a=7))) == {"a": 7, "tags": []}
    assert ensure_json_str(ToolMessage(content="done", tool_call_id="c1", artifact={"big": 1})) == '"done"'
    assert json.loads(ensure_json_str(ToolMessage(content=[{"type": "text", "text": "x"}], tool_call_id="c"))) == [
        {"type": "text", "text": "x"}]
    assert json.loads(ensure_json_str(AIMessage(content="hi")))["content"] == "hi"  # other models: dumped
    reg = ToolRegistry()
    reg.register("msg", lambda: ToolMessage(content="42", tool_call_id="c1"))
    reg.register("err", lambda: ToolMessage(content="nope", tool_call_id="c1", status="error"))
    assert dispatch_tool({"name": "msg", "args": {}}, registry=reg) == "42"
    err = json.loads(dispatch_tool({"name": "err", "args": {}}, registry=reg))
    assert err["kind"] == "tool_error" and err["error"] == "tool 'err' failed: ToolMessage(status='error'): nope"
