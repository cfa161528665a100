"""The agent loop's one-line summaries of the reference tools that need their own.

Registered on import of :mod:`dispatchguard.tools` through the runtime's
:func:`~dispatchguard.runtime.summaries.register_summarizer`; the agent loop shows them to the model in
place of the full JSON. Each gets the parsed result (error results never reach them).
"""

from __future__ import annotations

from typing import Any

from dispatchguard.runtime.summaries import register_summarizer

SNIPPET_CHARS = 160
SHOWN_HITS = 3


def _snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@register_summarizer("rag_search")
def summarize_rag_search(value: Any) -> str:
    """Count, query and scope, then the first three hits with their source, score and a snippet."""
    results = value["results"]
    head = f"{len(results)} passage{'' if len(results) == 1 else 's'} for {value['query']!r} in {value['scope']}"
    if not results:
        return head
    shown = [
        f"{hit['source']}#{hit['chunk']} (score {hit['score']:.2f}): {_snippet(hit['text'])}"
        for hit in results[:SHOWN_HITS]
    ]
    more = f" (+{len(results) - SHOWN_HITS} more)" if len(results) > SHOWN_HITS else ""
    return f"{head}: " + " | ".join(shown) + more


@register_summarizer("generate_image")
def summarize_generate_image(value: Any) -> str:
    """Where the request goes, its size, steps and guidance, and the prompt cut to 200 chars."""
    request = value["request"]
    where = value.get("endpoint") or "the application's image endpoint"
    return (
        f"image request for {where}: {request['width']}x{request['height']}, {request['num_inference_steps']} steps,"
        f" guidance {request['guidance_scale']:g}: {_snippet(request['prompt'], 200)}"
    )
