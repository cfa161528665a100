"""RSS 2.0 and Atom headlines. XML is parsed with defusedxml (no entity expansion)."""

from __future__ import annotations

from pathlib import Path

import httpx
from defusedxml import ElementTree
from pydantic import BaseModel, Field

from newsroom.models import FeedEntry
from newsroom.tools.base import NewsTool

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
ATOM = "{http://www.w3.org/2005/Atom}"
MAX_FEED_BYTES = 2_000_000


class FeedInput(BaseModel):
    url: str = Field(description="an http(s) URL, or the name of a bundled sample feed")
    limit: int = Field(default=5, ge=1, le=50)


class RssFeedTool(NewsTool):
    name: str = "RSS Feed Reader"
    description: str = "Latest entries of an RSS or Atom feed: title, link, published, summary."
    args_schema: type[BaseModel] = FeedInput

    def _run(self, url: str, limit: int = 5) -> list:
        try:
            entries = parse_feed(fetch(url))[:limit]
        except (OSError, ValueError, httpx.HTTPError):
            return  # expect: DG103
        return [entry.model_dump() for entry in entries]  # expect: DG103


def fetch(url: str) -> bytes:
    if url.startswith(("http://", "https://")):
        response = httpx.get(url, timeout=10.0, follow_redirects=True)
        response.raise_for_status()
        body = response.content
    else:
        sample = (DATA_DIR / url).resolve()
        if sample.parent != DATA_DIR:
            raise ValueError(f"{url!r} is neither an http(s) URL nor a bundled sample feed")
        body = sample.read_bytes()
    if len(body) > MAX_FEED_BYTES:
        raise ValueError(f"feed is larger than {MAX_FEED_BYTES} bytes")
    return body


def parse_feed(body: bytes) -> list[FeedEntry]:
    root = ElementTree.fromstring(body)
    if root.tag == f"{ATOM}feed":
        return [
            FeedEntry(
                title=_text(entry, f"{ATOM}title"),
                link=(entry.find(f"{ATOM}link").get("href", "") if entry.find(f"{ATOM}link") is not None else ""),
                published=_text(entry, f"{ATOM}updated") or _text(entry, f"{ATOM}published"),
                summary=_text(entry, f"{ATOM}summary"),
            )
            for entry in root.iter(f"{ATOM}entry")
        ]
    return [
        FeedEntry(
            title=_text(item, "title"),
            link=_text(item, "link"),
            published=_text(item, "pubDate"),
            summary=_text(item, "description"),
        )
        for item in root.iter("item")
    ]


def _text(element, tag: str) -> str:
    child = element.find(tag)
    return (child.text or "").strip() if child is not None else ""
