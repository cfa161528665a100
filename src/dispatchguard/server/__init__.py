"""The optional ``/chat`` service: ``create_app()`` builds the FastAPI app (needs the ``server`` extra).

Run it with ``dispatchguard serve`` or any ASGI server (``uvicorn --factory
dispatchguard.server.factory:app_from_environment``). Request state is per process, or shared
through Redis when ``DISPATCHGUARD_REDIS_URL`` is set (:mod:`dispatchguard.server.state`).
"""

from dispatchguard.server.app import AGENT_MODES, BodySizeLimit, create_app
from dispatchguard.server.state import (
    LocalRequestState,
    RedisRequestState,
    RequestState,
    StateUnavailable,
)

__all__ = [
    "AGENT_MODES",
    "BodySizeLimit",
    "LocalRequestState",
    "RedisRequestState",
    "RequestState",
    "StateUnavailable",
    "create_app",
]
