"""Bounded I/O in the reference tools: the SSRF guard of rss_feed and web_search, and linear-time
feed summaries (fuzzed against the regular expression they replace)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from dispatchguard import http
from dispatchguard.tools import configure_tools, parse_feed
from dispatchguard.tools.rss_feed import strip_tags

FEED = b"""<rss version="2.0"><channel><title>T</title><item><title>I</title></item></channel></rss>"""


def test_rss_feed_refuses_loopback_and_metadata_by_default(server, call):
    http.configure(ssrf_allowlist=())
    server.expect_request("/feed").respond_with_data(FEED, content_type="application/rss+xml")
    out = call("rss_feed", url=server.url_for("/feed"))
    assert out["kind"] == "blocked_url" and "127.0.0.1 is not a public address" in out["error"]
    assert server.log == []
    for url in ("http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://localhost:1/"):
        assert call("rss_feed", url=url)["kind"] == "blocked_url", url


def test_rss_feed_refuses_a_redirect_to_a_private_address(server, call):
    port = server.port
    http.configure(ssrf_allowlist=("localhost",))
    server.expect_request("/moved").respond_with_data("", status=301, headers={"Location": f"http://127.0.0.1:{port}/feed"})
    server.expect_request("/feed").respond_with_data(FEED, content_type="application/rss+xml")
    out = call("rss_feed", url=f"http://localhost:{port}/moved")
    assert out["kind"] == "blocked_url" and out["url"] == f"http://127.0.0.1:{port}/feed"
    http.configure(ssrf_allowlist=("localhost", "127.0.0.1"))
    assert call("rss_feed", url=f"http://localhost:{port}/moved")["items"][0]["title"] == "I"


def test_web_search_trusts_its_endpoint_but_not_a_redirect(server, call):
    http.configure(ssrf_allowlist=())
    configure_tools(search_url=server.url_for("/search"))
    server.expect_request("/search").respond_with_json({"results": [{"url": "https://a.example"}]})
    assert call("web_search", query="q")["results"][0]["url"] == "https://a.example"
    # trusted by name: a redirect from localhost to the address 127.0.0.1 is another host
    configure_tools(search_url=server.url_for("/redirect").replace("127.0.0.1", "localhost"))
    moved = {"Location": server.url_for("/search")}
    server.expect_request("/redirect").respond_with_data("", status=302, headers=moved)
    out = call("web_search", query="other")
    assert out["kind"] == "blocked_url" and "127.0.0.1 is not a public address" in out["error"]


_TAG = re.compile(r"<[^>]*>")


@given(st.text(alphabet="<>ab &;#x1\n", max_size=200))
def test_strip_tags_matches_the_regular_expression(markup):
    assert strip_tags(markup) == _TAG.sub(" ", markup)


@given(st.text(max_size=300))
def test_strip_tags_matches_on_any_text(markup):
    assert strip_tags(markup) == _TAG.sub(" ", markup)


def test_a_description_of_many_unclosed_tags_is_summarised():
    description = "&lt;" * 160_000  # 160k '<' once the XML entities are decoded: quadratic before
    feed = f"<rss><channel><item><title>x</title><description>{description}</description></item></channel></rss>"
    summary = parse_feed(feed)["items"][0]["summary"]
    assert summary.startswith("<<<") and len(summary) == 500


def reference_summary(markup: str) -> str:
    """The summary as the regular expression made it (quadratic, fine on short text)."""
    import html

    text = " ".join(html.unescape(_TAG.sub(" ", markup)).split())
    return text if len(text) <= 500 else text[:499].rstrip() + "…"


PIECES = st.sampled_from([*"<>&;/ab \n\t#x1é", "&lt;", "&gt;", "&amp;", "<p>", "</b>", "&#60;"])


@given(st.lists(PIECES, max_size=400).map("".join))
def test_feed_summaries_match_the_reference_on_hostile_descriptions(description):
    from xml.sax.saxutils import escape

    feed = f"<rss><channel><item><description>{escape(description)}</description></item></channel></rss>"
    summary = parse_feed(feed)["items"][0]["summary"]
    assert summary == reference_summary(description.strip())
    assert len(summary) <= 500


def test_rss_feed_is_not_served_a_feed_cached_under_a_wider_allowlist(server, call, tmp_path):
    server.expect_request("/feed").respond_with_data(FEED, content_type="application/rss+xml")
    url = server.url_for("/feed")
    http.configure(cache_path=str(tmp_path / "shared.sqlite"))  # a cache that outlives the settings
    assert call("rss_feed", url=url)["items"][0]["title"] == "I"  # allowed: 127.0.0.1 (conftest)
    http.configure(ssrf_allowlist=())
    assert call("rss_feed", url=url)["kind"] == "blocked_url"
    assert len(server.log) == 1
