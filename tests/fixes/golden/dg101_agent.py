"""The planner agent calls its tools directly (every call here is a DG101); run_tool, at the end,
is the project's dispatcher."""

from __future__ import annotations

import asyncio

from crewai.tools import BaseTool


class SearchTool(BaseTool):
    name: str = "Web Search"
    description: str = "Search the web."

    def _run(self, query: str, limit: int = 5) -> str:
        return "[]"

    async def _arun(self, query: str, limit: int = 5) -> str:
        return "[]"


class QuoteTool(BaseTool):
    name: str = "Quote"
    description: str = "Latest price."

    def _run(self, symbol: str) -> str:
        return "{}"


REGISTRY = {
    "web_search": SearchTool(),
    "quote": QuoteTool(),
}


def retry(times):
    def wrap(fn):
        return fn

    return wrap


class Planner:
    search: SearchTool = SearchTool()

    def __init__(self) -> None:
        self.quotes = REGISTRY["quote"]

    @retry(times=3)
    def headlines(self, topic: str) -> str:
        return self.search.run(
            query=topic,  # what the editor asked for
            # a comment on its own line
            limit=3,
        )

    def price(self, symbol: str) -> str:
        return self.quotes.run(symbol=symbol)

    async def many(self, topics: list[str]) -> list[str]:
        async def one(topic: str) -> str:
            return await self.search.arun(query=topic)

        return await asyncio.gather(*(one(t) for t in topics))


def quick(tool: SearchTool, topic: str, options: dict) -> tuple[str, str, str]:
    first = REGISTRY.get("web_search").run(query=topic, limit=1)
    second = tool.run(topic)  # positional: no fix
    third = tool.run(**options)  # **kwargs: no fix
    return first, second, third


def run_tool(name: str, args: dict) -> str:
    return REGISTRY[name].run(**args)
