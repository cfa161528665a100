"""A TTL cache for idempotent GETs: bounded, in memory or in SQLite, stampede-safe.

Values are the raw response bodies (``bytes``); callers decode them on every hit, so no caller can
mutate what another one gets. Both stores are bounded in entries and in bytes and evict the least
recently used entries first; expired entries are dropped when met and before any eviction.

:class:`TTLCache` adds single-flight fetching on top of a store: while one thread (or one asyncio
task of a given event loop) fetches a key, the others asking for the same key wait for its result
instead of sending the same request again. With a store that also offers fetch locks shared by
processes (:class:`SharedLocks`, e.g. :class:`~dispatchguard.http.redis_cache.RedisCache`), the one
leader of each process first takes the key's shared lock: one process fetches, the others poll the
store for its value until the lock is gone (then, if no value came, one of them fetches).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["CacheStore", "MemoryCache", "SQLiteCache", "SharedLocks", "TTLCache", "cache_key"]

# How often a process waiting on another process's fetch looks for the value.
SHARED_POLL_SECONDS = 0.02


def cache_key(method: str, url: str, params: Any = None, headers: Mapping[str, str] | None = None) -> str:
    """Method, URL and the canonical JSON of the parameters (and explicit headers), hashed."""
    canonical = json.dumps(
        [method.upper(), str(url), params, {k.lower(): v for k, v in (headers or {}).items()}],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


class CacheStore(Protocol):
    """Where :class:`TTLCache` keeps response bodies: ``bytes`` values that expire, by key.

    An implementation must be thread-safe, return None for an absent or expired key, and may decline
    to store a value (``ttl <= 0``, over its bounds). :class:`MemoryCache`, :class:`SQLiteCache` and
    the Redis store implement it.
    """

    def get(self, key: str) -> bytes | None:
        """The value stored under ``key``, or None when it is absent or expired."""

    def set(self, key: str, value: bytes, ttl: float) -> None:
        """Store ``value`` for ``ttl`` seconds (dropped if ``ttl <= 0`` or over the bounds)."""

    def clear(self) -> None:
        """Remove every entry."""

    def __len__(self) -> int: ...


@runtime_checkable
class SharedLocks(Protocol):
    """A store whose fetch locks are shared with other processes (and expire if the holder dies)."""

    def try_lock(self, key: str, seconds: float) -> str | None:
        """Take the fetch lock of ``key`` for ``seconds`` at most: a token, or None if held."""

    def unlock(self, key: str, token: str) -> None:
        """Release the fetch lock of ``key`` if ``token`` still holds it (it may have expired)."""

    def is_locked(self, key: str) -> bool:
        """Whether any process currently holds the fetch lock of ``key``."""


class MemoryCache:
    """LRU dictionary with per-entry expiry, bounded in entries and total bytes. Thread-safe."""

    def __init__(self, max_entries: int = 1024, max_bytes: int = 32 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._data: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def total_bytes(self) -> int:
        """Size in bytes of the stored values, counting expired entries not dropped yet."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str) -> bytes | None:
        """The value of ``key`` (now most recently used); None if absent or expired."""
        with self._lock:
            item = self._data.get(key)
            if item is None:
                return None
            expires, value = item
            if expires <= time.monotonic():
                self._pop(key)
                return None
            self._data.move_to_end(key)
            return value

    def set(self, key: str, value: bytes, ttl: float) -> None:
        """Store ``value`` for ``ttl`` seconds, replacing any entry for ``key``.

        A no-op when ``ttl <= 0`` or the value alone exceeds ``max_bytes``. Over a bound,
        expired entries are dropped first, then the least recently used ones.
        """
        if ttl <= 0 or len(value) > self.max_bytes:
            return
        with self._lock:
            if key in self._data:
                self._pop(key)
            self._data[key] = (time.monotonic() + ttl, value)
            self._bytes += len(value)
            if len(self._data) > self.max_entries or self._bytes > self.max_bytes:
                now = time.monotonic()
                for stale in [k for k, (exp, _) in self._data.items() if exp <= now]:
                    self._pop(stale)
                while len(self._data) > self.max_entries or self._bytes > self.max_bytes:
                    self._pop(next(iter(self._data)))

    def clear(self) -> None:
        """Remove every entry and reset the byte count."""
        with self._lock:
            self._data.clear()
            self._bytes = 0

    def _pop(self, key: str) -> None:
        _, value = self._data.pop(key)
        self._bytes -= len(value)


