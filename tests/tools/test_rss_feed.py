"""rss_feed: RSS 2.0, RSS 1.0 and Atom parsing, and hostile documents, served on 127.0.0.1."""

from __future__ import annotations

import pytest

from dispatchguard.tools import InvalidFeed, configure_tools, parse_feed, rss_feed

RSS2 = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <title>Example News</title>
    <item>
      <title>First &amp; foremost</title>
      <link>https://example.org/1</link>
      <pubDate>Wed, 21 Oct 2015 07:28:00 GMT</pubDate>
      <description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt; &amp;amp; more&lt;/p&gt;</description>
    </item>
    <item>
      <title>Second</title>
      <guid>https://example.org/2</guid>
      <pubDate>not a date</pubDate>
      <content:encoded><![CDATA[<div>Full <i>text</i></div>]]></content:encoded>
    </item>
    <item><title>Third</title></item>
  </channel>
</rss>"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Atom Example</title>
  <entry>
    <title>Entry one</title>
    <link rel="self" href="https://example.org/self"/>
    <link rel="alternate" href="https://example.org/e1"/>
    <published>2024-03-01T10:00:00Z</published>
    <summary type="html">&lt;em&gt;Summary&lt;/em&gt; — café</summary>
  </entry>
  <entry>
    <title>Entry two</title>
    <link rel="enclosure" href="https://example.org/e2.mp3"/>
    <updated>2024-03-02T10:00:00+01:00</updated>
    <content>Body</content>
  </entry>
  <entry><title>No link</title></entry>
</feed>""".encode()

RSS1 = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
         xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://example.org/"><title>RDF Feed</title></channel>
  <item rdf:about="https://example.org/r1">
    <title>R1</title><description>D1</description><dc:date>2024-01-01</dc:date>
  </item>
</rdf:RDF>"""

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol9 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
]>
<rss version="2.0"><channel><title>&lol9;</title></channel></rss>"""

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE rss [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<rss version="2.0"><channel><title>t</title><item><title>&xxe;</title></item></channel></rss>"""

EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE rss SYSTEM "{dtd}">
<rss version="2.0"><channel><title>t</title></channel></rss>"""


def serve(server, path, body, content_type="application/rss+xml"):
    server.expect_request(path).respond_with_data(body, content_type=content_type)
    return server.url_for(path)


def test_rss2_through_dispatch(server, call):
    url = serve(server, "/rss", RSS2)
    out = call("rss_feed", url=url)
    assert out["url"] == url and out["title"] == "Example News"
    assert out["items"][0] == {
        "title": "First & foremost",
        "link": "https://example.org/1",
        "published": "2015-10-21T07:28:00+00:00",
        "summary": "Hello world & more",
    }
    assert out["items"][1] == {
        "title": "Second",
        "link": "https://example.org/2",
        "published": "not a date",
        "summary": "Full text",
    }
    assert out["items"][2] == {"title": "Third", "link": "", "published": None, "summary": ""}
    assert len(call("rss_feed", url=url, limit=1)["items"]) == 1
    assert len(server.log) == 1  # the second call came from the cache


def test_atom_and_rss1(server, call):
    atom = call("rss_feed", url=serve(server, "/atom", ATOM, "application/atom+xml"))
    assert atom["title"] == "Atom Example"
    assert atom["items"][0] == {
        "title": "Entry one",
        "link": "https://example.org/e1",
        "published": "2024-03-01T10:00:00+00:00",
        "summary": "Summary — café",
    }
    assert atom["items"][1]["link"] == "https://example.org/e2.mp3"
    assert atom["items"][1]["published"] == "2024-03-02T10:00:00+01:00"
    assert atom["items"][1]["summary"] == "Body"
    assert atom["items"][2]["link"] == "" and atom["items"][2]["published"] is None
    rdf = call("rss_feed", url=serve(server, "/rdf", RSS1))
    assert rdf["title"] == "RDF Feed"
    assert rdf["items"] == [
        {"title": "R1", "link": "https://example.org/r1", "published": "2024-01-01T00:00:00", "summary": "D1"}
    ]


@pytest.mark.parametrize("document", [BILLION_LAUGHS, XXE], ids=["billion-laughs", "external-entity"])
def test_entities_are_refused_not_expanded(server, call, document):
    out = call("rss_feed", url=serve(server, "/evil", document))
    assert out["kind"] == "invalid_feed" and "unsafe XML refused" in out["error"]
    assert "root:" not in str(out) and "lollol" not in str(out)


def test_external_dtd_is_never_fetched(server):
    dtd = serve(server, "/evil.dtd", b'<!ENTITY title "injected">', "application/xml-dtd")
    assert parse_feed(EXTERNAL_DTD.format(dtd=dtd)) == {"title": "t", "items": []}
    assert len(server.log) == 0


def test_doctype_without_entities_is_accepted():
    doc = b'<?xml version="1.0"?><!DOCTYPE rss><rss version="2.0"><channel><title>ok</title></channel></rss>'
    assert parse_feed(doc) == {"title": "ok", "items": []}


def test_huge_document_hits_the_size_limit(server, call):
    configure_tools(max_feed_bytes=10_000)
    huge = b'<rss version="2.0"><channel>' + b"<item><title>x</title></item>" * 2000 + b"</channel></rss>"
    out = call("rss_feed", url=serve(server, "/huge", huge))
    assert out["kind"] == "http_error"
    assert "exceeds the limit of 10000 bytes" in out["error"] and out["attempts"] == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<rss><channel><title>broken</channel></rss>", "invalid XML: mismatched tag: line 1"),
        (b"", "invalid XML: no element found"),
        (b"<html><body>Not a feed</body></html>", "not an RSS or Atom feed (root element <html>)"),
        (b'<rss version="2.0"></rss>', "RSS document without a <channel>"),
    ],
)
def test_invalid_documents(server, call, body, message):
    out = call("rss_feed", url=serve(server, "/bad", body))
    assert out["kind"] == "invalid_feed" and message in out["error"]
    assert out["url"] == server.url_for("/bad")


def test_url_and_http_errors(server, call):
    out = call("rss_feed", url="file:///etc/passwd")
    assert out["kind"] == "invalid_args" and out["argument"] == "url"
    server.expect_request("/gone").respond_with_data("", status=410)
    gone = call("rss_feed", url=server.url_for("/gone"))
    assert (gone["kind"], gone["status"], gone["attempts"]) == ("http_error", 410, 1)
    assert call("rss_feed", url="http://x", limit=0)["kind"] == "invalid_args"


def test_summary_is_truncated_and_str_documents_parse():
    long = "<rss><channel><item><description>" + "word " * 300 + "</description></item></channel></rss>"
    summary = parse_feed(long)["items"][0]["summary"]
    assert len(summary) == 500 and summary.endswith("…")
    with pytest.raises(InvalidFeed, match="root element <nope>"):
        parse_feed(b"<nope/>")


def test_plain_call_returns_json_text(server):
    text = rss_feed(serve(server, "/rss", RSS2), limit=1)
    assert isinstance(text, str) and text.startswith('{"url": ')
