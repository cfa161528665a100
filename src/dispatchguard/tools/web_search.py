"""``web_search``: a SearxNG-compatible JSON search endpoint, through the cached, retrying client.

The endpoint (``DISPATCHGUARD_TOOLS_SEARCH_URL``, e.g. ``http://localhost:8888/search``) is called
as ``GET <endpoint>?q=<query>&format=json`` and must answer ``{"results": [{"title", "url",
"content"}, ...]}``, which is what SearxNG's JSON output format returns. The endpoint's own host
may be private; a redirect from it to another private, loopback, link-local or metadata address is
``blocked_url``.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from annotated_types import Ge, Le, MaxLen, MinLen

from dispatchguard.http import address_guard, get_json
from dispatchguard.runtime.json_text import ensure_json_str

from .errors import InvalidResponse, ToolArgumentError, ToolNotConfigured
from .settings import get_tool_settings


def web_search(
    query: Annotated[str, MinLen(1), MaxLen(500)],
    max_results: Annotated[int, Ge(1), Le(20)] = 5,
) -> str:
    """Search the web; returns JSON {"query", "results": [{"title", "url", "snippet"}]}.

    Args:
        query: what to search for, in plain words.
        max_results: how many results to return (1 to 20).
    """
    query = query.strip()
    if not query:
        raise ToolArgumentError("query is blank", argument="query")
    endpoint = get_tool_settings().search_url
    if not endpoint:
        raise ToolNotConfigured("web_search has no endpoint: set DISPATCHGUARD_TOOLS_SEARCH_URL", setting="search_url")
    # The endpoint is the operator's choice (often a SearxNG on localhost): its host is trusted, but a
    # redirect from it to any other private address is refused.
    guard = address_guard(urlsplit(endpoint).hostname or "")
    data = get_json(endpoint, params={"q": query, "format": "json"}, guard=guard)
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise InvalidResponse("the search endpoint did not answer an object with a 'results' list", url=endpoint)
    hits = [
        {"title": str(item.get("title") or ""), "url": item["url"], "snippet": str(item.get("content") or "")}
        for item in results
        if isinstance(item, dict) and isinstance(item.get("url"), str)
    ]
    return ensure_json_str({"query": query, "results": hits[:max_results]})
