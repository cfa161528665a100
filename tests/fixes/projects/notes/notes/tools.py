"""The notes tools, registered in dispatchguard's registry."""

from typing import Any

from dispatchguard import TOOL_REGISTRY

from notes.base import NoteTool
from notes.stats import Stats


class WordCountTool(NoteTool):
    name: str = "word_count"
    description: str = "Count the words and lines of a text."

    def _run(self, text: str) -> Any:
        stats = Stats(len(text.split()), len(text.splitlines()))
        return stats.model_dump()


class TagsTool(NoteTool):
    name: str = "tags"
    description: str = "The #tags of a text."

    def _run(self, text: str) -> Any:
        tags = sorted({w[1:] for w in text.split() if w.startswith("#") and len(w) > 1})
        if not tags:
            return
        return tags


TOOL_REGISTRY.register("word_count", WordCountTool())
TOOL_REGISTRY.register("tags", TagsTool())
