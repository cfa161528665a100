"""The optional ``/chat`` service: ``create_app()`` builds the FastAPI app (needs the ``server`` extra).

Run it with ``dispatchguard serve`` or any ASGI server (``uvicorn --factory
dispatchguard.server.factory:app_from_environment``). Request state is per process, or shared
through Redis when ``DISPATCHGUARD_REDIS_URL`` is set (:mod:`dispatchguard.server.state`).

The names below are loaded on first use (PEP 562), so that importing a submodule, as the
``dispatchguard`` command does for ``serve``'s options, loads neither FastAPI nor pydantic.
"""

from __future__ import annotations

from dispatchguard.lazy import lazy_exports

__all__ = [
    "AGENT_MODES",
    "DEFAULT_REGISTRY",
    "SETTINGS_ENV",
    "BodySizeLimit",
    "LocalRequestState",
    "RedisRequestState",
    "RequestState",
    "StateUnavailable",
    "create_app",
]

#: The environment variable through which ``serve`` hands its settings to each worker process.
SETTINGS_ENV = "DISPATCHGUARD_SERVE_SETTINGS"
#: The registry ``serve`` exposes unless told otherwise.
DEFAULT_REGISTRY = "dispatchguard.runtime:TOOL_REGISTRY"

_HOMES = {
    "AGENT_MODES": "dispatchguard.server.app",
    "BodySizeLimit": "dispatchguard.server.app",
    "create_app": "dispatchguard.server.app",
    "LocalRequestState": "dispatchguard.server.state",
    "RedisRequestState": "dispatchguard.server.state",
    "RequestState": "dispatchguard.server.state",
    "StateUnavailable": "dispatchguard.server.state",
}


__getattr__, __dir__ = lazy_exports(globals(), _HOMES)