class SQLiteCache:
    """The same contract in a SQLite file, so entries survive the process.

    Expiry uses wall-clock time (``time.time()``), since monotonic clocks do not survive a restart.
    One connection guarded by a lock; WAL mode so other processes can read while one writes.
    """

    def __init__(
        self, path: str | os.PathLike[str], max_entries: int = 1024, max_bytes: int = 32 * 1024 * 1024
    ) -> None:
        self.path = os.fspath(path)
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS http_cache (key TEXT PRIMARY KEY, value BLOB NOT NULL,"
                " size INTEGER NOT NULL, expires REAL NOT NULL, accessed REAL NOT NULL)"
            )
            self._conn.execute("CREATE INDEX IF NOT EXISTS http_cache_accessed ON http_cache (accessed)")

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM http_cache").fetchone()[0]

    @property
    def total_bytes(self) -> int:
        """Size in bytes of the stored values, counting expired rows not deleted yet."""
        with self._lock:
            return self._conn.execute("SELECT COALESCE(SUM(size), 0) FROM http_cache").fetchone()[0]

    def get(self, key: str) -> bytes | None:
        """The value of ``key`` (its access time bumped); None if absent or expired."""
        now = time.time()
        with self._lock:
            row = self._conn.execute("SELECT value, expires FROM http_cache WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            if row[1] <= now:
                self._conn.execute("DELETE FROM http_cache WHERE key = ?", (key,))
                return None
            self._conn.execute("UPDATE http_cache SET accessed = ? WHERE key = ?", (now, key))
            return bytes(row[0])

    def set(self, key: str, value: bytes, ttl: float) -> None:
        """Store ``value`` for ``ttl`` seconds in one transaction, evicting to stay in bounds.

        A no-op when ``ttl <= 0`` or the value alone exceeds ``max_bytes``. Expired rows go first,
        then the least recently accessed. Waits up to 10 s for another process's write lock, then
        raises ``sqlite3.OperationalError``.
        """
        if ttl <= 0 or len(value) > self.max_bytes:
            return
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT OR REPLACE INTO http_cache (key, value, size, expires, accessed) VALUES (?, ?, ?, ?, ?)",
                    (key, value, len(value), now + ttl, now),
                )
                count, total = self._conn.execute("SELECT COUNT(*), SUM(size) FROM http_cache").fetchone()
                if count > self.max_entries or total > self.max_bytes:
                    self._conn.execute("DELETE FROM http_cache WHERE expires <= ?", (now,))
                    self._evict()
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def _evict(self) -> None:
        count, total = self._conn.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM http_cache").fetchone()
        rows = self._conn.execute("SELECT key, size FROM http_cache ORDER BY accessed, rowid").fetchall()
        doomed = []
        for key, size in rows:
            if count <= self.max_entries and total <= self.max_bytes:
                break
            doomed.append((key,))
            count -= 1
            total -= size
        self._conn.executemany("DELETE FROM http_cache WHERE key = ?", doomed)

    def clear(self) -> None:
        """Delete every row of the file (other processes using it lose them too)."""
        with self._lock:
            self._conn.execute("DELETE FROM http_cache")

    def close(self) -> None:
        """Close the database connection; the cache cannot be used afterwards."""
        with self._lock:
            self._conn.close()


class _Flight:
    __slots__ = ("error", "event", "value")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.value: bytes | None = None
        self.error: BaseException | None = None


