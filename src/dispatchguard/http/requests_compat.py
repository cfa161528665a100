"""``requests_session()``: a requests-cache session with the same TTL and retry settings.

For tools still written against ``requests``. Needs the optional extra::

    pip install dispatchguard[requests]

Migration to httpx (docs/http.md): ``session.get(url, params=p).json()`` becomes
``get_json(url, params=p)``; ``session.post(...)`` becomes ``request("POST", ...)``; catch
``HttpError`` instead of ``requests.RequestException``.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from .deadline import deadline_scope, time_left
from .guard import AddressGuard, resolve_host
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
    guard: AddressGuard | None = None,
) -> requests_cache.CachedSession:
    """A ``requests_cache.CachedSession`` configured like the httpx stack.

    Cache: ``ttl`` (default ``cache_ttl``) for GET/HEAD responses with status 200, in SQLite at
    ``cache_path`` (default: the ``cache_path`` setting) or in memory. Retries: urllib3 ``Retry``
    with the same attempts, statuses, backoff and capped ``Retry-After``; idempotent methods only.
    Every request gets the configured timeouts unless it passes its own ``timeout``, and ends by
    ``max_total_time`` (retries and a server dripping bytes included): every socket read and write
    gets ``min(its timeout, time left)``. A body read later (``stream=True``) has only the per-read
    timeouts.

    With a ``guard`` (:func:`~dispatchguard.http.address_guard`), every hop (redirects included)
    must resolve to addresses the guard allows, else :class:`~dispatchguard.http.BlockedURL` is
    raised before connecting; the connection is pinned to the first address (``Host`` header and
    TLS name unchanged), proxies from the environment are not used, and cached responses are
    kept apart from those of unguarded sessions.
    """
    try:
        import requests_cache
        from requests.adapters import HTTPAdapter
        from urllib3.util.retry import Retry

        from .requests_deadline import DEADLINE_POOLS
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc

    if settings is None:
        from .clients import get_settings

        settings = get_settings()
    s = settings
    path = cache_path or s.cache_path
    ttl = s.cache_ttl if ttl is None else ttl

    class CappedRetry(Retry):  # type: ignore[misc]
        """urllib3's retries, capped: ``Retry-After`` by ``retry_after_cap``, every wait by the time
        left, and none once the request's deadline has passed."""

        def get_retry_after(self, response: Any) -> float | None:
            seconds = super().get_retry_after(response)
            return None if seconds is None else min(seconds, s.retry_after_cap, *_left())

        def get_backoff_time(self) -> float:
            return min(super().get_backoff_time(), *_left())

        def is_exhausted(self) -> bool:
            left = time_left()
            return super().is_exhausted() or (left is not None and left <= 0)

    class Session(requests_cache.CachedSession):  # type: ignore[misc]
        def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("timeout", (s.connect_timeout, s.read_timeout))
            with deadline_scope(time.monotonic() + s.max_total_time):
                return super().request(method, url, *args, **kwargs)

    class DeadlineAdapter(HTTPAdapter):  # type: ignore[misc]
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = DEADLINE_POOLS

    session = Session(
        cache_name=path or "dispatchguard-http",
        backend="sqlite" if path else "memory",
        expire_after=max(0, ttl),
        allowable_methods=("GET", "HEAD"),
        allowable_codes=(200,),
        **({} if guard is None else {"key_fn": _guarded_key(guard)}),
    )
    if guard is not None:
        session.trust_env = False  # a proxy would connect where it resolves the name, unchecked
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
    adapter_class = DeadlineAdapter if guard is None else _guarded_adapter_class(DeadlineAdapter, guard)
    adapter = adapter_class(max_retries=retry, pool_maxsize=s.max_connections)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = s.user_agent
    return session


def _guarded_key(guard: AddressGuard) -> Any:
    """Cache keys of a guarded session: apart from unguarded ones (whose responses may come from
    anywhere) and from those of another allow-list."""
    from requests_cache.cache_keys import create_key

    scope = hashlib.sha256("\n".join(guard.allow).encode()).hexdigest()[:16]

    def key(request: Any, **kwargs: Any) -> str:
        return f"guarded-{scope}-{create_key(request, **kwargs)}"

    return key


def _guarded_adapter_class(base: Any, guard: AddressGuard) -> Any:
    class GuardedAdapter(base):  # type: ignore[misc,valid-type]
        """Checks every hop's addresses and pins the connection to the first one."""

        def send(self, request: Any, *args: Any, **kwargs: Any) -> Any:
            # urllib3 names the pool's host (the pinned address) in Host: keep the URL's instead
            request.headers["Host"] = urlsplit(request.url).netloc.rsplit("@", 1)[-1]
            return super().send(request, *args, **kwargs)

        def build_connection_pool_key_attributes(self, request: Any, verify: Any, cert: Any = None) -> Any:
            host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
            host = host_params["host"]
            port = host_params["port"] or (443 if host_params["scheme"] == "https" else 80)
            try:
                addresses = resolve_host(host, port)
            except httpx.ConnectError as exc:
                from requests.exceptions import ConnectionError as RequestsConnectionError

                raise RequestsConnectionError(str(exc), request=request) from None
            address = guard.pick(httpx.URL(request.url), addresses)
            if address != host:
                host_params["host"] = address
                if host_params["scheme"] == "https":
                    pool_kwargs.update(server_hostname=host, assert_hostname=host)
            return host_params, pool_kwargs

    return GuardedAdapter


def _left() -> list[float]:
    """The time left before the request's deadline, as ``min`` arguments (none outside a request)."""
    left = time_left()
    return [] if left is None else [max(left, 0.0)]
