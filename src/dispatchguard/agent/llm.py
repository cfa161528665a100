"""The model-client protocol of the agent loop, and an OpenAI-compatible HTTP client.

The loop needs one thing from a model: ``complete(messages) -> str``, where ``messages`` is a list
of ``{"role": "system" | "user" | "assistant", "content": str}``. Any of these works as ``llm``:

- an object with ``async acomplete(messages) -> str`` (preferred by the loop when present);
- an object with ``complete(messages) -> str``, sync (run in a worker thread so the event loop is
  never blocked) or ``async def``;
- a plain callable ``fn(messages) -> str`` (or returning an awaitable of ``str``).

:class:`OpenAICompatibleLLM` speaks ``POST {base_url}/chat/completions`` (vLLM, llama.cpp server,
Ollama's ``/v1``, LM Studio and hosted OpenAI-compatible endpoints) on dispatchguard's shared httpx
clients, so it gets their connection pooling, retry policy (a completion has no side effect, so
429/502/503/504 and connection failures are retried) and typed errors. Settings come from the
arguments, else from the environment:

========================  ==================================  =====================
setting                   environment                         fallback
========================  ==================================  =====================
``base_url``              ``DISPATCHGUARD_LLM_BASE_URL``      ``OPENAI_BASE_URL``
``model``                 ``DISPATCHGUARD_LLM_MODEL``         ``OPENAI_MODEL``
``api_key`` (optional)    ``DISPATCHGUARD_LLM_API_KEY``       ``OPENAI_API_KEY``
========================  ==================================  =====================

A base URL without a path (``http://localhost:8000``) gets ``/v1`` appended; one with a path
(``http://localhost:11434/v1``, ``https://host/openai/v1``) is used as given.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

__all__ = [
    "AsyncLLMClient",
    "LLMClient",
    "LLMConfigError",
    "LLMError",
    "Message",
    "OpenAICompatibleLLM",
    "acomplete",
]

Message = Mapping[str, str]


@runtime_checkable
class LLMClient(Protocol):
    def complete(self, messages: Sequence[Message]) -> str: ...


@runtime_checkable
class AsyncLLMClient(Protocol):
    async def acomplete(self, messages: Sequence[Message]) -> str: ...


class LLMError(Exception):
    """The model could not be asked, or its answer could not be read."""

    error_kind = "llm_error"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMConfigError(LLMError, ValueError):
    """A required setting (base URL, model) is missing or malformed."""

    error_kind = "llm_config"


async def acomplete(llm: Any, messages: Sequence[Message]) -> str:
    """Ask ``llm`` (any shape listed in the module docstring) and return its text."""
    if hasattr(llm, "acomplete"):
        result = llm.acomplete(messages)
    else:
        func = getattr(llm, "complete", llm)
        if not callable(func):
            raise LLMConfigError(
                f"llm must have complete(messages) or acomplete(messages), or be callable; "
                f"got {type(llm).__name__}"
            )
        if inspect.iscoroutinefunction(func):
            result = func(messages)
        else:
            result = await asyncio.to_thread(func, messages)
    if inspect.isawaitable(result):
        result = await result
    if not isinstance(result, str):
        raise LLMError(f"the model client returned {type(result).__name__}, expected str")
    return result


def _setting(value: str | None, names: tuple[str, ...]) -> str | None:
    if value:
        return value
    for name in names:
        found = os.environ.get(name, "").strip()
        if found:
            return found
    return None


class OpenAICompatibleLLM:
    """``complete``/``acomplete`` against an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        timeout: float | None = 120.0,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        base = _setting(base_url, ("DISPATCHGUARD_LLM_BASE_URL", "OPENAI_BASE_URL"))
        chosen_model = _setting(model, ("DISPATCHGUARD_LLM_MODEL", "OPENAI_MODEL"))
        if not base:
            raise LLMConfigError(
                "no model server URL: pass base_url= or set DISPATCHGUARD_LLM_BASE_URL "
                "(e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama)"
            )
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise LLMConfigError(f"model server URL must be http(s)://host[:port][/path], got {base!r}")
        if not chosen_model:
            raise LLMConfigError("no model name: pass model= or set DISPATCHGUARD_LLM_MODEL")
        base = base.rstrip("/")
        self.base_url = base if parts.path.strip("/") else base + "/v1"
        self.url = self.base_url + "/chat/completions"
        self.model = chosen_model
        self.api_key = _setting(api_key, ("DISPATCHGUARD_LLM_API_KEY", "OPENAI_API_KEY"))
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.extra_body = dict(extra_body or {})

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r})"

    def _payload(self, messages: Sequence[Message]) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        if self.max_tokens is not None:
            payload["max_tokens"] = self.max_tokens
        payload.update(self.extra_body)
        return payload

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _text(self, response: Any) -> str:
        try:
            data = response.json()
        except ValueError:
            raise LLMError(f"{self.url} answered with a body that is not JSON") from None
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(
                f"{self.url} answered without choices[0].message.content: {str(data)[:200]}"
            ) from None
        return content if isinstance(content, str) else ""

    def complete(self, messages: Sequence[Message]) -> str:
        from dispatchguard.http import HttpError, request

        try:
            response = request(
                "POST", self.url, json=self._payload(messages), headers=self._headers(),
                timeout=self.timeout, retry_non_idempotent=True,
            )
        except HttpError as exc:
            raise LLMError(f"model request failed: {exc}", status=exc.status) from exc
        return self._text(response)

    async def acomplete(self, messages: Sequence[Message]) -> str:
        from dispatchguard.http import HttpError, arequest

        try:
            response = await arequest(
                "POST", self.url, json=self._payload(messages), headers=self._headers(),
                timeout=self.timeout, retry_non_idempotent=True,
            )
        except HttpError as exc:
            raise LLMError(f"model request failed: {exc}", status=exc.status) from exc
        return self._text(response)
