"""The optional ``/chat`` service (extra ``dispatchguard[server]``: FastAPI and uvicorn).

- ``POST /chat`` ``{"message", "mode", "request_id"?}`` -> ``{"response", "tools_used", "steps",
  "request_id", "mode", "stop_reason"}``. Modes ``agent`` and ``work`` run the agent loop
  (:func:`dispatchguard.agent.arun_tool_loop`) when tools are allowed (``allow_tools`` and a
  non-empty registry); other modes, or those two without tools, ask the model directly.
- ``POST /chat/{request_id}/cancel`` cancels a running request, also while its model call is in
  flight (a client that wants to cancel sends its own ``request_id``; otherwise one is generated
  and returned). With ``DISPATCHGUARD_REDIS_URL`` set the request state lives in Redis, so a cancel
  sent to any worker or host reaches the run (:mod:`dispatchguard.server.state`).
- A client that disconnects cancels its run and frees its ``request_id``.
- ``GET /healthz``.

Status codes: a request body above ``max_body_bytes`` is 413 before it is parsed (declared
``Content-Length`` or bytes actually received); any body that is not a valid request (bad JSON,
``NaN``, text that is not valid Unicode, a message above ``max_message_chars``) is 422, one
that cannot even be decoded (invalid UTF-8, JSON nested deeper than the parser goes) is 400; a
``request_id`` already running is 409; a model that cannot be asked is 502; a run that passes its
``request_timeout`` deadline is 504; a request state store (Redis) that cannot be reached is 503.
"""

# No "from __future__ import annotations": FastAPI reads the handlers' annotations at run time, and
# ChatRequest is local to create_app (its limits come from the arguments).
import asyncio
import contextlib
import json
import logging
import re
import uuid
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from typing import Annotated, Any, Literal

from fastapi import FastAPI, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from dispatchguard.agent.cancellable import CancelToken, RunCancelled, until_cancelled
from dispatchguard.agent.llm import acomplete
from dispatchguard.agent.loop import arun_tool_loop
from dispatchguard.runtime.tracing import chat_span, server_span
from dispatchguard.server.state import RequestState, StateUnavailable, request_state_from_environment

log = logging.getLogger(__name__)
#: A URL in a model error (the internal model endpoint): logged, never shown to clients.
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"]+")


def _public(reason: str) -> str:
    """A model error as clients see it: without the model endpoint's address."""
    return _URL.sub("<the model endpoint>", reason)

__all__ = ["AGENT_MODES", "BodySizeLimit", "create_app"]

AGENT_MODES = frozenset({"agent", "work"})
Mode = Literal["chat", "agent", "work"]
REQUEST_ID_PATTERN = r"^[A-Za-z0-9._-]{1,64}$"
DIRECT_SYSTEM_PROMPT = "You are a helpful assistant. Answer the user's message directly."
DEADLINE_REASON = "the request passed its deadline"
DISCONNECT_REASON = "the client disconnected"
#: The longest string a client may send as the value of an injected argument.
MAX_CONTEXT_VALUE_CHARS = 1024
#: What a client may send for an injected argument: short text, a number, a bool or null (never a
#: structure: an injected argument carries an identity or a setting, not data for the tool).
ContextValue = Annotated[str, StringConstraints(max_length=MAX_CONTEXT_VALUE_CHARS)] | int | float | bool | None


def injected_keys(registry: Any) -> frozenset[str]:
    """The context keys of the registry's injected arguments (the tool-call id aside: the loop
    makes those)."""
    keys: set[str] = set()
    for name in registry:
        keys.update(p.key for p in registry.spec(name).injected if not p.is_call_id)
    return frozenset(keys)


