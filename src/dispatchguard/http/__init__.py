"""Resilient HTTP for tools: shared httpx clients, a tenacity retry policy, a TTL cache, typed errors.

    from dispatchguard.http import get_json, request, HttpError

    data = get_json("https://api.example.org/items", params={"q": "x"}, ttl=60)

See docs/http.md for the settings (``DISPATCHGUARD_HTTP_*``), the retry policy and the cache.
"""

from .cache import MemoryCache, SQLiteCache, TTLCache, cache_key
from .clients import (
    ATTEMPTS_EXTENSION,
    aclose_clients,
    aclose_loop_client,
    address_guard,
    aget_json,
    arequest,
    configure,
    get_async_client,
    get_cache,
    get_client,
    get_json,
    get_settings,
    request,
    reset_clients,
)
from .errors import (
    HttpError,
    HttpStatusError,
    HttpTimeoutError,
    HttpTransportError,
    InvalidJsonResponse,
    ResponseTooLarge,
)
from .guard import AddressGuard, BlockedURL
from .requests_compat import requests_session
from .retry import IDEMPOTENT_METHODS, RETRY_STATUSES, parse_retry_after
from .settings import HttpSettings, settings_from_env

__all__ = [
    "ATTEMPTS_EXTENSION",
    "IDEMPOTENT_METHODS",
    "RETRY_STATUSES",
    "AddressGuard",
    "BlockedURL",
    "HttpError",
    "HttpSettings",
    "HttpStatusError",
    "HttpTimeoutError",
    "HttpTransportError",
    "InvalidJsonResponse",
    "MemoryCache",
    "ResponseTooLarge",
    "SQLiteCache",
    "TTLCache",
    "aclose_clients",
    "aclose_loop_client",
    "address_guard",
    "aget_json",
    "arequest",
    "cache_key",
    "configure",
    "get_async_client",
    "get_cache",
    "get_client",
    "get_json",
    "get_settings",
    "parse_retry_after",
    "request",
    "requests_session",
    "reset_clients",
    "settings_from_env",
]
