"""Shared httpx clients and the retrying, caching request functions built on them.

``get_client()`` returns one process-wide :class:`httpx.Client`. ``get_async_client()`` returns one
:class:`httpx.AsyncClient` per running event loop (an AsyncClient's pooled connections belong to
the loop that opened them, so a client is never shared across loops; the usual single-loop
program sees exactly one). Both are created lazily, under a lock, from the current
:class:`~dispatchguard.http.settings.HttpSettings`.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import threading
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx

from .cache import CacheStore, MemoryCache, SQLiteCache, TTLCache, cache_key
from .deadline import bounded_transport, deadline_scope
from .errors import HttpError, HttpTimeoutError, InvalidJsonResponse, ResponseTooLarge
from .guard import DEADLINE_EXTENSION, GUARD_EXTENSION, AddressGuard, AsyncGuardedTransport, GuardedTransport
from .retry import (
    IDEMPOTENT_METHODS,
    async_retrying,
    classify_exception,
    retrying,
    status_error,
)
from .settings import HttpSettings, settings_from_env

__all__ = [
    "aclose_clients",
    "aclose_loop_client",
    "address_guard",
    "aget_json",
    "arequest",
    "configure",
    "get_async_client",
    "get_cache",
    "get_client",
    "get_json",
    "get_settings",
    "request",
    "reset_clients",
]

# Response.extensions key holding the number of attempts request()/arequest() made.
ATTEMPTS_EXTENSION = "dispatchguard.attempts"

_lock = threading.RLock()
_settings: HttpSettings | None = None
_client: httpx.Client | None = None
_unbound_async_client: httpx.AsyncClient | None = None
_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()
# One started guard generator per loop client (held here: the loop itself keeps only weak refs).
_loop_guards: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
# ... and the task that started it (the loop keeps only weak references to its tasks too).
_loop_guard_starts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
_cache: TTLCache | None = None


# -- settings and shared objects -------------------------------------------------------------


def get_settings() -> HttpSettings:
    """The settings in force: the last :func:`configure`'s, else read once from the environment.

    Thread-safe. Raises ``ValueError`` naming the variable when a ``DISPATCHGUARD_HTTP_*``
    value cannot be parsed.
    """
    global _settings
    if _settings is None:
        with _lock:
            if _settings is None:
                _settings = settings_from_env()
    return _settings


def configure(**overrides: Any) -> HttpSettings:
    """Override settings in code (on top of the current ones); clients and cache are rebuilt lazily."""
    global _settings
    with _lock:
        new = get_settings().replace(**overrides)
        reset_clients()
        _settings = new
        return new


def _transport_kwargs(settings: HttpSettings) -> dict[str, Any]:
    return {
        "limits": httpx.Limits(
            max_connections=settings.max_connections,
            max_keepalive_connections=settings.max_keepalive_connections,
            keepalive_expiry=settings.keepalive_expiry,
        ),
        "http1": True,
        "http2": False,
    }


def _client_kwargs(settings: HttpSettings) -> dict[str, Any]:
    return {
        "timeout": httpx.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.write_timeout,
            pool=settings.pool_timeout,
        ),
        "headers": {"User-Agent": settings.user_agent},
        "follow_redirects": settings.follow_redirects,
    }


def _new_client(settings: HttpSettings) -> httpx.Client:
    transport = GuardedTransport(bounded_transport(**_transport_kwargs(settings)))
    return httpx.Client(transport=transport, **_client_kwargs(settings))


def _new_async_client(settings: HttpSettings) -> httpx.AsyncClient:
    transport = AsyncGuardedTransport(httpx.AsyncHTTPTransport(**_transport_kwargs(settings)))
    return httpx.AsyncClient(transport=transport, **_client_kwargs(settings))


def get_client() -> httpx.Client:
    """The shared synchronous client (thread-safe)."""
    global _client
    client = _client
    if client is None or client.is_closed:
        with _lock:
            if _client is None or _client.is_closed:
                _client = _new_client(get_settings())
            client = _client
    return client


def get_async_client() -> httpx.AsyncClient:
    """The shared async client of the running event loop.

    Called outside a running loop, it returns a client that the first loop asking for one adopts.
    """
    global _unbound_async_client
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    with _lock:
        if loop is None:
            if _unbound_async_client is None or _unbound_async_client.is_closed:
                _unbound_async_client = _new_async_client(get_settings())
            return _unbound_async_client
        client = _async_clients.get(loop)
        if client is None or client.is_closed:
            client, _unbound_async_client = _unbound_async_client, None
            if client is None or client.is_closed:
                client = _new_async_client(get_settings())
            _async_clients[loop] = client
            _close_at_loop_shutdown(loop, client)
        return client


async def _closing_guard(client: httpx.AsyncClient) -> AsyncIterator[None]:
    try:
        yield
    finally:
        if not client.is_closed:
            await client.aclose()


def _close_at_loop_shutdown(loop: asyncio.AbstractEventLoop, client: httpx.AsyncClient) -> None:
    """Close ``client`` on its own loop before that loop ends. ``asyncio.run`` (and any runner that
    calls ``loop.shutdown_asyncgens()``) finalises the loop's live async generators first, so a
    started generator whose ``finally`` closes the client does it on the right loop; without this
    the pooled connections die with the loop (ResourceWarning: unclosed transport)."""
    guard = _closing_guard(client)
    _loop_guards[loop] = guard
    _loop_guard_starts[loop] = asyncio.ensure_future(guard.__anext__(), loop=loop)


def get_cache() -> TTLCache:
    """The shared response cache: Redis when ``cache_redis_url`` (or ``DISPATCHGUARD_REDIS_URL``) is
    set, else SQLite when ``cache_path`` is set, memory otherwise."""
    global _cache
    if _cache is None:
        with _lock:
            if _cache is None:
                s = get_settings()
                store: CacheStore
                if s.cache_redis_url:
                    from .redis_cache import RedisCache  # needs the redis extra

                    store = RedisCache(s.cache_redis_url, max_bytes=s.cache_max_bytes)
                elif s.cache_path:
                    store = SQLiteCache(s.cache_path, s.cache_max_entries, s.cache_max_bytes)
                else:
                    store = MemoryCache(s.cache_max_entries, s.cache_max_bytes)
                # a fetch ends within max_total_time; the margin covers storing its value
                _cache = TTLCache(store, lock_seconds=s.max_total_time + 5.0)
    return _cache


def _close_async_client(loop: asyncio.AbstractEventLoop | None, client: httpx.AsyncClient) -> None:
    if client.is_closed:
        return
    if loop is None:
        asyncio.run(client.aclose())
    elif loop.is_closed():
        pass  # its connections died with the loop; nothing can be awaited there any more
    elif loop.is_running():
        loop.call_soon_threadsafe(lambda: loop.create_task(client.aclose()))
    else:
        loop.run_until_complete(client.aclose())


def reset_clients(*, reset_settings: bool = False) -> None:
    """Close the shared clients and drop the cache; with ``reset_settings``, re-read the environment."""
    global _client, _unbound_async_client, _cache, _settings
    with _lock:
        if _client is not None:
            _client.close()
        for loop, client in list(_async_clients.items()):
            _close_async_client(loop, client)
        if _unbound_async_client is not None:
            _close_async_client(None, _unbound_async_client)
        if _cache is not None and hasattr(_cache.store, "close"):
            _cache.store.close()
        _client, _unbound_async_client, _cache = None, None, None
        _async_clients.clear()
        if reset_settings:
            _settings = None


async def aclose_loop_client() -> None:
    """Close the running loop's shared async client, if one was made for it. Code that owns its
    event loop (``asyncio.run``) awaits this before the loop ends, so that the pooled connections
    are closed cleanly instead of dying with the loop (ResourceWarning: unclosed transport)."""
    loop = asyncio.get_running_loop()
    with _lock:
        client = _async_clients.pop(loop, None)
    if client is not None:
        await client.aclose()


async def aclose_clients() -> None:
    """Close the running loop's async client (call before the loop ends) and the sync client."""
    global _client
    loop = asyncio.get_running_loop()
    with _lock:
        client = _async_clients.pop(loop, None)
        sync_client, _client = _client, None
    if client is not None:
        await client.aclose()
    if sync_client is not None:
        sync_client.close()


