"""The model-client protocols of the agent loop, and HTTP clients for OpenAI-compatible servers and
Anthropic's Messages API.

The loop asks a model in one of two ways:

**Native tool calling** (preferred when the client offers it): ``await llm.achat(messages,
registry) -> ModelReply``. The client sends the registry as the provider's tool list and returns the
reply's text and its :class:`ToolCall` s. ``messages`` are provider-neutral dicts:

- ``{"role": "system" | "user", "content": str}``;
- ``{"role": "assistant", "content": str, "tool_calls": [ToolCall, ...]}`` (``tool_calls``
  optional);
- ``{"role": "tool", "tool_call_id": str, "name": str, "content": str, "is_error": bool}``: the
  result of one call, answered in the provider's format (OpenAI ``tool`` message, Anthropic
  ``tool_result`` block).

:class:`OpenAICompatibleLLM` (unless ``native_tools=False``) and :class:`AnthropicLLM` speak it.

**JSON in text**, for models without native tools: ``complete(messages) -> str`` with
``{"role": "system" | "user" | "assistant", "content": str}`` messages. Any of these works:

- an object with ``async acomplete(messages) -> str`` (preferred by the loop when present);
- an object with ``complete(messages) -> str``, sync (run in a worker thread so the event loop is
  never blocked) or ``async def``;
- a plain callable ``fn(messages) -> str`` (or returning an awaitable of ``str``).

Both clients run on dispatchguard's shared httpx clients, so they get connection pooling, the retry
policy (a completion has no side effect, so 429/502/503/504 and connection failures are retried)
and typed errors. Settings come from the arguments, else from the environment:

========================  ==================================  ======================================
setting                   environment                         fallback
========================  ==================================  ======================================
``base_url``              ``DISPATCHGUARD_LLM_BASE_URL``      ``OPENAI_BASE_URL`` /
                                                              ``ANTHROPIC_BASE_URL``, then
                                                              ``https://api.anthropic.com``
``model``                 ``DISPATCHGUARD_LLM_MODEL``         ``OPENAI_MODEL`` / ``ANTHROPIC_MODEL``
``api_key`` (optional)    ``DISPATCHGUARD_LLM_API_KEY``       ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``
========================  ==================================  ======================================

An OpenAI-compatible base URL without a path (``http://localhost:8000``) gets ``/v1`` appended; one
with a path (``http://localhost:11434/v1``) is used as given. An Anthropic base URL is the API root
(the client posts to ``{base_url}/v1/messages``, like the official SDK).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

__all__ = [
    "AnthropicLLM",
    "AsyncLLMClient",
    "LLMClient",
    "LLMConfigError",
    "LLMError",
    "Message",
    "ModelReply",
    "OpenAICompatibleLLM",
    "ToolCall",
    "ToolCallingLLM",
    "acomplete",
    "uses_native_tools",
]

Message = Mapping[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """One native tool call: the provider's ``id``, the tool ``name`` and its ``arguments`` as the
    model sent them (JSON text from OpenAI-compatible servers, an object from Anthropic)."""

    id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class ModelReply:
    """A model's turn: its text (``""`` when it only called tools) and its tool calls, in order.

    What the API reported about the turn, when it did (for traces; not part of equality):
    ``usage`` (``{"input_tokens": int, "output_tokens": int}``), ``finish_reason`` and ``model``.
    """

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Mapping[str, int] | None = field(default=None, compare=False)
    finish_reason: str | None = field(default=None, compare=False)
    model: str | None = field(default=None, compare=False)


def _usage(usage: Any, input_key: str, output_key: str) -> dict[str, int] | None:
    """The token counts of a reply's ``usage`` object, under the GenAI names; None when absent."""
    if not isinstance(usage, dict):
        return None
    counts = {name: usage[key] for name, key in (("input_tokens", input_key), ("output_tokens", output_key))
              if type(usage.get(key)) is int}
    return counts or None


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


@runtime_checkable
class LLMClient(Protocol):
    """A sync JSON-in-text model client: ``complete`` returns the model's text answer.

    Runtime-checkable (``isinstance`` looks only for the method). The loop runs ``complete`` in a
    worker thread, so it may block; it must return ``str`` (anything else raises :class:`LLMError`).
    """

    def complete(self, messages: Sequence[Message]) -> str:
        """The model's text answer to role/content ``messages`` (the loop runs it in a thread)."""


