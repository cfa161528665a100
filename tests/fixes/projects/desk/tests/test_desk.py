import json

from dispatchguard import ToolAction, dispatch_tool

from desk.tools import multiply


def call(name: str, **args) -> object:
    return json.loads(dispatch_tool(ToolAction(name=name, args=args)))


def test_company():
    assert call("company", domain="acme.io") == {
        "domain": "acme.io",
        "name": "Acme",
        "tier": "gold",
        "seats": 12,
    }


def test_unknown_company_is_null():
    assert call("company", domain="nowhere.example") is None


def test_tags():
    assert call("tags", text="buy #milk and #bread") == ["bread", "milk"]


def test_page_content():
    assert call("page", url="https://example.com") == {
        "url": "https://example.com",
        "length": 32,
    }


def test_multiply_through_the_dispatcher():
    assert call("multiply", a=2, b=3) == 6.0


def test_multiply_directly():
    assert multiply(2, 3) == 6.0  # the undecorated func= target: a direct caller
