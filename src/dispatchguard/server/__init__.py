"""The optional ``/chat`` service: ``create_app()`` builds the FastAPI app (needs the ``server`` extra).

Run it with ``dispatchguard serve`` or any ASGI server (``uvicorn --factory
dispatchguard.server:create_app``).
"""

from dispatchguard.server.app import AGENT_MODES, BodySizeLimit, create_app

__all__ = ["AGENT_MODES", "BodySizeLimit", "create_app"]