@runtime_checkable
class AsyncLLMClient(Protocol):
    """An async JSON-in-text model client, preferred by the loop to ``complete`` when both exist.

    ``acomplete`` must return ``str`` (anything else raises :class:`LLMError`) and must not block
    the event loop it is awaited on. Runtime-checkable (``isinstance`` looks only for the method).
    """

    async def acomplete(self, messages: Sequence[Message]) -> str:
        """The model's text answer to ``messages``; the loop prefers it to ``complete``."""


@runtime_checkable
class ToolCallingLLM(Protocol):
    """A model client with native tool calling, offered the registry as the provider's tool list.

    :class:`OpenAICompatibleLLM` and :class:`AnthropicLLM` implement it. The loop calls ``achat``
    when :func:`uses_native_tools` agrees (a false ``native_tools`` attribute opts out); each call
    is one turn, answered as a :class:`ModelReply` with the tool calls in the model's order.
    """

    async def achat(self, messages: Sequence[Message], registry: Any) -> ModelReply:
        """One model turn, ``registry`` offered as the provider's tools: its text and tool calls."""


class LLMError(Exception):
    """The model could not be asked, or its answer could not be read."""

    error_kind = "llm_error"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMConfigError(LLMError, ValueError):
    """A required setting (base URL, model) is missing or malformed."""

    error_kind = "llm_config"


def uses_native_tools(llm: Any) -> bool:
    """Whether the loop should call ``llm.achat`` with the registry as the provider's tool list."""
    return callable(getattr(llm, "achat", None)) and bool(getattr(llm, "native_tools", True))


async def acomplete(llm: Any, messages: Sequence[Message]) -> str:
    """Ask ``llm`` (any JSON-in-text shape listed in the module docstring) and return its text."""
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


def _base_url(value: str | None) -> str:
    parts = urlsplit(value or "")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LLMConfigError(f"model server URL must be http(s)://host[:port][/path], got {value!r}")
    return (value or "").rstrip("/")


