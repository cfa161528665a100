"""``rss_feed``: the latest items of an RSS 2.0, RSS 1.0 (RDF) or Atom feed, parsed safely.

The document is fetched through :mod:`dispatchguard.http` (retries, the TTL cache, a size limit of
``DISPATCHGUARD_TOOLS_MAX_FEED_BYTES``) and parsed with ``defusedxml``: entity declarations
(billion laughs, quadratic blowup) and external references (XXE) are refused, never expanded.
The feed's address, and every redirect, must be public (or on ``DISPATCHGUARD_HTTP_SSRF_ALLOWLIST``):
loopback, private, link-local and metadata addresses are ``blocked_url``. Summaries take linear
time in the size of the document.
"""

from __future__ import annotations

import email.utils
import html
import xml.etree.ElementTree as ET
from datetime import datetime
from typing import Annotated

import defusedxml
import defusedxml.ElementTree as SafeET
from annotated_types import Ge, Le, MaxLen

from dispatchguard.http import address_guard, cache_key, get_cache, get_settings, request
from dispatchguard.runtime.json_text import ensure_json_str

from .errors import InvalidFeed, ToolArgumentError
from .settings import get_tool_settings

ATOM = "{http://www.w3.org/2005/Atom}"
RSS1 = "{http://purl.org/rss/1.0/}"
RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
DC = "{http://purl.org/dc/elements/1.1/}"
CONTENT = "{http://purl.org/rss/1.0/modules/content/}"
SUMMARY_CHARS = 500
ACCEPT = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"


def rss_feed(url: Annotated[str, MaxLen(2048)], limit: Annotated[int, Ge(1), Le(100)] = 10) -> str:
    """Read a news feed; returns JSON {"url", "title", "items": [{"title", "link", "published", "summary"}]}.

    Args:
        url: http(s) address of an RSS or Atom feed.
        limit: how many of the newest items to return (1 to 100).
    """
    if not url.lower().startswith(("http://", "https://")):
        raise ToolArgumentError("url must start with http:// or https://", argument="url")
    body = _fetch(url)
    return ensure_json_str({"url": url, **parse_feed(body, url, limit)})


def _fetch(url: str) -> bytes:
    max_bytes = get_tool_settings().max_feed_bytes
    headers = {"Accept": ACCEPT}

    guard = address_guard()

    def fetch() -> bytes:
        return request("GET", url, headers=headers, max_bytes=max_bytes, guard=guard).content

    # the allow-list is part of the key: a feed fetched under a wider one is not served under this one
    key = cache_key("GET", url, {"guard": list(guard.allow)}, headers)
    return get_cache().get_or_fetch(key, fetch, get_settings().cache_ttl)


def parse_feed(document: bytes | str, url: str = "", limit: int = 10) -> dict:
    """``{"title", "items"}`` of an RSS 2.0/1.0 or Atom document; raises :class:`InvalidFeed`."""
    if isinstance(document, str):
        document = document.encode("utf-8")
    try:
        root = SafeET.fromstring(document, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except defusedxml.DefusedXmlException as exc:
        reason = f"unsafe XML refused ({type(exc).__name__}): entities and external references are not allowed"
        raise InvalidFeed(reason, url=url) from None
    except ET.ParseError as exc:
        raise InvalidFeed(f"invalid XML: {exc}", url=url) from None
    if root.tag == "rss":
        channel = root.find("channel")
        if channel is None:
            raise InvalidFeed("RSS document without a <channel>", url=url)
        items = [_rss_item(item) for item in channel.iterfind("item")]
        title = _text(channel.find("title"))
    elif root.tag == f"{ATOM}feed":
        items = [_atom_entry(entry) for entry in root.iterfind(f"{ATOM}entry")]
        title = _text(root.find(f"{ATOM}title"))
    elif root.tag == f"{RDF}RDF":
        items = [_rss1_item(item) for item in root.iterfind(f"{RSS1}item")]
        title = _text(root.find(f"{RSS1}channel/{RSS1}title"))
    else:
        raise InvalidFeed(f"not an RSS or Atom feed (root element <{_local(root.tag)}>)", url=url)
    return {"title": title, "items": items[:limit]}


def _rss_item(item: ET.Element) -> dict:
    return {
        "title": _text(item.find("title")),
        "link": _text(item.find("link")) or _text(item.find("guid")),
        "published": _date(_text(item.find("pubDate")) or _text(item.find(f"{DC}date"))),
        "summary": _summary(_text(item.find("description")) or _text(item.find(f"{CONTENT}encoded"))),
    }


def _rss1_item(item: ET.Element) -> dict:
    return {
        "title": _text(item.find(f"{RSS1}title")),
        "link": _text(item.find(f"{RSS1}link")) or item.get(f"{RDF}about", ""),
        "published": _date(_text(item.find(f"{DC}date"))),
        "summary": _summary(_text(item.find(f"{RSS1}description"))),
    }


def _atom_entry(entry: ET.Element) -> dict:
    links = entry.findall(f"{ATOM}link")
    alternate = [link for link in links if link.get("rel", "alternate") == "alternate"]
    link = (alternate or links or [None])[0]
    return {
        "title": _text(entry.find(f"{ATOM}title")),
        "link": link.get("href", "") if link is not None else "",
        "published": _date(_text(entry.find(f"{ATOM}published")) or _text(entry.find(f"{ATOM}updated"))),
        "summary": _summary(_text(entry.find(f"{ATOM}summary")) or _text(entry.find(f"{ATOM}content"))),
    }


def _text(element: ET.Element | None) -> str:
    return "".join(element.itertext()).strip() if element is not None else ""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _date(value: str) -> str | None:
    """ISO 8601 when the date parses (RFC 822 for RSS, RFC 3339 for Atom), else the text as given."""
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()
    except ValueError:
        return value


def strip_tags(markup: str) -> str:
    """``markup`` with each ``<...>`` replaced by a space, in linear time.

    The same result as ``re.sub(r"<[^>]*>", " ", markup)``, which is quadratic on text with many
    ``<`` and no ``>`` (the engine rescans the rest of the text from every ``<``): here the first
    ``<`` without a closing ``>`` ends the scan, since no later one can have a ``>`` either.
    """
    parts: list[str] = []
    position = 0
    while (start := markup.find("<", position)) >= 0:
        end = markup.find(">", start + 1)
        if end < 0:
            break
        parts.append(markup[position:start])
        parts.append(" ")
        position = end + 1
    parts.append(markup[position:])
    return "".join(parts)


def _summary(markup: str) -> str:
    """Plain text: tags dropped, entities decoded, whitespace collapsed, at most 500 characters."""
    text = " ".join(html.unescape(strip_tags(markup)).split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1].rstrip() + "…"
