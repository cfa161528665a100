"""The Redis cache backend against a real redis-server: the store contract, the settings that select
it, and single-flight fetching across two processes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from dispatchguard import http
from dispatchguard.http import TTLCache
from dispatchguard.http.redis_cache import RedisCache


@pytest.fixture
def store(redis_db):
    cache = RedisCache(redis_db, prefix="test:", max_bytes=100)
    yield cache
    cache.close()


def test_store_contract(store):
    assert store.get("k") is None and len(store) == 0
    store.set("k", b"value", 60)
    store.set("short", b"x", 0.5)  # a margin for a loaded machine before the next line
    store.set("never", b"x", 0)  # no TTL: not stored
    store.set("big", b"x" * 101, 60)  # larger than max_bytes: not stored
    assert store.get("k") == b"value" and len(store) == 2
    deadline = time.monotonic() + 10
    while store.get("short") is not None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.get("short") is None and len(store) == 1
    store.clear()
    assert store.get("k") is None and len(store) == 0


def test_fetch_locks_are_exclusive_owned_and_expire(store):
    token = store.try_lock("k", 5)
    assert token and store.is_locked("k")
    assert store.try_lock("k", 5) is None
    store.unlock("k", "not-the-owner")
    assert store.is_locked("k")
    store.unlock("k", token)
    assert not store.is_locked("k")
    assert store.try_lock("k", 0.05)
    time.sleep(0.1)
    assert not store.is_locked("k")  # a holder that died does not block the key for ever


def test_clear_removes_many_entries_in_batches(store):
    for i in range(1200):
        store.set(f"k{i}", b"v", 60)
    assert len(store) == 1200
    store.clear()
    assert len(store) == 0


def test_redis_url_setting_selects_the_shared_cache(monkeypatch, redis_db, server, slow_counter):
    counter = slow_counter(delay=0)
    server.expect_request("/data").respond_with_handler(counter)
    monkeypatch.setenv("DISPATCHGUARD_REDIS_URL", redis_db)
    http.reset_clients(reset_settings=True)
    assert http.get_settings().cache_redis_url == redis_db
    assert isinstance(http.get_cache().store, RedisCache)
    url = server.url_for("/data")
    assert http.get_json(url) == {"ok": True}
    http.reset_clients()  # a new cache object: as another process would have
    assert http.get_json(url) == {"ok": True}
    assert counter.count == 1
    # the cache's own variable wins over the service-wide one
    monkeypatch.setenv("DISPATCHGUARD_HTTP_CACHE_REDIS_URL", redis_db.replace("/0", "/1"))
    http.reset_clients(reset_settings=True)
    assert http.get_settings().cache_redis_url.endswith("/1")


def test_a_failed_leader_lets_the_next_process_fetch(redis_db):
    """Two TTLCaches on one Redis behave like two processes: the first fetch fails after the second
    started waiting on its lock; the second then fetches itself."""
    first, second = TTLCache(RedisCache(redis_db)), TTLCache(RedisCache(redis_db))
    started, results = threading.Event(), {}

    def failing_fetch() -> bytes:
        started.set()
        time.sleep(0.2)
        raise RuntimeError("upstream down")

    def lead() -> None:
        try:
            first.get_or_fetch("key", failing_fetch, 60)
        except RuntimeError as exc:
            results["first"] = str(exc)

    leader = threading.Thread(target=lead)
    leader.start()
    started.wait(5)
    results["second"] = second.get_or_fetch("key", lambda: b"fresh", 60)
    leader.join()
    assert results == {"first": "upstream down", "second": b"fresh"}
    assert first.get_or_fetch("key", lambda: b"unused", 60) == b"fresh"


def test_async_waiters_get_the_other_process_value(redis_db):
    first, second = TTLCache(RedisCache(redis_db)), TTLCache(RedisCache(redis_db))
    calls = []

    async def slow_fetch() -> bytes:
        calls.append("first")
        await asyncio.sleep(0.2)
        return b"value"

    async def never() -> bytes:
        calls.append("second")
        return b"other"

    async def run():
        leader = asyncio.create_task(first.aget_or_fetch("akey", slow_fetch, 60))
        await asyncio.sleep(0.05)
        waiter = await second.aget_or_fetch("akey", never, 60)
        return await leader, waiter

    assert asyncio.run(run()) == (b"value", b"value")
    assert calls == ["first"]


def test_async_failed_leader_lets_the_other_fetch(redis_db):
    first, second = TTLCache(RedisCache(redis_db)), TTLCache(RedisCache(redis_db))

    async def failing() -> bytes:
        await asyncio.sleep(0.2)
        raise RuntimeError("down")

    async def fresh() -> bytes:
        return b"fresh"

    async def run():
        leader = asyncio.create_task(first.aget_or_fetch("akey2", failing, 60))
        await asyncio.sleep(0.05)
        value = await second.aget_or_fetch("akey2", fresh, 60)
        with pytest.raises(RuntimeError):
            await leader
        return value

    assert asyncio.run(run()) == b"fresh"


PROCESS = textwrap.dedent(
    """
    import json, sys, threading, time
    from dispatchguard import http
    url, start_at = sys.argv[1], float(sys.argv[2])
    results = []
    def call():
        results.append(http.get_json(url))
    threads = [threading.Thread(target=call) for _ in range(8)]
    time.sleep(max(0.0, start_at - time.time()))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"results": results, "store": type(http.get_cache().store).__name__}))
    """
)


def test_two_processes_share_one_fetch(redis_db, server, slow_counter, monkeypatch):
    counter = slow_counter(delay=1.0)
    server.expect_request("/shared").respond_with_handler(counter)
    monkeypatch.setenv("DISPATCHGUARD_REDIS_URL", redis_db)
    start_at = str(time.time() + 3.0)  # both processes start their 8 calls at the same moment
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", PROCESS, server.url_for("/shared"), start_at],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        outputs.append(json.loads(out))
    assert [o["store"] for o in outputs] == ["RedisCache", "RedisCache"]
    assert [o["results"] for o in outputs] == [[{"ok": True}] * 8] * 2
    assert counter.count == 1  # 16 calls in 2 processes, one request


def test_an_unreachable_redis_turns_caching_off_not_requests(closed_port, server, slow_counter, caplog):
    counter = slow_counter(delay=0)
    server.expect_request("/data").respond_with_handler(counter)
    http.configure(cache_redis_url=f"redis://127.0.0.1:{closed_port}/0")
    url = server.url_for("/data")
    with caplog.at_level("WARNING", logger="dispatchguard.http"):
        assert [http.get_json(url) for _ in range(3)] == [{"ok": True}] * 3
    assert counter.count == 3  # nothing cached, nothing failed
    warnings = [r.getMessage() for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(warnings) == 1 and f"127.0.0.1:{closed_port}" in warnings[0]


def test_a_stalled_redis_is_an_outage_and_its_return_is_noticed(redis_db, caplog):
    import redis

    cache = RedisCache(redis_db, socket_timeout=0.2)
    stall = threading.Thread(target=lambda: redis.Redis.from_url(redis_db).execute_command("DEBUG", "SLEEP", "0.8"))
    with caplog.at_level("WARNING", logger="dispatchguard.http"):
        stall.start()
        time.sleep(0.1)
        assert cache.get("k") is None  # timed out: a miss
        assert cache.try_lock("k", 5) == "local"  # granted locally: this process fetches
        assert not cache.is_locked("k")
        cache.unlock("k", "local")
        stall.join()
        cache.set("k", b"v", 60)
        assert cache.get("k") == b"v"
    messages = [r.getMessage() for r in caplog.records]
    assert any("unavailable" in m for m in messages) and any("answers again" in m for m in messages)
    cache.close()
