"""Build the service from settings, also in worker processes that uvicorn starts.

``uvicorn --workers N`` imports the app in each worker, so it cannot be handed a built app object:
``dispatchguard serve --workers N`` puts its :class:`ServeSettings` (JSON) in
``DISPATCHGUARD_SERVE_SETTINGS`` and each worker calls :func:`app_from_environment`. The same works
for any process manager::

    DISPATCHGUARD_SERVE_SETTINGS='{"base_url": "http://127.0.0.1:8000/v1", "model": "m"}' \\
    DISPATCHGUARD_REDIS_URL=redis://127.0.0.1:6379/0 \\
    uvicorn --factory dispatchguard.server.factory:app_from_environment --workers 4
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
from typing import Annotated, Any, ClassVar, Literal

from annotated_types import Ge, Gt

from dispatchguard.server import DEFAULT_REGISTRY, SETTINGS_ENV

__all__ = ["ServeSettings", "app_from_environment", "build_app", "load_registry"]


@dataclasses.dataclass(frozen=True)
class ServeSettings:
    """What ``dispatchguard serve`` configures; the model's API key comes only from the environment.

    A plain dataclass (pydantic validates it in :meth:`from_json` only), so that importing the CLI
    never loads pydantic."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    provider: Literal["openai", "anthropic"] = "openai"
    base_url: str | None = None
    model: str | None = None
    native_tools: bool = True
    model_timeout: Annotated[float, Gt(0)] = 120.0
    request_timeout: Annotated[float, Gt(0)] | None = None
    registry: str = DEFAULT_REGISTRY
    allow_tools: bool = True
    max_steps: Annotated[int, Ge(1)] = 5
    tool_timeout: Annotated[float, Gt(0)] = 12.0
    max_body_bytes: Annotated[int, Ge(1)] = 64 * 1024

    def to_json(self) -> str:
        """The settings as a JSON object, the form :meth:`from_json` (and so each worker) reads."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeSettings:
        """Validated settings; ``ValueError`` naming what is wrong otherwise."""
        from pydantic import TypeAdapter, ValidationError

        try:
            return TypeAdapter(cls).validate_json(text)
        except ValidationError as exc:
            raise ValueError(str(exc)) from None


def load_registry(spec: str) -> Any:
    """Import ``module:attribute`` and return it; ValueError with a clear message otherwise."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"--registry must look like module:attribute, got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--registry {spec}: cannot import {module_name!r} ({exc})") from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"--registry {spec}: {module_name!r} has no attribute {attribute!r}") from None


def build_app(settings: ServeSettings) -> Any:
    """The FastAPI app for ``settings``. Raises ``ValueError`` (``LLMConfigError`` included) for a
    bad registry or model setting."""
    from dispatchguard.agent.llm import AnthropicLLM, OpenAICompatibleLLM
    from dispatchguard.server.app import create_app

    registry = load_registry(settings.registry)
    if settings.provider == "anthropic":
        llm: Any = AnthropicLLM(base_url=settings.base_url, model=settings.model,
                                timeout=settings.model_timeout)
    else:
        llm = OpenAICompatibleLLM(base_url=settings.base_url, model=settings.model,
                                  timeout=settings.model_timeout, native_tools=settings.native_tools)
    return create_app(
        registry, llm, max_steps=settings.max_steps, tool_timeout=settings.tool_timeout,
        allow_tools=settings.allow_tools, max_body_bytes=settings.max_body_bytes,
        request_timeout=settings.request_timeout,
    )


def app_from_environment() -> Any:
    """The app for the settings in ``DISPATCHGUARD_SERVE_SETTINGS`` (defaults when unset)."""
    try:
        settings = ServeSettings.from_json(os.environ.get(SETTINGS_ENV) or "{}")
    except ValueError as exc:
        raise ValueError(f"{SETTINGS_ENV} is not valid: {exc}") from None
    return build_app(settings)
