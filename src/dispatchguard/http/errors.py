"""Typed HTTP errors.

Every error raised by :mod:`dispatchguard.http` is an :class:`HttpError`. The runtime's dispatcher
reads ``error_kind`` and ``error_details`` from a tool exception, so a tool that lets these errors
propagate gives the model a precise error object::

    {"error": "GET https://api.example/x failed: HTTP 404 (after 1 attempt)", "kind": "http_error",
     "tool": "...", "url": "https://api.example/x", "status": 404, "attempts": 1, "reason": "..."}
"""

from __future__ import annotations

from typing import Any

import httpx

__all__ = [
    "HttpError",
    "HttpStatusError",
    "HttpTimeoutError",
    "HttpTransportError",
    "InvalidJsonResponse",
    "ResponseTooLarge",
]


class HttpError(Exception):
    """Base class: a request that did not produce a usable response."""

    error_kind = "http_error"

    def __init__(
        self,
        reason: str,
        *,
        url: str,
        method: str = "GET",
        status: int | None = None,
        attempts: int = 1,
        retryable: bool = False,
        retry_after: float | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.url = url
        self.method = method
        self.status = status
        self.attempts = attempts
        self.retryable = retryable
        self.retry_after = retry_after
        self.response = response

    @property
    def error_details(self) -> dict[str, Any]:
        """JSON-able fields merged into the dispatcher's error object."""
        return {"url": self.url, "status": self.status, "attempts": self.attempts, "reason": self.reason}

    def __str__(self) -> str:
        plural = "" if self.attempts == 1 else "s"
        return f"{self.method} {self.url} failed: {self.reason} (after {self.attempts} attempt{plural})"


class HttpStatusError(HttpError):
    """The server answered with an error status (4xx/5xx)."""


class HttpTransportError(HttpError):
    """No response: connection refused, reset, DNS failure, protocol error."""


class HttpTimeoutError(HttpTransportError):
    """A connect, read, write or pool timeout."""


class ResponseTooLarge(HttpError):
    """The response body exceeded ``max_response_bytes``; it was not read further."""


class InvalidJsonResponse(HttpError):
    """``get_json`` received a body that is not JSON."""
