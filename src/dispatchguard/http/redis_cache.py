"""The HTTP cache in Redis: one cache for every process and host of a service, single-flight across them.

Entries are ``<prefix>v:<key>`` strings with a millisecond expiry (``SET ... PX``); Redis evicts by
its own ``maxmemory-policy``, so only ``max_bytes`` (no single entry larger) is enforced here. The
fetch lock of a key is ``<prefix>lock:<key>``, taken with ``SET NX PX`` and released by its holder
only (compare-and-delete in one Lua script), so a lock whose holder died expires on its own.
Needs the ``redis`` extra (``pip install 'dispatchguard[redis]'``).

A cache must not take requests down with it: while Redis cannot be reached, reads miss, writes are
dropped and the fetch lock is granted locally (each process fetches for itself), with one WARNING
on ``dispatchguard.http`` per outage.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TypeVar

import redis

__all__ = ["RedisCache"]

logger = logging.getLogger("dispatchguard.http")
T = TypeVar("T")
# The fetch-lock token handed out while Redis is unreachable: the caller fetches on its own.
LOCAL_TOKEN = "local"

_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class RedisCache:
    """A :class:`~dispatchguard.http.cache.CacheStore` in Redis, with cross-process fetch locks."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "dispatchguard:http:",
        max_bytes: int = 32 * 1024 * 1024,
        socket_timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.max_bytes = max_bytes
        self._client = redis.Redis.from_url(url, socket_timeout=socket_timeout, socket_connect_timeout=socket_timeout)
        self._release = self._client.register_script(_RELEASE)
        self._down = False

    def _call(self, operation: Callable[[], T], fallback: T) -> T:
        try:
            result = operation()
        except redis.RedisError as exc:
            if not self._down:
                logger.warning("HTTP cache: Redis at %s is unavailable, caching is off until it answers: %s",
                               self.url, exc)
            self._down = True
            return fallback
        if self._down:
            logger.warning("HTTP cache: Redis at %s answers again", self.url)
            self._down = False
        return result

    def _value_key(self, key: str) -> str:
        return f"{self.prefix}v:{key}"

    def _lock_key(self, key: str) -> str:
        return f"{self.prefix}lock:{key}"

    def get(self, key: str) -> bytes | None:
        """The value of ``key``; None when absent, expired or Redis is unreachable."""
        value = self._call(lambda: self._client.get(self._value_key(key)), None)
        return None if value is None else bytes(value)

    def set(self, key: str, value: bytes, ttl: float) -> None:
        """Store ``value`` with a millisecond expiry of ``ttl`` seconds.

        Dropped when ``ttl`` is under 1 ms, the value exceeds ``max_bytes`` or Redis is unreachable.
        """
        milliseconds = int(ttl * 1000)
        if milliseconds <= 0 or len(value) > self.max_bytes:
            return
        self._call(lambda: self._client.set(self._value_key(key), value, px=milliseconds), None)

    def __len__(self) -> int:
        return sum(1 for _ in self._client.scan_iter(match=f"{self.prefix}v:*", count=500))

    def clear(self) -> None:
        """Delete every entry (and fetch lock) under this cache's prefix."""
        batch: list[bytes] = []
        for name in self._client.scan_iter(match=f"{self.prefix}*", count=500):
            batch.append(name)
            if len(batch) >= 500:
                self._client.delete(*batch)
                batch.clear()
        if batch:
            self._client.delete(*batch)

    # -- the cross-process fetch lock (see TTLCache) --

    def try_lock(self, key: str, seconds: float) -> str | None:
        """A token if this caller now holds the fetch lock of ``key`` (for at most ``seconds``), else None."""
        token = secrets.token_hex(16)
        lock = self._lock_key(key)
        taken = self._call(lambda: self._client.set(lock, token, nx=True, px=max(int(seconds * 1000), 1)), LOCAL_TOKEN)
        if taken == LOCAL_TOKEN:
            return LOCAL_TOKEN
        return token if taken else None

    def unlock(self, key: str, token: str) -> None:
        """Release the lock if ``token`` still holds it (an expired lock may belong to another caller now)."""
        if token != LOCAL_TOKEN:
            self._call(lambda: self._release(keys=[self._lock_key(key)], args=[token]), None)

    def is_locked(self, key: str) -> bool:
        """Whether any caller holds the fetch lock of ``key``; False while Redis is unreachable."""
        return bool(self._call(lambda: self._client.exists(self._lock_key(key)), 0))

    def close(self) -> None:
        """Disconnect from Redis (releases the client's connection pool)."""
        self._client.close()
