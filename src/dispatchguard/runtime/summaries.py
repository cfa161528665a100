"""The registry of tool-result summarisers: how a tool's result is shown to a model in short.

It lives with the runtime so that tools register their summariser where they are defined (the
reference tools do, in :mod:`dispatchguard.tools.summaries`) without depending on the agent loop,
which reads it (:func:`dispatchguard.agent.summarize.summarize_tool_result`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Summarizer", "register_summarizer", "summarizer_of", "unregister_summarizer"]

Summarizer = Callable[[Any], str]
F = TypeVar("F", bound=Summarizer)

_SUMMARIZERS: dict[str, Summarizer] = {}


def register_summarizer(name: str, summarizer: F | None = None) -> Any:
    """Register ``summarizer(value) -> str`` for the tool ``name``; usable as a decorator.

    ``value`` is the tool's result parsed from JSON (the raw text if it is not JSON). Error results
    never reach it. A later registration for the same name replaces the earlier one.
    """

    def decorator(func: F) -> F:
        _SUMMARIZERS[name] = func
        return func

    return decorator if summarizer is None else decorator(summarizer)


def unregister_summarizer(name: str) -> None:
    """Forget the summariser of ``name`` (no error if there is none)."""
    _SUMMARIZERS.pop(name, None)


def summarizer_of(name: str) -> Summarizer | None:
    """The summariser registered for the tool ``name``, if any."""
    return _SUMMARIZERS.get(name)
