"""The TTL cache: hits, expiry, bounds, SQLite persistence and single-flight (threads and asyncio)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest

from dispatchguard import http
from dispatchguard.http import (
    HttpStatusError,
    InvalidJsonResponse,
    MemoryCache,
    SQLiteCache,
    TTLCache,
    cache_key,
)


def hits(server, path: str) -> int:
    return sum(1 for request, _ in server.log if request.path == path)


# -- through get_json ------------------------------------------------------------------------------


def test_cache_hit_prevents_a_second_request_and_expires_after_ttl(server):
    server.expect_request("/data").respond_with_json({"n": 1})
    url = server.url_for("/data")
    # a TTL with a margin for a loaded machine; then asked until the entry expires (a cached answer
    # does not reach the server), not after a fixed sleep
    first = http.get_json(url, params={"q": "x", "page": 1}, ttl=1)
    second = http.get_json(url, params={"page": 1, "q": "x"}, ttl=1)  # same parameters, other order
    assert first == second == {"n": 1}
    assert first is not second  # each caller gets its own object
    assert hits(server, "/data") == 1
    deadline = time.monotonic() + 10
    while hits(server, "/data") == 1 and time.monotonic() < deadline:
        time.sleep(0.05)
        assert http.get_json(url, params={"q": "x", "page": 1}, ttl=1) == {"n": 1}
    assert hits(server, "/data") == 2


def test_different_inputs_and_cache_off_go_to_the_server(server):
    server.expect_request("/data").respond_with_json([])
    url = server.url_for("/data")
    http.get_json(url, params={"q": "a"})
    http.get_json(url, params={"q": "b"})
    http.get_json(url, params={"q": "a"}, headers={"Accept-Language": "fr"})
    http.get_json(url, params={"q": "a"}, cache=False)
    http.get_json(url, params={"q": "a"}, ttl=0)
    assert hits(server, "/data") == 5
    http.get_json(url, params={"q": "a"})
    assert hits(server, "/data") == 5


def test_invalid_json_is_an_error_and_not_cached(server):
    server.expect_request("/html").respond_with_data("<html>oops</html>", content_type="text/html")
    url = server.url_for("/html")
    for cache in (True, True, False):
        with pytest.raises(InvalidJsonResponse) as info:
            http.get_json(url, cache=cache)
        assert info.value.status == 200 and info.value.attempts == 1 and "invalid JSON" in info.value.reason
    assert hits(server, "/html") == 3


def test_errors_are_not_cached(server):
    server.expect_request("/gone").respond_with_data("", status=404)
    for _ in range(2):
        with pytest.raises(HttpStatusError):
            http.get_json(server.url_for("/gone"))
    assert hits(server, "/gone") == 2


def test_concurrent_identical_requests_collapse_into_one_threads(server, slow_counter):
    handler = slow_counter(body='{"v": 42}', delay=0.3)
    server.expect_request("/slow").respond_with_handler(handler)
    url = server.url_for("/slow")
    results, barrier = [], threading.Barrier(8)

    def call():
        barrier.wait()
        results.append(http.get_json(url, params={"k": 1}))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [{"v": 42}] * 8
    assert handler.count == 1


def test_concurrent_failure_reaches_every_waiter_once(server, slow_counter):
    handler = slow_counter(body="{}", delay=0.2, status=404)
    server.expect_request("/missing").respond_with_handler(handler)
    errors, barrier = [], threading.Barrier(5)

    def call():
        barrier.wait()
        try:
            http.get_json(server.url_for("/missing"))
        except HttpStatusError as exc:
            errors.append(exc.status)

    threads = [threading.Thread(target=call) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [404] * 5 and handler.count == 1


def test_concurrent_identical_requests_collapse_into_one_asyncio(server, slow_counter):
    handler = slow_counter(body='{"v": "async"}', delay=0.3)
    server.expect_request("/aslow").respond_with_handler(handler)
    url = server.url_for("/aslow")

    async def main():
        try:
            return await asyncio.gather(*(http.aget_json(url, params={"k": 1}) for _ in range(10)))
        finally:
            await http.aclose_clients()

    assert asyncio.run(main()) == [{"v": "async"}] * 10
    assert handler.count == 1


def test_aget_json_cache_hits_errors_and_bypass(server):
    server.expect_request("/j").respond_with_json({"a": 1})
    server.expect_request("/bad").respond_with_data("nope")

    async def main():
        try:
            assert await http.aget_json(server.url_for("/j")) == {"a": 1}
            assert await http.aget_json(server.url_for("/j")) == {"a": 1}
            assert await http.aget_json(server.url_for("/j"), cache=False) == {"a": 1}
            with pytest.raises(InvalidJsonResponse):
                await http.aget_json(server.url_for("/bad"))
            with pytest.raises(InvalidJsonResponse):
                await http.aget_json(server.url_for("/bad"), ttl=0)
        finally:
            await http.aclose_clients()

    asyncio.run(main())
    assert hits(server, "/j") == 2 and hits(server, "/bad") == 2


def test_sqlite_cache_survives_a_new_cache_instance(server, tmp_path):
    path = tmp_path / "cache" / "http.sqlite"
    http.configure(cache_path=str(path))
    server.expect_request("/persist").respond_with_json({"kept": True})
    url = server.url_for("/persist")
    assert http.get_json(url) == {"kept": True}
    assert isinstance(http.get_cache().store, SQLiteCache)
    http.reset_clients()  # closes the SQLite connection; the next get_cache() opens a new one
    assert http.get_json(url) == {"kept": True}
    assert hits(server, "/persist") == 1
    assert path.exists()


# -- the single-flight helper directly ---------------------------------------------------------


def test_interrupted_thread_leader_a_waiter_takes_over():
    class Interrupted(BaseException):
        pass

    cache = TTLCache(MemoryCache())
    started, calls, results = threading.Event(), [], []

    def interrupted_fetch():
        calls.append("leader")
        started.set()
        time.sleep(0.3)  # long enough for the waiter to be waiting on this flight
        raise Interrupted

    def good_fetch():
        calls.append("waiter")
        return b"value"

    def lead():
        with pytest.raises(Interrupted):
            cache.get_or_fetch("k", interrupted_fetch, 60)

    leader = threading.Thread(target=lead)
    leader.start()
    started.wait()
    waiter = threading.Thread(target=lambda: results.append(cache.get_or_fetch("k", good_fetch, 60)))
    waiter.start()
    leader.join()
    waiter.join()
    assert results == [b"value"] and calls == ["leader", "waiter"]


def test_async_leader_cancelled_a_waiter_takes_over():
    cache = TTLCache(MemoryCache())
    calls = []

    async def fetch():
        calls.append(1)
        await asyncio.sleep(0.2)
        return b"value"

    async def main():
        leader = asyncio.create_task(cache.aget_or_fetch("k", fetch, 60))
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(cache.aget_or_fetch("k", fetch, 60))
        await asyncio.sleep(0.01)
        leader.cancel()
        with pytest.raises(asyncio.CancelledError):
            await leader
        return await waiter

    assert asyncio.run(main()) == b"value"
    assert len(calls) == 2


def test_async_waiter_cancelled_itself_and_leader_error():
    cache = TTLCache(MemoryCache())

    async def slow():
        await asyncio.sleep(0.2)
        return b"v"

    async def boom():
        await asyncio.sleep(0.05)
        raise ValueError("boom")

    async def main():
        leader = asyncio.create_task(cache.aget_or_fetch("k", slow, 60))
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(cache.aget_or_fetch("k", slow, 60))
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert await leader == b"v"
        first = asyncio.create_task(cache.aget_or_fetch("e", boom, 60))
        await asyncio.sleep(0.01)
        second = asyncio.create_task(cache.aget_or_fetch("e", boom, 60))
        results = await asyncio.gather(first, second, return_exceptions=True)
        assert [type(r) for r in results] == [ValueError, ValueError]

    asyncio.run(main())


# -- stores ------------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def make_store(request, tmp_path):
    def make(max_entries=1024, max_bytes=1 << 20):
        if request.param == "memory":
            return MemoryCache(max_entries, max_bytes)
        return SQLiteCache(tmp_path / "c.sqlite", max_entries, max_bytes)

    return make


def test_store_get_set_expiry_and_clear(make_store):
    store = make_store()
    assert store.get("a") is None
    store.set("a", b"1", 60)
    store.set("a", b"22", 60)  # replace
    assert store.get("a") == b"22" and len(store) == 1 and store.total_bytes == 2
    store.set("short", b"x", 0.5)
    store.set("never", b"x", 0)  # ttl 0: not stored
    assert store.get("never") is None and store.get("short") == b"x"
    deadline = time.monotonic() + 10
    while store.get("short") is not None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.get("short") is None
    assert len(store) == 1
    store.clear()
    assert len(store) == 0 and store.get("a") is None and store.total_bytes == 0


def test_store_bounded_in_entries_lru(make_store):
    store = make_store(max_entries=3)
    for key in "abc":
        store.set(key, key.encode(), 60)
        time.sleep(0.002)  # distinct access times for SQLite
    assert store.get("a") == b"a"  # a is now the most recently used
    time.sleep(0.002)
    store.set("d", b"d", 60)
    assert len(store) == 3
    assert store.get("b") is None
    assert {k for k in "acd" if store.get(k)} == set("acd")


def test_store_bounded_in_bytes(make_store):
    store = make_store(max_bytes=100)
    store.set("too-big", b"x" * 101, 60)
    assert store.get("too-big") is None
    for i in range(5):
        store.set(f"k{i}", b"y" * 30, 60)
        time.sleep(0.002)
    assert store.total_bytes <= 100 and len(store) == 3
    assert store.get("k0") is None and store.get("k1") is None and store.get("k4") == b"y" * 30


def test_store_drops_expired_entries_before_evicting_live_ones(make_store):
    store = make_store(max_entries=2)
    store.set("live", b"1", 60)
    store.set("stale", b"2", 0.01)
    time.sleep(0.05)
    store.set("new", b"3", 60)
    assert store.get("live") == b"1" and store.get("new") == b"3"


def test_sqlite_store_persists_and_rolls_back(tmp_path):
    path = tmp_path / "p.sqlite"
    first = SQLiteCache(path)
    first.set("k", b"v", 60)
    first.close()
    second = SQLiteCache(path)
    assert second.get("k") == b"v"
    with pytest.raises(sqlite3.Error):
        second.set("k2", ["not", "bytes"], 60)  # type: ignore[arg-type]  # sqlite refuses: rolled back
    assert second.get("k2") is None and len(second) == 1
    second.close()


def test_cache_key_is_canonical():
    assert cache_key("get", "http://x/", {"b": 1, "a": [1, 2]}) == cache_key("GET", "http://x/", {"a": [1, 2], "b": 1})
    assert cache_key("GET", "http://x/", {"a": 1}) != cache_key("GET", "http://x/", {"a": "1"})
    assert cache_key("GET", "http://x/", None, {"Accept": "a"}) == cache_key("GET", "http://x/", None, {"accept": "a"})
    assert cache_key("GET", "http://x/", None, {"Accept": "a"}) != cache_key("GET", "http://x/")
