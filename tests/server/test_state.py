"""Request state in one process and through a real redis-server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from dispatchguard.agent import CancelToken
from dispatchguard.server.state import (
    LocalRequestState,
    RedisRequestState,
    StateUnavailable,
    request_state_from_environment,
)

pytest.importorskip("redis")


def run(coro):
    return asyncio.run(coro)


def test_the_environment_chooses_the_backend(monkeypatch):
    monkeypatch.delenv("DISPATCHGUARD_REDIS_URL", raising=False)
    assert isinstance(request_state_from_environment(), LocalRequestState)
    monkeypatch.setenv("DISPATCHGUARD_REDIS_URL", "redis://127.0.0.1:1/0")
    state = request_state_from_environment()
    assert isinstance(state, RedisRequestState) and state.url == "redis://127.0.0.1:1/0"
    with pytest.raises(ValueError, match="lease_seconds"):
        RedisRequestState("redis://x", lease_seconds=0)


def test_local_state():
    async def scenario():
        state = LocalRequestState()
        await state.start()
        token = CancelToken()
        assert await state.claim("a", token) and not await state.claim("a", CancelToken())
        assert await state.cancel("a", "why") and token.reason == "why"
        assert not await state.cancel("b", "why")
        await state.release("a")
        assert await state.claim("a", CancelToken())
        await state.close()

    run(scenario())


def test_two_processes_worth_of_state_share_ids_and_cancels(redis_db):
    async def scenario():
        one, two = RedisRequestState(redis_db), RedisRequestState(redis_db)
        await one.start()
        await two.start()
        try:
            token = CancelToken()
            assert await one.claim("job", token)
            assert not await two.claim("job", CancelToken())  # running elsewhere: 409
            assert not await one.claim("job", CancelToken())
            assert await two.cancel("job", "from two")  # reaches the other "process"
            for _ in range(200):
                if token.cancelled:
                    break
                await asyncio.sleep(0.01)
            assert token.reason == "from two"
            assert not await two.cancel("nothing", "x")
            await two.release("job")  # not the owner: the key stays
            assert not await two.claim("job", CancelToken())
            await one.release("job")
            assert await two.claim("job", CancelToken())
            assert await two.cancel("job", "local") and two.local["job"].reason == "local"
        finally:
            await one.close()
            await two.close()

    run(scenario())


def test_a_dead_owner_frees_its_ids_when_the_lease_ends_and_live_ones_renew(redis_db):
    import redis

    async def scenario():
        owner = RedisRequestState(redis_db, lease_seconds=1)
        other = RedisRequestState(redis_db, lease_seconds=1)
        await owner.start()
        await other.start()
        try:
            assert await owner.claim("live", CancelToken())
            assert await other.claim("orphan", CancelToken())
            other.local.clear()  # as if its process died: nobody renews "orphan"
            probe = redis.Redis.from_url(redis_db)
            deadline = time.monotonic() + 10
            while probe.exists("dispatchguard:request:orphan"):  # its lease ends (1 s)
                assert time.monotonic() < deadline, "the orphan's lease never ended"
                await asyncio.sleep(0.05)
            probe.close()
            assert not await other.claim("live", CancelToken())  # renewed by its owner all along
            assert await owner.claim("orphan", CancelToken())  # lease ended
        finally:
            await owner.close()
            await other.close()

    run(scenario())
    redis.Redis.from_url(redis_db).publish("dispatchguard:cancel", b"not json")  # no listener left: harmless


def test_malformed_cancel_notices_are_ignored(redis_db, caplog):
    import redis

    async def scenario():
        state = RedisRequestState(redis_db)
        await state.start()
        try:
            token = CancelToken()
            assert await state.claim("x", token)
            client = redis.asyncio.Redis.from_url(redis_db)
            await client.publish(state.channel, b"not json")
            await client.publish(state.channel, b'{"id": "x"}')
            await client.publish(state.channel, b'{"id": "x", "reason": "ok"}')
            await client.aclose()
            for _ in range(200):
                if token.cancelled:
                    break
                await asyncio.sleep(0.01)
            assert token.reason == "ok"
        finally:
            await state.close()

    run(scenario())
    assert "malformed cancel notice" in caplog.text


@pytest.mark.integration
def test_an_unreachable_redis_is_a_clear_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there once the probe is closed
    url = f"redis://127.0.0.1:{port}/0"

    async def scenario():
        state = RedisRequestState(url)
        with pytest.raises(Exception):  # noqa: B017 - start() raises redis-py's own ConnectionError
            await state.start()
        with pytest.raises(StateUnavailable, match="unavailable"):
            await state.claim("a", CancelToken())
        assert state.local == {}
        with pytest.raises(StateUnavailable):
            await state.cancel("a", "x")
        await state.release("a")  # logged, not raised
        await state.close()

    run(scenario())


def test_the_service_answers_503_without_its_state_store(registry, llm):
    from fastapi.testclient import TestClient

    from dispatchguard.server import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    state = RedisRequestState(f"redis://127.0.0.1:{port}/0")
    client = TestClient(create_app(registry, llm, state=state))  # no lifespan: the store is down
    response = client.post("/chat", json={"message": "hi"})
    assert response.status_code == 503 and "unavailable" in response.json()["detail"]
    assert client.post("/chat/x/cancel").status_code == 503


def test_the_cancel_listener_survives_a_dropped_connection(redis_db):
    import redis

    async def scenario():
        state = RedisRequestState(redis_db)
        other = RedisRequestState(redis_db)
        await state.start()
        await other.start()
        try:
            admin = redis.asyncio.Redis.from_url(redis_db)
            assert await admin.client_kill_filter(_type="pubsub") >= 1  # both listeners lose their link
            token = CancelToken()
            assert await state.claim("after-drop", token)
            for _ in range(500):  # the listener resubscribes; until then a cancel is lost, so repeat it
                await other.cancel("after-drop", "still heard")
                await asyncio.sleep(0.02)
                if token.cancelled:
                    break
            await admin.aclose()
            assert token.reason == "still heard"
        finally:
            await state.close()
            await other.close()

    run(scenario())


def test_a_state_can_be_started_again_after_close(redis_db):
    async def scenario():
        state, other = RedisRequestState(redis_db), RedisRequestState(redis_db)
        await other.start()
        for _ in range(2):  # e.g. an app whose lifespan runs twice
            await state.start()
            token = CancelToken()
            assert await state.claim("again", token)
            assert await other.cancel("again", "heard")
            for _ in range(200):
                if token.cancelled:
                    break
                await asyncio.sleep(0.01)
            assert token.reason == "heard"
            await state.release("again")
            await state.close()
        await other.close()

    run(scenario())