class TTLCache:
    """A store plus single-flight fetching, for threads and for asyncio tasks."""

    def __init__(self, store: CacheStore, *, lock_seconds: float = 60.0) -> None:
        """``lock_seconds``: how long a shared fetch lock may be held (a fetch should end sooner)."""
        self.store = store
        self.lock_seconds = lock_seconds
        self._lock = threading.Lock()
        self._flights: dict[str, _Flight] = {}
        self._async_flights: dict[tuple[int, str], asyncio.Future[bytes]] = {}

    def get_or_fetch(self, key: str, fetch: Callable[[], bytes], ttl: float) -> bytes:
        """The cached value, or ``fetch()`` run once however many threads ask at the same time.

        Waiters get the leader's value or its exception; if the leader was interrupted by a
        ``BaseException`` that is not an ``Exception`` (KeyboardInterrupt, SystemExit), they try again.
        """
        while True:
            with self._lock:
                value = self.store.get(key)
                if value is not None:
                    return value
                flight = self._flights.get(key)
                leader = flight is None
                if leader:
                    flight = self._flights[key] = _Flight()
            assert flight is not None
            if leader:
                return self._lead(key, flight, fetch, ttl)
            flight.event.wait()
            if flight.error is None:
                assert flight.value is not None
                return flight.value
            if isinstance(flight.error, Exception):
                raise flight.error

    def _fetch_shared(self, key: str, fetch: Callable[[], bytes], ttl: float) -> bytes:
        """``fetch()`` under the store's cross-process lock, or the value another process fetched."""
        store = self.store
        assert isinstance(store, SharedLocks)
        while True:
            token = store.try_lock(key, self.lock_seconds)
            if token is not None:
                try:
                    value = self.store.get(key)  # filled while we were taking the lock?
                    if value is None:
                        value = fetch()
                        self.store.set(key, value, ttl)
                    return value
                finally:
                    store.unlock(key, token)
            while store.is_locked(key):
                value = self.store.get(key)
                if value is not None:
                    return value
                time.sleep(SHARED_POLL_SECONDS)
            value = self.store.get(key)
            if value is not None:
                return value
            # the other process failed (its errors are its own) or died: try to fetch here

    async def _afetch_shared(self, key: str, fetch: Callable[[], Awaitable[bytes]], ttl: float) -> bytes:
        store = self.store
        assert isinstance(store, SharedLocks)
        while True:
            token = store.try_lock(key, self.lock_seconds)
            if token is not None:
                try:
                    value = self.store.get(key)
                    if value is None:
                        value = await fetch()
                        self.store.set(key, value, ttl)
                    return value
                finally:
                    store.unlock(key, token)
            while store.is_locked(key):
                value = self.store.get(key)
                if value is not None:
                    return value
                await asyncio.sleep(SHARED_POLL_SECONDS)
            value = self.store.get(key)
            if value is not None:
                return value

    def _lead(self, key: str, flight: _Flight, fetch: Callable[[], bytes], ttl: float) -> bytes:
        try:
            if isinstance(self.store, SharedLocks):
                value = self._fetch_shared(key, fetch, ttl)
            else:
                value = fetch()
                self.store.set(key, value, ttl)
            flight.value = value
            return value
        except BaseException as exc:
            flight.error = exc
            raise
        finally:
            with self._lock:
                del self._flights[key]
            flight.event.set()

    async def aget_or_fetch(self, key: str, fetch: Callable[[], Awaitable[bytes]], ttl: float) -> bytes:
        """The async twin: one fetch per key and event loop; waiters of a cancelled leader retry."""
        loop_key = (id(asyncio.get_running_loop()), key)
        while True:
            with self._lock:
                value = self.store.get(key)
                if value is not None:
                    return value
                future = self._async_flights.get(loop_key)
                leader = future is None
                if leader:
                    future = self._async_flights[loop_key] = asyncio.get_running_loop().create_future()
            assert future is not None
            if not leader:
                try:
                    return await asyncio.shield(future)
                except asyncio.CancelledError:
                    if future.cancelled():  # the leader was cancelled, not us: try again
                        continue
                    raise
            try:
                if isinstance(self.store, SharedLocks):
                    value = await self._afetch_shared(key, fetch, ttl)
                else:
                    value = await fetch()
                    self.store.set(key, value, ttl)
                future.set_result(value)
                return value
            except asyncio.CancelledError:
                future.cancel()
                raise
            except BaseException as exc:
                future.set_exception(exc)
                future.exception()  # mark retrieved: no "exception never retrieved" warning without waiters
                raise
            finally:
                with self._lock:
                    del self._async_flights[loop_key]

    def clear(self) -> None:
        """Empty the store (a shared one for all processes); fetches in flight still store."""
        self.store.clear()
