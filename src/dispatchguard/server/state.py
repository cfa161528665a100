"""Which requests are running, and how a cancel reaches them: in one process, or through Redis.

The service needs three things of its request state: a ``request_id`` runs at most once at a time
(**claim**, else 409), a cancel sent to *any* process reaches the run (**cancel**, else 404), and a
finished or disconnected run frees its id (**release**). :class:`LocalRequestState` keeps them in
the process's memory: enough for one process. :class:`RedisRequestState` keeps them in Redis, so
``serve --workers N`` and several hosts behind a load balancer behave like one process:

- a claim is ``SET dispatchguard:request:<id> <owner> NX EX <lease>``: atomic across processes.
  The owning process renews the lease of its running requests every ``lease/3`` seconds, so the
  id of a process that died frees itself after ``lease`` seconds;
- a cancel of a request running elsewhere is a ``PUBLISH`` on ``dispatchguard:cancel``; every
  process listens on that channel and cancels its own :class:`CancelToken` of that id;
- a release deletes the key only while this process still owns it (compare-and-delete script);
- a renewal re-claims a key that was lost (a Redis restart: ``SET`` only while nobody owns it, in
  one script), and a run whose id another process owns by then is cancelled (``LOST_REASON``);
  a cancel is also stored for a lease, so a run whose listener missed the message (reconnecting
  after a restart) is cancelled at its next renewal.

:func:`request_state_from_environment` picks Redis when ``DISPATCHGUARD_REDIS_URL`` is set. A Redis
that cannot be reached makes ``claim``/``cancel`` raise :class:`StateUnavailable` (the service
answers 503).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import uuid
from typing import Any, Protocol

from dispatchguard.agent.cancellable import CancelToken

__all__ = [
    "LOST_REASON",
    "REDIS_URL_ENV",
    "LocalRequestState",
    "RedisRequestState",
    "RequestState",
    "StateUnavailable",
    "request_state_from_environment",
]

REDIS_URL_ENV = "DISPATCHGUARD_REDIS_URL"

log = logging.getLogger(__name__)


class StateUnavailable(RuntimeError):
    """The shared request state (Redis) cannot be reached."""


class RequestState(Protocol):
    """What the chat service knows of running requests: claims, cancels and releases of their ids.

    An implementation guarantees that a ``request_id`` runs at most once at a time and that a cancel
    reaches its run wherever it runs. ``create_app`` uses the one it is given, else
    :func:`request_state_from_environment`'s: :class:`LocalRequestState` or
    :class:`RedisRequestState`.
    """

    #: The tokens of the requests running in this process, by id.
    local: dict[str, CancelToken]

    async def start(self) -> None:
        """Begin background work (cancel listener, lease renewal); awaited at app startup."""

    async def close(self) -> None:
        """Stop the background work and drop connections; :meth:`start` may be called again."""

    async def claim(self, request_id: str, token: CancelToken) -> bool:
        """Register ``token`` as the run of ``request_id``; False if that id is running anywhere.

        Raises :class:`StateUnavailable` when the shared store cannot be reached.
        """

    async def release(self, request_id: str) -> None:
        """Free ``request_id`` when its run ends or its client leaves; store errors are logged."""

    async def cancel(self, request_id: str, reason: str) -> bool:
        """Cancel the run of ``request_id`` with ``reason``, wherever it runs; False if none runs.

        Raises :class:`StateUnavailable` when the shared store cannot be reached.
        """


class LocalRequestState:
    """Request state in this process's memory (one process only)."""

    def __init__(self) -> None:
        self.local: dict[str, CancelToken] = {}

    async def start(self) -> None:
        """Do nothing: local state has no background work."""
        pass

    async def close(self) -> None:
        """Do nothing: there is nothing to stop, and running tokens are kept."""
        pass

    async def claim(self, request_id: str, token: CancelToken) -> bool:
        """Register ``token`` for ``request_id``; False if this process already runs that id."""
        if request_id in self.local:
            return False
        self.local[request_id] = token
        return True

    async def release(self, request_id: str) -> None:
        """Forget ``request_id`` (a no-op if it is unknown)."""
        self.local.pop(request_id, None)

    async def cancel(self, request_id: str, reason: str) -> bool:
        """Cancel this process's run of ``request_id`` with ``reason``; False if there is none."""
        token = self.local.get(request_id)
        if token is None:
            return False
        token.cancel(reason)
        return True


# Delete the key only if it still holds our owner id (another process may hold it after a lease expired).
_RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


# Renew a lease; re-claim a key that was lost (a Redis restart without persistence, or an expiry
# while Redis was unreachable): SET only when nobody else owns it, in the same atomic script. Reports
# a key owned by another process ("lost"), and a stored cancel ("cancel:<reason>").
_RENEW_SCRIPT = """
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
elseif not owner then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  return 'lost'
end
local reason = redis.call('GET', KEYS[2])
if reason then return 'cancel:' .. reason end
return 'ok'
"""

#: The reason a run is stopped when its id turns out to be owned by another process.
LOST_REASON = "the request id is now running in another process"


