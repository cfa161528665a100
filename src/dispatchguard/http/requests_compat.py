"""``requests_session()``: a requests-cache session with the same TTL and retry settings.

For tools still written against ``requests``. Needs the optional extra::

    pip install dispatchguard[requests]

Migration to httpx (docs/http.md): ``session.get(url, params=p).json()`` becomes
``get_json(url, params=p)``; ``session.post(...)`` becomes ``request("POST", ...)``; catch
``HttpError`` instead of ``requests.RequestException``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .retry import IDEMPOTENT_METHODS, RETRY_STATUSES
from .settings import HttpSettings

if TYPE_CHECKING:
    import requests_cache

INSTALL_HINT = "requests_session() needs the optional 'requests' extra: pip install dispatchguard[requests]"


def requests_session(
    *,
    ttl: float | None = None,
    cache_path: str | None = None,
    settings: HttpSettings | None = None,
) -> requests_cache.CachedSession:
    """A ``requests_cache.CachedSession`` configured like the httpx stack.

    Cache: ``ttl`` (default ``cache_ttl``) for GET/HEAD responses with status 200, in SQLite at
    ``cache_path`` (default: the ``cache_path`` setting) or in memory. Retries: urllib3 ``Retry``
    with the same attempts, statuses, backoff and capped ``Retry-After``; idempotent methods only.
    Every request gets the configured timeouts unless it passes its own ``timeout``.
    """
    try:
        import requests_cache
        from requests.adapters import HTTPAdapter
        from urllib3.util.retry import Retry
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc

    if settings is None:
        from .clients import get_settings

        settings = get_settings()
    s = settings
    path = cache_path or s.cache_path
    ttl = s.cache_ttl if ttl is None else ttl

    class CappedRetry(Retry):  # type: ignore[misc]
        def get_retry_after(self, response: Any) -> float | None:
            seconds = super().get_retry_after(response)
            return None if seconds is None else min(seconds, s.retry_after_cap)

    class Session(requests_cache.CachedSession):  # type: ignore[misc]
        def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("timeout", (s.connect_timeout, s.read_timeout))
            return super().request(method, url, *args, **kwargs)

    session = Session(
        cache_name=path or "dispatchguard-http",
        backend="sqlite" if path else "memory",
        expire_after=max(0, ttl),
        allowable_methods=("GET", "HEAD"),
        allowable_codes=(200,),
    )
    retry = CappedRetry(
        total=s.max_attempts - 1,
        status_forcelist=sorted(RETRY_STATUSES),
        allowed_methods=sorted(IDEMPOTENT_METHODS),
        backoff_factor=s.backoff_base,
        backoff_max=s.backoff_max,
        backoff_jitter=s.backoff_jitter,
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    adapter = HTTPAdapter(max_retries=retry, pool_maxsize=s.max_connections)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = s.user_agent
    return session
