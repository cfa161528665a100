"""HTTP settings: defaults, environment variables, overrides in code.

Each field of :class:`HttpSettings` can be set through the environment variable
``DISPATCHGUARD_HTTP_<FIELD>`` (upper case), e.g. ``DISPATCHGUARD_HTTP_READ_TIMEOUT=10`` or
``DISPATCHGUARD_HTTP_CACHE_PATH=~/.cache/dispatchguard/http.sqlite``, and in code through
:func:`dispatchguard.http.configure`. Environment variables are read once, when the settings are
first needed, and again after ``reset_clients(reset_settings=True)`` (which also drops the overrides
made with ``configure``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TypeVar

from dispatchguard import __version__

ENV_PREFIX = "DISPATCHGUARD_HTTP_"
REDIS_URL_VARIABLE = "DISPATCHGUARD_REDIS_URL"


@dataclass(frozen=True)
class HttpSettings:
    """The settings of dispatchguard's shared HTTP clients: timeouts, pool, retries, cache, SSRF.

    Immutable; each field is also read from ``DISPATCHGUARD_HTTP_<FIELD>``. The ones in force come
    from :func:`~dispatchguard.http.get_settings`; :func:`~dispatchguard.http.configure` replaces
    them, and the clients and cache are rebuilt from the new ones.
    """

    # httpx.Timeout parts, seconds.
    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    write_timeout: float = 30.0
    pool_timeout: float = 5.0
    # httpx.Limits.
    max_connections: int = 20
    max_keepalive_connections: int = 10
    keepalive_expiry: float = 30.0
    user_agent: str = f"dispatchguard/{__version__} (+https://pypi.org/project/dispatchguard/)"
    follow_redirects: bool = True
    # Responses larger than this (after decompression) raise ResponseTooLarge.
    max_response_bytes: int = 10 * 1024 * 1024
    # Retry policy: attempts in total (1 = no retry), overall time budget, exponential backoff
    # (base * 2**n, plus up to `backoff_jitter` seconds of random jitter, at most `backoff_max`), and
    # the cap applied to a server's Retry-After.
    max_attempts: int = 4
    max_total_time: float = 60.0
    backoff_base: float = 0.5
    backoff_max: float = 10.0
    backoff_jitter: float = 0.5
    retry_after_cap: float = 30.0
    # TTL cache for get_json/aget_json: seconds (0 disables), bounds, and an optional SQLite file.
    cache_ttl: float = 300.0
    cache_max_entries: int = 1024
    cache_max_bytes: int = 32 * 1024 * 1024
    cache_path: str | None = None
    # Redis URL for a cache shared by processes and hosts (single-flight across them); when set it
    # wins over cache_path. DISPATCHGUARD_REDIS_URL is read as well (see settings_from_env).
    cache_redis_url: str | None = None
    # Requests made with block_private=True (the reference tools) may still reach these private
    # hosts: host names, addresses or CIDR networks, e.g. "127.0.0.1,10.0.0.0/8,searx.internal".
    ssrf_allowlist: tuple[str, ...] = ()

    def replace(self, **overrides: object) -> HttpSettings:
        """A copy with the given fields changed (unchecked); ``TypeError`` names unknown ones."""
        unknown = set(overrides) - {f.name for f in fields(self)}
        if unknown:
            raise TypeError(f"unknown HTTP setting(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **overrides)  # type: ignore[arg-type]


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_NUMBERS = {"float": float, "int": int}
T = TypeVar("T")


def _convert(variable: str, annotation: str, raw: str) -> object:
    raw = raw.strip()
    try:
        if annotation == "bool":
            if raw.lower() in _TRUE | _FALSE:
                return raw.lower() in _TRUE
            raise ValueError("expected 1/0, true/false, yes/no or on/off")
        if annotation in _NUMBERS:
            return _NUMBERS[annotation](raw)
    except ValueError as exc:
        raise ValueError(f"{variable}={raw!r}: {exc}") from None
    if annotation == "tuple[str, ...]":  # comma-separated
        return tuple(item.strip() for item in raw.split(",") if item.strip())
    if annotation == "str | None":  # empty means unset; paths get ~ expanded
        return os.path.expanduser(raw) if raw else None
    return raw


def dataclass_from_env(cls: type[T], prefix: str, environ: Mapping[str, str] | None = None) -> T:
    """``cls()`` with each field overridden by the variable ``<prefix><FIELD>`` when present.

    Field annotations (as strings) decide the parsing: ``bool``, ``int``, ``float``, ``str``,
    ``str | None`` and ``tuple[str, ...]`` (comma-separated). Bad values raise ``ValueError`` naming
    the variable.
    """
    environ = os.environ if environ is None else environ
    overrides = {}
    for f in fields(cls):  # type: ignore[arg-type]
        variable = prefix + f.name.upper()
        raw = environ.get(variable)
        if raw is not None:
            overrides[f.name] = _convert(variable, str(f.type), raw)
    return cls(**overrides)


def settings_from_env(environ: Mapping[str, str] | None = None) -> HttpSettings:
    """Defaults overridden by every ``DISPATCHGUARD_HTTP_*`` variable present; the service-wide
    ``DISPATCHGUARD_REDIS_URL`` also selects the Redis cache unless ``..._HTTP_CACHE_REDIS_URL`` is set."""
    environ = os.environ if environ is None else environ
    settings = dataclass_from_env(HttpSettings, ENV_PREFIX, environ)
    shared_redis = environ.get(REDIS_URL_VARIABLE, "").strip()
    if settings.cache_redis_url is None and shared_redis:
        settings = settings.replace(cache_redis_url=shared_redis)
    return settings