def _text_parts(content: Any) -> str:
    """The text of a message ``content``: a string, or a list of parts/blocks with ``text``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"] for part in content
            if isinstance(part, dict) and part.get("type", "text") == "text"
            and isinstance(part.get("text"), str)
        )
    return ""


class _HTTPModel:
    """The transport both clients share: POST JSON, map transport failures to :class:`LLMError`."""

    url: str
    timeout: float | None

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _json(self, response: Any) -> Any:
        try:
            return response.json()
        except (ValueError, RecursionError):
            raise LLMError(f"{self.url} answered with a body that is not JSON (or nested too deep)") from None

    def _post(self, payload: dict[str, Any]) -> Any:
        from dispatchguard.http import HttpError, request

        try:
            response = request("POST", self.url, json=payload, headers=self._headers(),
                               timeout=self.timeout, retry_non_idempotent=True)
        except HttpError as exc:
            raise LLMError(f"model request failed: {exc}", status=exc.status) from exc
        return self._json(response)

    async def _apost(self, payload: dict[str, Any]) -> Any:
        from dispatchguard.http import HttpError, arequest

        try:
            response = await arequest("POST", self.url, json=payload, headers=self._headers(),
                                      timeout=self.timeout, retry_non_idempotent=True)
        except HttpError as exc:
            raise LLMError(f"model request failed: {exc}", status=exc.status) from exc
        return self._json(response)


# -- OpenAI-compatible ------------------------------------------------------------------------------

def _openai_arguments(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _openai_message(message: Message) -> dict[str, Any]:
    role = message["role"]
    if role == "tool":
        return {"role": "tool", "tool_call_id": message["tool_call_id"], "content": message["content"]}
    calls = message.get("tool_calls") if role == "assistant" else None
    if calls:
        return {
            "role": "assistant",
            "content": message.get("content") or None,
            "tool_calls": [
                {"id": call.id, "type": "function",
                 "function": {"name": call.name, "arguments": _openai_arguments(call.arguments)}}
                for call in calls
            ],
        }
    return {"role": role, "content": message.get("content", "")}


class OpenAICompatibleLLM(_HTTPModel):
    """``complete``/``acomplete``/``achat`` against an OpenAI-compatible ``/chat/completions``.

    With ``native_tools`` (the default) the loop sends the registry as ``tools`` (strict function
    schemas) and reads ``tool_calls``; ``native_tools=False`` keeps the JSON-in-text protocol for
    servers whose models have no tool support.
    """

    #: ``gen_ai.provider.name`` of the trace spans
    provider_name = "openai"

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
        native_tools: bool = True,
    ) -> None:
        base = _setting(base_url, ("DISPATCHGUARD_LLM_BASE_URL", "OPENAI_BASE_URL"))
        chosen_model = _setting(model, ("DISPATCHGUARD_LLM_MODEL", "OPENAI_MODEL"))
        if not base:
            raise LLMConfigError(
                "no model server URL: pass base_url= or set DISPATCHGUARD_LLM_BASE_URL "
                "(e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama)"
            )
        base = _base_url(base)
        if not chosen_model:
            raise LLMConfigError("no model name: pass model= or set DISPATCHGUARD_LLM_MODEL")
        self.base_url = base if urlsplit(base).path.strip("/") else base + "/v1"
        self.url = self.base_url + "/chat/completions"
        self.model = chosen_model
        self.api_key = _setting(api_key, ("DISPATCHGUARD_LLM_API_KEY", "OPENAI_API_KEY"))
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.extra_body = dict(extra_body or {})
        self.native_tools = native_tools

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r})"

    def _payload(self, messages: Sequence[Message], registry: Any = None) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model,
                                   "messages": [_openai_message(m) for m in messages]}
        if registry is not None and len(registry):
            payload["tools"] = registry.export("openai")
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

    def _reply(self, data: Any) -> ModelReply:
        choices = data.get("choices") if isinstance(data, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise LLMError(f"{self.url} answered without choices[0].message: {str(data)[:200]}")
        calls = message.get("tool_calls")
        tool_calls: list[ToolCall] = []
        for index, call in enumerate(calls if isinstance(calls, list) else ()):
            call = call if isinstance(call, dict) else {}
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{index}"
            name = function.get("name")
            tool_calls.append(ToolCall(call_id, name if isinstance(name, str) else "",
                                       function.get("arguments")))
        usage = data.get("usage")
        return ModelReply(_text_parts(message.get("content")), tuple(tool_calls),
                          _usage(usage, "prompt_tokens", "completion_tokens"),
                          _text_or_none(first.get("finish_reason")), _text_or_none(data.get("model")))

    def complete(self, messages: Sequence[Message]) -> str:
        """POST ``messages`` without tools and return the first choice's text; blocks the thread.

        Raises :class:`LLMError` when the request fails (after retries) or the answer has no
        ``choices[0].message``.
        """
        return self._reply(self._post(self._payload(messages))).text

    async def acomplete(self, messages: Sequence[Message]) -> str:
        """As :meth:`complete`, without blocking the event loop."""
        return self._reply(await self._apost(self._payload(messages))).text

    async def achat(self, messages: Sequence[Message], registry: Any) -> ModelReply:
        """Ask with the registry as strict ``tools`` (none when empty): the first choice's reply.

        Calls without an id get ``call_<index>``; arguments stay the JSON text the server sent.
        Raises :class:`LLMError` as :meth:`complete` does.
        """
        return self._reply(await self._apost(self._payload(messages, registry)))


# -- Anthropic Messages API --------------------------------------------------------------------------

def _anthropic_input(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except (ValueError, RecursionError):
            return {}
    return arguments if isinstance(arguments, dict) else {}


def _anthropic_blocks(message: Message) -> list[dict[str, Any]]:
    role = message["role"]
    if role == "tool":
        return [{"type": "tool_result", "tool_use_id": message["tool_call_id"],
                 "content": message["content"], "is_error": bool(message.get("is_error"))}]
    blocks: list[dict[str, Any]] = []
    text = message.get("content") or ""
    if text:  # the API refuses empty text blocks
        blocks.append({"type": "text", "text": text})
    calls = message.get("tool_calls") if role == "assistant" else None
    for call in calls or ():
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name,
                       "input": _anthropic_input(call.arguments)})
    return blocks


def anthropic_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """Neutral messages as the Messages API wants them: the system text apart, tool results as
    ``tool_result`` blocks of a user turn, consecutive turns of one role merged (roles alternate)."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "system":
            system.append(message.get("content", ""))
            continue
        role = "assistant" if message["role"] == "assistant" else "user"
        blocks = _anthropic_blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return "\n\n".join(system), turns