class RedisRequestState:
    """Request state shared through Redis (see the module docstring); needs ``dispatchguard[redis]``."""

    def __init__(self, url: str, *, lease_seconds: float = 30.0, prefix: str = "dispatchguard:",
                 client: Any = None) -> None:
        if lease_seconds < 1:
            raise ValueError(f"lease_seconds must be at least 1, got {lease_seconds}")
        self.url = url
        self.lease_ms = int(lease_seconds * 1000)
        self.prefix = prefix
        self.channel = f"{prefix}cancel"
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.local: dict[str, CancelToken] = {}
        self._client = client
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    def _key(self, request_id: str) -> str:
        return f"{self.prefix}request:{request_id}"

    def _cancel_key(self, request_id: str) -> str:
        return f"{self.prefix}cancelled:{request_id}"

    @property
    def client(self) -> Any:
        """The ``redis.asyncio`` client: the injected one, else created on first use (5 s timeouts).

        Importing ``redis`` happens here, so a missing ``redis`` extra raises ``ImportError`` now.
        """
        if self._client is None:
            import redis.asyncio

            self._client = redis.asyncio.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=5)
        return self._client

    async def start(self) -> None:
        """Listen for cancels and renew leases; returns once the subscription is active."""
        self._tasks = [asyncio.create_task(self._listen(), name="dispatchguard-cancel-listener"),
                       asyncio.create_task(self._renew(), name="dispatchguard-lease-renewal")]
        waiter = asyncio.create_task(self._subscribed.wait())
        await asyncio.wait([waiter, self._tasks[0]], return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():
            waiter.cancel()
            self._tasks[0].result()  # the listener failed: raise its error

    async def close(self) -> None:
        """Stop the listener and renewal tasks (their errors are swallowed) and close the client.

        An injected client is closed too. Tokens in :attr:`local` are kept; a later :meth:`start`
        waits for its own subscription.
        """
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        self._subscribed.clear()  # a later start() waits for its own subscription
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _listen(self) -> None:
        pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self.channel)
            self._subscribed.set()
            while True:
                try:
                    message = await pubsub.get_message(timeout=1.0)
                except Exception:  # a dropped connection: resubscribe rather than go deaf
                    log.warning("cancel listener lost Redis; resubscribing", exc_info=True)
                    await asyncio.sleep(0.5)
                    with contextlib.suppress(Exception):
                        await pubsub.subscribe(self.channel)
                    continue
                if message is not None:
                    self._deliver(message.get("data"))
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    def _deliver(self, data: Any) -> None:
        try:
            notice = json.loads(data)
            token = self.local.get(notice["id"])
            reason = str(notice["reason"])
        except (ValueError, TypeError, KeyError):
            log.warning("ignoring a malformed cancel notice: %r", data)
            return
        if token is not None:
            token.cancel(reason)

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            if self.local:
                await self.renew_once()

    async def renew_once(self) -> None:
        """Renew (or re-claim) the leases of this process's runs; stop those whose id another
        process owns now, and those cancelled while the cancel channel was not heard."""
        ids = list(self.local)
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for request_id in ids:
                    pipe.eval(_RENEW_SCRIPT, 2, self._key(request_id), self._cancel_key(request_id),
                              self.owner, self.lease_ms)
                answers = await pipe.execute()
        except Exception:  # the next round retries; a lost key is re-claimed then
            log.warning("could not renew request leases in Redis", exc_info=True)
            return
        for request_id, answer in zip(ids, answers, strict=True):
            text = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else str(answer)
            token = self.local.get(request_id)
            if token is None:
                continue
            if text == "lost":
                log.warning("request %r is now owned by another process; stopping its run here", request_id)
                token.cancel(LOST_REASON)
            elif text.startswith("cancel:"):
                token.cancel(text.removeprefix("cancel:"))

    async def claim(self, request_id: str, token: CancelToken) -> bool:
        """Claim ``request_id`` in Redis for one lease (``SET NX``); False if it runs anywhere.

        Raises :class:`StateUnavailable` when Redis cannot be reached; ``token`` is then not kept.
        """
        if request_id in self.local:
            return False
        self.local[request_id] = token  # before the key exists, so no cancel can miss it
        try:
            claimed = await self.client.set(self._key(request_id), self.owner, nx=True, px=self.lease_ms)
        except Exception as exc:
            del self.local[request_id]
            raise StateUnavailable(f"request state store unavailable: {exc}") from exc
        if not claimed:
            del self.local[request_id]
        return bool(claimed)

    async def release(self, request_id: str) -> None:
        """Forget ``request_id`` and delete its key if this process still owns it.

        A Redis error is logged, not raised: the lease then expires on its own.
        """
        self.local.pop(request_id, None)
        try:
            await self.client.eval(_RELEASE_SCRIPT, 1, self._key(request_id), self.owner)
        except Exception:  # the lease expires on its own
            log.warning("could not release request %r in Redis", request_id, exc_info=True)

    async def cancel(self, request_id: str, reason: str) -> bool:
        """Cancel ``request_id`` here, or store and publish a cancel for the process that runs it.

        False when no process holds the id. True for a remote run means the cancel was sent, not yet
        received. Raises :class:`StateUnavailable` when Redis cannot be reached.
        """
        token = self.local.get(request_id)
        if token is not None:
            token.cancel(reason)
            return True
        try:
            if not await self.client.exists(self._key(request_id)):
                return False
            # Stored as well as published: a listener reconnecting after a Redis restart misses the
            # message, and the owner's next lease renewal finds the stored cancel.
            await self.client.set(self._cancel_key(request_id), reason, px=self.lease_ms)
            await self.client.publish(self.channel, json.dumps({"id": request_id, "reason": reason}))
        except Exception as exc:
            raise StateUnavailable(f"request state store unavailable: {exc}") from exc
        return True


def request_state_from_environment() -> RequestState:
    """:class:`RedisRequestState` when ``DISPATCHGUARD_REDIS_URL`` is set, else local state."""
    url = os.environ.get(REDIS_URL_ENV, "").strip()
    return RedisRequestState(url) if url else LocalRequestState()
