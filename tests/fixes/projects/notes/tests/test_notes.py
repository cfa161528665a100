import json

from dispatchguard import ToolAction, dispatch_tool

import notes.tools  # noqa: F401  (registers the tools)


def call(name: str, **args) -> object:
    return json.loads(dispatch_tool(ToolAction(name=name, args=args)))


def test_word_count():
    assert call("word_count", text="one two\nthree") == {"words": 3, "lines": 2}


def test_tags():
    assert call("tags", text="buy #milk and #bread") == ["bread", "milk"]


def test_no_tags_is_null():
    assert call("tags", text="nothing here") is None


def test_unknown_tool_is_an_error():
    assert "error" in call("nope")