atexit.register(lambda: _client.close() if _client is not None else None)


# -- requests ------------------------------------------------------------------------------


def _check_declared_size(method: str, url: str, response: httpx.Response, limit: int) -> None:
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ResponseTooLarge(
            f"response of {declared} bytes exceeds the limit of {limit} bytes",
            url=url, method=method, status=response.status_code,
        )


def _too_large(method: str, url: str, response: httpx.Response, limit: int) -> ResponseTooLarge:
    return ResponseTooLarge(
        f"response exceeds the limit of {limit} bytes", url=url, method=method, status=response.status_code
    )


def _finish(method: str, url: str, response: httpx.Response, raise_for_status: bool) -> httpx.Response:
    if response.status_code >= 400:
        error = status_error(method, url, response)
        if error.retryable or raise_for_status:
            raise error
    return response


class _Call:
    """What every attempt of one call shares: the body limit and the call's deadline."""

    __slots__ = ("budget", "deadline", "limit", "method", "raise_for_status", "url")

    def __init__(self, method: str, url: str, limit: int, raise_for_status: bool, budget: float) -> None:
        self.method, self.url, self.limit, self.raise_for_status = method, url, limit, raise_for_status
        self.budget = budget
        self.deadline = time.monotonic() + budget

    def expired(self) -> HttpTimeoutError:
        return HttpTimeoutError(
            f"the total time limit of {self.budget:g}s (max_total_time) ran out", url=self.url, method=self.method
        )

    def remaining(self) -> float:
        """Seconds left; HttpTimeoutError (not retried) once the call's time is spent."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self.expired()
        return left

    def extend(self, kw: dict[str, Any], guard: AddressGuard | None) -> dict[str, Any]:
        extensions = {**(kw.get("extensions") or {}), DEADLINE_EXTENSION: self.deadline}
        if guard is not None:
            extensions[GUARD_EXTENSION] = guard
        return {**kw, "extensions": extensions}

    def add_chunk(self, chunks: list[bytes], size: int, chunk: bytes, response: httpx.Response) -> int:
        size += len(chunk)
        if size > self.limit:
            raise _too_large(self.method, self.url, response, self.limit)
        chunks.append(chunk)
        self.remaining()  # a body that trickles in must not outlive the deadline
        return size


def _send_once(client: httpx.Client, call: _Call, kw: dict[str, Any]) -> httpx.Response:
    method, url = call.method, call.url
    call.remaining()
    try:
        with client.stream(method, url, **kw) as response:
            _check_declared_size(method, url, response, call.limit)
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size = call.add_chunk(chunks, size, chunk, response)
            response._content = b"".join(chunks)  # what Response.read() does, with a bound
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        if time.monotonic() >= call.deadline:  # the socket gave up because the call's time ran out
            raise call.expired() from exc
        raise classify_exception(method, url, exc) from exc
    return _finish(method, url, response, call.raise_for_status)


async def _asend_body(client: httpx.AsyncClient, call: _Call, kw: dict[str, Any]) -> httpx.Response:
    method, url = call.method, call.url
    try:
        async with client.stream(method, url, **kw) as response:
            _check_declared_size(method, url, response, call.limit)
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size = call.add_chunk(chunks, size, chunk, response)
            response._content = b"".join(chunks)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise classify_exception(method, url, exc) from exc
    return _finish(method, url, response, call.raise_for_status)


async def _asend_once(client: httpx.AsyncClient, call: _Call, kw: dict[str, Any]) -> httpx.Response:
    try:
        return await asyncio.wait_for(_asend_body(client, call, kw), call.remaining())
    except asyncio.TimeoutError:
        raise call.expired() from None


def _give_up(error: HttpError, attempts: int, raise_for_status: bool) -> httpx.Response:
    """Record the attempt count on the final error; hand back an error response if asked to."""
    error.attempts = attempts
    if not raise_for_status and error.response is not None:
        error.response.extensions[ATTEMPTS_EXTENSION] = attempts
        return error.response
    raise error


def _may_retry(method: str, retry_non_idempotent: bool) -> bool:
    return retry_non_idempotent or method in IDEMPOTENT_METHODS


def _call(method: str, url: str, max_bytes: int | None, raise_for_status: bool, settings: HttpSettings) -> _Call:
    limit = settings.max_response_bytes if max_bytes is None else max_bytes
    return _Call(method, url, limit, raise_for_status, settings.max_total_time)


def address_guard(*also_allow: str) -> AddressGuard:
    """The SSRF guard of the current settings: public addresses, ``ssrf_allowlist``, and ``also_allow``
    (host names, addresses or networks the caller trusts, e.g. a configured endpoint's host)."""
    return AddressGuard.from_allowlist((*get_settings().ssrf_allowlist, *also_allow))


def request(
    method: str,
    url: str,
    *,
    retry_non_idempotent: bool = False,
    raise_for_status: bool = True,
    max_bytes: int | None = None,
    guard: AddressGuard | None = None,
    **kw: Any,
) -> httpx.Response:
    """Send a request through the shared client under the retry policy.

    ``kw`` goes to :meth:`httpx.Client.stream` (``params``, ``json``, ``headers``, ``timeout``...).
    Returns the response with its body read (at most ``max_bytes``, default ``max_response_bytes``,
    after decompression; beyond that :class:`ResponseTooLarge`, never retried). The whole call,
    retries and a body that trickles in included, ends by ``max_total_time``. With a ``guard``
    (:func:`address_guard`) every hop, redirects included, must reach an address it allows, else
    :class:`BlockedURL`. Raises an :class:`HttpError` subclass on failure;
    with ``raise_for_status=False`` an error status that is not retried (or whose retries ran out)
    is returned instead of raised.
    """
    method = method.upper()
    url = str(url)
    settings = get_settings()
    client = get_client()
    call = _call(method, url, max_bytes, raise_for_status, settings)
    kw = call.extend(kw, guard)
    attempts = 0
    try:
        for attempt in retrying(settings, allow_retry=_may_retry(method, retry_non_idempotent)):
            with attempt, deadline_scope(call.deadline):
                attempts = attempt.retry_state.attempt_number
                response = _send_once(client, call, kw)
                response.extensions[ATTEMPTS_EXTENSION] = attempts
                return response
    except HttpError as error:
        return _give_up(error, attempts, raise_for_status)
    raise AssertionError("unreachable: tenacity either returns or re-raises")  # pragma: no cover


async def arequest(
    method: str,
    url: str,
    *,
    retry_non_idempotent: bool = False,
    raise_for_status: bool = True,
    max_bytes: int | None = None,
    guard: AddressGuard | None = None,
    **kw: Any,
) -> httpx.Response:
    """The async twin of :func:`request`, on the running loop's shared client."""
    method = method.upper()
    url = str(url)
    settings = get_settings()
    client = get_async_client()
    call = _call(method, url, max_bytes, raise_for_status, settings)
    kw = call.extend(kw, guard)
    attempts = 0
    try:
        async for attempt in async_retrying(settings, allow_retry=_may_retry(method, retry_non_idempotent)):
            with attempt:
                attempts = attempt.retry_state.attempt_number
                response = await _asend_once(client, call, kw)
                response.extensions[ATTEMPTS_EXTENSION] = attempts
                return response
    except HttpError as error:
        return _give_up(error, attempts, raise_for_status)
    raise AssertionError("unreachable: tenacity either returns or re-raises")  # pragma: no cover


def _decode_json(url: str, response: httpx.Response) -> Any:
    try:
        return json.loads(response.content)
    except ValueError as exc:
        raise InvalidJsonResponse(
            f"invalid JSON in response: {exc}",
            url=url,
            status=response.status_code,
            attempts=response.extensions.get(ATTEMPTS_EXTENSION, 1),
        ) from None


def _cache_ttl(ttl: float | None, cache: bool) -> float:
    if not cache:
        return 0.0
    return get_settings().cache_ttl if ttl is None else ttl


def _json_cache_key(url: str, params: Any, kw: dict[str, Any]) -> str:
    """Guarded and unguarded fetches never share an entry: a body fetched without the guard (or with
    a wider allow-list) must not answer a guarded call."""
    guard = kw.get("guard")
    if guard is not None:
        params = {"params": params, "guard": list(guard.allow)}
    return cache_key("GET", url, params, kw.get("headers"))


def get_json(url: str, *, params: Any = None, ttl: float | None = None, cache: bool = True, **kw: Any) -> Any:
    """GET ``url`` and decode its JSON body, through the TTL cache (identical concurrent calls collapse).

    ``ttl`` overrides the default ``cache_ttl``; ``cache=False`` or ``ttl=0`` bypasses the cache.
    Only successful responses with valid JSON are cached; every call gets its own decoded object.
    """
    url = str(url)
    ttl = _cache_ttl(ttl, cache)
    if ttl <= 0:
        return _decode_json(url, request("GET", url, params=params, **kw))

    def fetch() -> bytes:
        response = request("GET", url, params=params, **kw)
        _decode_json(url, response)  # never cache a body that is not JSON
        return response.content

    body = get_cache().get_or_fetch(_json_cache_key(url, params, kw), fetch, ttl)
    return json.loads(body)


async def aget_json(url: str, *, params: Any = None, ttl: float | None = None, cache: bool = True, **kw: Any) -> Any:
    """The async twin of :func:`get_json`."""
    url = str(url)
    ttl = _cache_ttl(ttl, cache)
    if ttl <= 0:
        return _decode_json(url, await arequest("GET", url, params=params, **kw))

    async def fetch() -> bytes:
        response = await arequest("GET", url, params=params, **kw)
        _decode_json(url, response)
        return response.content

    body = await get_cache().aget_or_fetch(_json_cache_key(url, params, kw), fetch, ttl)
    return json.loads(body)
