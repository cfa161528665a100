"""The retry policy: which failures are retried, how long to wait, when to give up.

Retried: transport errors (connection refused/reset, protocol errors), timeouts and the statuses in
:data:`RETRY_STATUSES`; never any other 4xx/5xx, never a body that is too large, and never a
non-idempotent method (POST, PATCH) unless the caller passes ``retry_non_idempotent=True``.
Waits: the server's ``Retry-After`` (seconds or HTTP date) capped at ``retry_after_cap``, otherwise
exponential backoff with jitter (``min(backoff_base * 2**n, backoff_max) + U(0, backoff_jitter)``).
Gives up after ``max_attempts`` attempts, or before a wait that would take the whole call past
``max_total_time``. Each retry is logged at WARNING on ``dispatchguard.http``.
"""

from __future__ import annotations

import email.utils
import functools
import logging
import math
import time
from typing import Any

import httpx
import tenacity

from .errors import HttpError, HttpStatusError, HttpTimeoutError, HttpTransportError
from .settings import HttpSettings

__all__ = [
    "IDEMPOTENT_METHODS",
    "RETRY_STATUSES",
    "async_retrying",
    "classify_exception",
    "parse_retry_after",
    "retrying",
    "status_error",
]

logger = logging.getLogger("dispatchguard.http")

RETRY_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
# Transport errors that will fail the same way every time.
_PERMANENT_TRANSPORT = (httpx.UnsupportedProtocol, httpx.LocalProtocolError, httpx.ProxyError)
# tenacity >= 8.3; older versions stop after the delay instead of before it.
_stop_before_delay = getattr(tenacity, "stop_before_delay", tenacity.stop_after_delay)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date); None if absent/invalid."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # RFC 9110 dates are GMT
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def status_error(method: str, url: str, response: httpx.Response) -> HttpStatusError:
    """The typed error for an error status; retryable for 429/502/503/504."""
    status = response.status_code
    retryable = status in RETRY_STATUSES
    return HttpStatusError(
        f"HTTP {status} {response.reason_phrase}".rstrip(),
        url=url,
        method=method,
        status=status,
        retryable=retryable,
        retry_after=parse_retry_after(response.headers.get("Retry-After")) if retryable else None,
        response=response,
    )


def classify_exception(method: str, url: str, exc: httpx.HTTPError | httpx.InvalidURL) -> HttpError:
    """Map an httpx exception to the typed error, deciding whether it is worth another attempt."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return HttpTimeoutError(f"{type(exc).__name__}: {detail}", url=url, method=method, retryable=True)
    if isinstance(exc, httpx.TransportError):
        retryable = not isinstance(exc, _PERMANENT_TRANSPORT)
        return HttpTransportError(f"{type(exc).__name__}: {detail}", url=url, method=method, retryable=retryable)
    return HttpError(f"{type(exc).__name__}: {detail}", url=url, method=method)


def _is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, HttpError) and exc.retryable


@functools.lru_cache(maxsize=16)
def _policy_kwargs(settings: HttpSettings, allow_retry: bool) -> dict[str, Any]:
    backoff = tenacity.wait_exponential(
        multiplier=settings.backoff_base, max=settings.backoff_max
    ) + tenacity.wait_random(0, settings.backoff_jitter)

    def wait(state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, HttpError) and exc.retry_after is not None:
            return min(exc.retry_after, settings.retry_after_cap)
        return backoff(state)

    def log_retry(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, HttpError):
            sleep = state.next_action.sleep if state.next_action else 0.0
            logger.warning(
                "retrying %s %s in %.2fs: attempt %d of %d failed: %s",
                exc.method, exc.url, sleep, state.attempt_number, settings.max_attempts, exc.reason,
            )

    return {
        "stop": tenacity.stop_after_attempt(settings.max_attempts) | _stop_before_delay(settings.max_total_time),
        "wait": wait,
        "retry": tenacity.retry_if_exception(_is_retryable) if allow_retry else tenacity.retry_never,
        "before_sleep": log_retry,
        "reraise": True,
    }


def retrying(settings: HttpSettings, *, allow_retry: bool = True) -> tenacity.Retrying:
    """A fresh tenacity ``Retrying`` for one call under ``settings`` (one attempt if not ``allow_retry``)."""
    return tenacity.Retrying(**_policy_kwargs(settings, allow_retry))


def async_retrying(settings: HttpSettings, *, allow_retry: bool = True) -> tenacity.AsyncRetrying:
    """The async twin of :func:`retrying`: a fresh ``tenacity.AsyncRetrying`` for one call."""
    return tenacity.AsyncRetrying(**_policy_kwargs(settings, allow_retry))
