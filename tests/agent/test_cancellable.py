"""until_cancelled: a CancelToken aborts an awaited call."""

from __future__ import annotations

import asyncio

import pytest

from dispatchguard.agent import CancelToken, RunCancelled, until_cancelled


def test_the_result_comes_through_without_a_cancel():
    async def answer():
        await asyncio.sleep(0.01)
        return 42

    assert asyncio.run(until_cancelled(answer(), CancelToken())) == 42
    assert asyncio.run(until_cancelled(answer(), None)) == 42


def test_a_token_cancelled_before_the_call_never_starts_it():
    started = []

    async def call():
        started.append(True)

    token = CancelToken()
    token.cancel("early")
    with pytest.raises(RunCancelled, match="early") as info:
        asyncio.run(until_cancelled(call(), token))
    assert info.value.reason == "early" and started == []


def test_a_cancel_aborts_the_call_in_flight():
    state = {}

    async def hang():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["aborted"] = True
            raise

    async def scenario():
        token = CancelToken()
        asyncio.get_running_loop().call_later(0.1, token.cancel, "now")
        await until_cancelled(hang(), token)

    with pytest.raises(RunCancelled, match="now"):
        asyncio.run(scenario())
    assert state == {"aborted": True}


def test_cancelling_the_waiter_cancels_the_call():
    state = {}

    async def hang():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["aborted"] = True
            raise

    async def scenario():
        waiter = asyncio.ensure_future(until_cancelled(hang(), CancelToken()))
        await asyncio.sleep(0.05)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        await asyncio.sleep(0)

    asyncio.run(scenario())
    assert state == {"aborted": True}
