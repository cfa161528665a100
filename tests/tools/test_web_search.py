"""web_search against a SearxNG-compatible endpoint served on 127.0.0.1."""

from __future__ import annotations

import pytest

from dispatchguard.tools import configure_tools, web_search

SEARX = {
    "query": "python",
    "results": [
        {"title": "Python", "url": "https://python.org", "content": "The language", "engine": "x"},
        "not a dict",
        {"title": "no url"},
        {"url": "https://docs.python.org"},
        {"title": "PyPI", "url": "https://pypi.org", "content": "Packages"},
    ],
}


@pytest.fixture
def endpoint(server):
    url = server.url_for("/search")
    configure_tools(search_url=url)
    return url


def test_results_through_dispatch(server, endpoint, call):
    server.expect_request("/search", query_string={"q": "python", "format": "json"}).respond_with_json(SEARX)
    out = call("web_search", query="  python ", max_results=2)
    assert out == {
        "query": "python",
        "results": [
            {"title": "Python", "url": "https://python.org", "snippet": "The language"},
            {"title": "", "url": "https://docs.python.org", "snippet": ""},
        ],
    }
    assert len(call("web_search", query="python")["results"]) == 3  # default 5, malformed items skipped
    assert len(server.log) == 1  # identical query parameters: served from the cache


def test_argument_errors_are_precise(endpoint, call):
    for args in ({"query": "x", "max_results": 0}, {"query": "x", "max_results": "5"}, {"query": ""}, {}):
        out = call("web_search", **args)
        assert out["kind"] == "invalid_args" and out["tool"] == "web_search"
    out = call("web_search", query="   ")
    assert out["kind"] == "invalid_args" and out["argument"] == "query"


def test_not_configured(call):
    out = call("web_search", query="x")
    assert out["kind"] == "not_configured" and "DISPATCHGUARD_TOOLS_SEARCH_URL" in out["error"]


def test_http_and_shape_errors(server, endpoint, call):
    server.expect_request("/search", query_string={"q": "down", "format": "json"}).respond_with_data("", status=503)
    forbidden = {"q": "forbidden", "format": "json"}
    server.expect_request("/search", query_string=forbidden).respond_with_data("", status=403)
    server.expect_request("/search", query_string={"q": "list", "format": "json"}).respond_with_json([1, 2])
    server.expect_request("/search", query_string={"q": "html", "format": "json"}).respond_with_data("<html>")
    down = call("web_search", query="down")
    assert (down["kind"], down["status"], down["attempts"]) == ("http_error", 503, 2)
    assert down["url"] == endpoint
    forbidden = call("web_search", query="forbidden")
    assert (forbidden["kind"], forbidden["status"], forbidden["attempts"]) == ("http_error", 403, 1)
    assert call("web_search", query="list")["kind"] == "invalid_response"
    html = call("web_search", query="html")
    assert html["kind"] == "http_error" and "invalid JSON" in html["reason"]


def test_plain_function_call_returns_json_text(server, endpoint):
    server.expect_request("/search").respond_with_json({"results": []})
    assert web_search("nothing") == '{"query": "nothing", "results": []}'