def encodable(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, so it can go out as UTF-8 JSON."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


class ChatResponse(BaseModel):
    response: str
    tools_used: list[str]
    steps: int
    request_id: str
    mode: Mode
    stop_reason: str


class CancelResponse(BaseModel):
    request_id: str
    cancelled: bool


class ErrorResponse(BaseModel):
    detail: str


class BodySizeLimit:
    """ASGI middleware: 413 for HTTP request bodies larger than ``max_bytes``.

    A declared ``Content-Length`` above the limit is refused before anything is read; otherwise the
    body is read (at most ``max_bytes`` of it) and handed to the app in one piece.
    """

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _reject(self, send: Any) -> None:
        body = json.dumps({"detail": f"request body exceeds {self.max_bytes} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Buffer an HTTP body (413 past ``max_bytes``) and replay it to the app as one message.

        Non-HTTP scopes pass straight through; a client gone mid-body gets no answer.
        """
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._reject(send)
                return
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 listing what is wrong, without echoing the input: a ``NaN`` or a lone surrogate in it
    could not be encoded as JSON (FastAPI's own handler answered 500 and reset the connection)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [
        {"type": str(error.get("type", "")),
         "loc": [part if isinstance(part, int) else encodable(str(part)) for part in error.get("loc", ())],
         "msg": encodable(str(error.get("msg", "")))}
        for error in errors
    ]
    return JSONResponse({"detail": detail}, status_code=422)


async def _cancel_on_disconnect(request: Request, token: CancelToken) -> None:
    """Wait for the client to go away (the body is read already, so the next ASGI message is the
    disconnect), then cancel the run."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            token.cancel(DISCONNECT_REASON)
            return


def create_app(
    registry: Any = None,
    llm: Any = None,
    *,
    max_steps: int = 5,
    tool_timeout: float | None = 12.0,
    allow_tools: bool = True,
    max_body_bytes: int = 64 * 1024,
    max_message_chars: int = 16_000,
    system_prompt: str = DIRECT_SYSTEM_PROMPT,
    request_timeout: float | None = None,
    state: RequestState | None = None,
    client_context_keys: Collection[str] | None = None,
    tool_context: Callable[[Request], Mapping[str, Any]] | None = None,
) -> FastAPI:
    """Build the service. ``registry`` defaults to ``TOOL_REGISTRY``; ``llm`` (any client accepted
    by the loop) defaults to :class:`~dispatchguard.agent.llm.OpenAICompatibleLLM` configured from
    the environment, which raises ``LLMConfigError`` here when it is not configured.
    ``request_timeout`` (seconds, ``None``: none) is each request's deadline: the run is cancelled
    and answered 504. ``state`` defaults to :func:`request_state_from_environment`.

    Injected tool arguments get their values per request: a client may send ``tool_context`` with
    the keys in ``client_context_keys`` (default: every injected key of the registry; ``()``
    refuses them all), and ``tool_context(request)`` (for example the user an authentication
    middleware found) supplies values that win over the client's. The model never sees them."""
    if request_timeout is not None and request_timeout <= 0:
        raise ValueError(f"request_timeout must be positive seconds or None, got {request_timeout!r}")
    if registry is None:
        from dispatchguard.runtime.registry import TOOL_REGISTRY

        registry = TOOL_REGISTRY
    if llm is None:
        from dispatchguard.agent.llm import OpenAICompatibleLLM

        llm = OpenAICompatibleLLM()
    requests = request_state_from_environment() if state is None else state
    allowed_keys = injected_keys(registry) if client_context_keys is None else frozenset(client_context_keys)
    # the keys as fields (aliases: a key need not be an identifier), so the OpenAPI document lists them
    fields: dict[str, Any] = {
        f"key_{i}": (ContextValue, Field(default=None, alias=key)) for i, key in enumerate(sorted(allowed_keys))
    }
    ToolContext = create_model("ToolContext", __config__=ConfigDict(extra="forbid"), **fields)

    class ChatRequest(BaseModel):
        model_config = ConfigDict(extra="forbid")

        message: str = Field(min_length=1, max_length=max_message_chars)
        mode: Mode = "chat"
        request_id: str | None = Field(
            default=None, pattern=REQUEST_ID_PATTERN,
            description="Choose it to be able to cancel the request; generated when absent.",
        )
        tool_context: ToolContext | None = Field(  # type: ignore[valid-type]
            default=None, description="Values of the tools' injected arguments (never shown to the model).",
        )

    def values_for(body: Any, request: Request) -> dict[str, Any]:
        values = {} if body.tool_context is None else body.tool_context.model_dump(by_alias=True, exclude_unset=True)
        if tool_context is not None:
            values.update(tool_context(request))
        return values

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await requests.start()
        try:
            yield
        finally:
            await requests.close()

    app = FastAPI(title="dispatchguard chat", version="1", lifespan=lifespan)
    app.add_middleware(BodySizeLimit, max_bytes=max_body_bytes)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.state.requests = requests
    app.state.active_requests = requests.local  # the requests running in this process
    errors: dict[int | str, dict[str, Any]] = {
        code: {"model": ErrorResponse} for code in (400, 409, 413, 502, 503, 504)
    }

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    async def answer(body: Any, request: Request, token: CancelToken) -> tuple[str, list[str], int, str]:
        if body.mode in AGENT_MODES and allow_tools and len(registry):
            result = await arun_tool_loop(
                llm, body.message, registry=registry, max_steps=max_steps, cancel=token,
                tool_timeout=tool_timeout, tool_context=values_for(body, request),
            )
            if result.stop_reason == "llm_error":
                log.warning("chat: the model failed: %s", result.response)
                raise HTTPException(502, encodable(_public(result.response)))
            return result.response, result.tools_used, result.steps, result.stop_reason
        messages = [{"role": "system", "content": system_prompt},
                    {"role": "user", "content": body.message}]
        try:
            with chat_span(llm):
                response = await until_cancelled(acomplete(llm, messages), token)
        except RunCancelled as cancelled:
            return f"Cancelled: {cancelled.reason}", [], 1, "cancelled"
        except Exception as exc:
            reason = str(exc) or type(exc).__name__
            log.warning("chat: the model could not be asked: %s", reason)
            raise HTTPException(502, encodable(f"the model could not be asked: {_public(reason)}")) from exc
        return response, [], 1, "cancelled" if token.cancelled else "answer"

    @app.post("/chat", response_model=ChatResponse, responses=errors)
    async def chat(body: ChatRequest, request: Request) -> ChatResponse:
        request_id = body.request_id or uuid.uuid4().hex
        token = CancelToken()
        try:
            claimed = await requests.claim(request_id, token)
        except StateUnavailable as exc:
            raise HTTPException(503, str(exc)) from exc
        if not claimed:
            raise HTTPException(409, f"request {request_id!r} is already running")
        watcher = asyncio.create_task(_cancel_on_disconnect(request, token))
        deadline = None if request_timeout is None else \
            asyncio.get_running_loop().call_later(request_timeout, token.cancel, DEADLINE_REASON)
        with server_span("POST", "/chat", request.headers) as span:
            try:
                response, tools_used, steps, stop_reason = await answer(body, request, token)
            except HTTPException as exc:
                span.status(exc.status_code)
                raise
            finally:
                watcher.cancel()
                if deadline is not None:
                    deadline.cancel()
                await requests.release(request_id)
            if stop_reason == "cancelled" and token.reason == DEADLINE_REASON:
                span.status(504)
                raise HTTPException(504, f"request {request_id!r} passed its deadline of {request_timeout:g}s")
            span.status(200)
        return ChatResponse(response=encodable(response), tools_used=tools_used, steps=steps,
                            request_id=request_id, mode=body.mode, stop_reason=stop_reason)

    @app.post(
        "/chat/{request_id}/cancel", response_model=CancelResponse, status_code=202,
        responses={code: {"model": ErrorResponse} for code in (404, 413, 503)},
    )
    async def cancel(request_id: str = Path(pattern=REQUEST_ID_PATTERN)) -> CancelResponse:
        try:
            found = await requests.cancel(request_id, "cancelled by the client")
        except StateUnavailable as exc:
            raise HTTPException(503, str(exc)) from exc
        if not found:
            raise HTTPException(404, f"no running request {request_id!r}")
        return CancelResponse(request_id=request_id, cancelled=True)

    return app
