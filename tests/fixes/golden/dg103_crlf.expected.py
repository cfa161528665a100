# -*- coding: utf-8 -*-
"""RSS tools, written on Windows (CRLF line endings)."""

from dispatchguard import ToolAction, ensure_json_str

from crewai.tools import BaseTool


def traced(fn):
    return fn


class FeedTool(BaseTool):
    name: str = "Feed"
    description: str = "Read a feed: títulos y enlaces."

    @traced
    def _run(self, url: str, limit: int = 5) -> str:
        entries = [{"title": "Élection", "url": url}][:limit]
        return ensure_json_str([
            # newest first
            {"title": e["title"], "link": e["url"]}
            for e in entries
        ])


def plan(url: str) -> ToolAction:
    return ToolAction(name="Feed", args={"url": url})
