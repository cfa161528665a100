"""A LangChain tool class returning (content, artifact): only the content is the model's."""

from langchain_core.tools import BaseTool


class PageTool(BaseTool):
    name: str = "page"
    description: str = "Fetch a page."
    response_format: str = "content_and_artifact"

    def _run(self, url: str):
        raw = f"<html>{url}</html>"
        if not url:
            return ({"error": "no url"}, None)
        return {"url": url, "length": len(raw)}, raw
