"""Errors raised by the reference tools.

``error_kind`` becomes the ``kind`` of the dispatcher's error JSON and ``error_details`` is merged
into it, so the model sees what to change (an argument, a path) rather than a bare message.
HTTP failures reach the dispatcher as :class:`dispatchguard.http.HttpError` (kind ``http_error``).
"""

from __future__ import annotations

from typing import Any


class ToolError(Exception):
    """Base of the reference tools' errors: a message, plus keyword details meant for the model.

    The dispatcher answers error JSON whose ``kind`` is the class's ``error_kind``, with
    :attr:`error_details` merged in. The tools raise its subclasses.
    """

    error_kind = "tool_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.details = details

    @property
    def error_details(self) -> dict[str, Any]:
        """A copy of the keyword details, which the dispatcher merges into the error JSON."""
        return dict(self.details)


class ToolArgumentError(ToolError, ValueError):
    """An argument has the right type but an unusable value (empty query, limit out of range)."""

    error_kind = "invalid_args"


class ToolNotConfigured(ToolError):
    """A setting the tool needs is missing (e.g. the search endpoint)."""

    error_kind = "not_configured"


class UnsafePathError(ToolError):
    """file_writer refused a path: absolute, ``..``, or leading out of the root."""

    error_kind = "unsafe_path"


class TextTooLarge(ToolError):
    """file_writer refused a text over ``max_file_bytes`` in UTF-8 (details: bytes, limit)."""

    error_kind = "too_large"


class InvalidFeed(ToolError):
    """rss_feed: not XML, unsafe XML (entities, external references), or not RSS/Atom."""

    error_kind = "invalid_feed"


class InvalidResponse(ToolError):
    """A service answered with JSON of an unexpected shape."""

    error_kind = "invalid_response"