class AnthropicLLM(_HTTPModel):
    """``complete``/``acomplete``/``achat`` against Anthropic's ``POST /v1/messages``.

    Tools are sent with ``input_schema``; ``tool_use`` blocks come back as :class:`ToolCall` and
    are answered with ``tool_result`` blocks (``is_error`` for failures). The current Messages API
    has no sampling parameters (no ``temperature``); ``extra_body`` adds any other field.
    """

    native_tools = True
    #: ``gen_ai.provider.name`` of the trace spans
    provider_name = "anthropic"

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        max_tokens: int = 1024,
        timeout: float | None = 120.0,
        extra_body: Mapping[str, Any] | None = None,
        version: str = "2023-06-01",
    ) -> None:
        base = _setting(base_url, ("DISPATCHGUARD_LLM_BASE_URL", "ANTHROPIC_BASE_URL"))
        chosen_model = _setting(model, ("DISPATCHGUARD_LLM_MODEL", "ANTHROPIC_MODEL"))
        if not chosen_model:
            raise LLMConfigError("no model name: pass model= or set DISPATCHGUARD_LLM_MODEL")
        if max_tokens < 1:
            raise LLMConfigError(f"max_tokens must be at least 1, got {max_tokens}")
        self.base_url = _base_url(base or "https://api.anthropic.com")
        self.url = self.base_url + "/v1/messages"
        self.model = chosen_model
        self.api_key = _setting(api_key, ("DISPATCHGUARD_LLM_API_KEY", "ANTHROPIC_API_KEY"))
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.extra_body = dict(extra_body or {})
        self.version = version

    def __repr__(self) -> str:  # never shows the key
        return f"AnthropicLLM(base_url={self.base_url!r}, model={self.model!r})"

    def _payload(self, messages: Sequence[Message], registry: Any = None) -> dict[str, Any]:
        system, turns = anthropic_messages(messages)
        payload: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens,
                                   "messages": turns}
        if system:
            payload["system"] = system
        if registry is not None and len(registry):
            payload["tools"] = registry.export("anthropic")
        payload.update(self.extra_body)
        return payload

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", "anthropic-version": self.version}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return headers

    def _reply(self, data: Any) -> ModelReply:
        content = data.get("content") if isinstance(data, dict) else None
        if not isinstance(content, list):
            raise LLMError(f"{self.url} answered without a content list: {str(data)[:200]}")
        calls = []
        for index, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call_id = block.get("id") if isinstance(block.get("id"), str) else f"toolu_{index}"
                name = block.get("name") if isinstance(block.get("name"), str) else ""
                calls.append(ToolCall(call_id, name, block.get("input")))
        usage = _usage(data.get("usage"), "input_tokens", "output_tokens")
        return ModelReply(_text_parts(content), tuple(calls), usage,
                          _text_or_none(data.get("stop_reason")), _text_or_none(data.get("model")))

    def complete(self, messages: Sequence[Message]) -> str:
        """POST ``messages`` without tools and return the text blocks joined; blocks the thread.

        Raises :class:`LLMError` when the request fails (after retries) or the answer has no
        ``content`` list.
        """
        return self._reply(self._post(self._payload(messages))).text

    async def acomplete(self, messages: Sequence[Message]) -> str:
        """As :meth:`complete`, without blocking the event loop."""
        return self._reply(await self._apost(self._payload(messages))).text

    async def achat(self, messages: Sequence[Message], registry: Any) -> ModelReply:
        """Ask with the registry as ``tools`` (none when empty): the text and ``tool_use`` blocks.

        Blocks without an id get ``toolu_<index>``; arguments are the ``input`` objects as sent.
        Raises :class:`LLMError` as :meth:`complete` does.
        """
        return self._reply(await self._apost(self._payload(messages, registry)))
