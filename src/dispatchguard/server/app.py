"""The optional ``/chat`` service (extra ``dispatchguard[server]``: FastAPI and uvicorn).

- ``POST /chat`` ``{"message", "mode", "request_id"?}`` -> ``{"response", "tools_used", "steps",
  "request_id", "mode", "stop_reason"}``. Modes ``agent`` and ``work`` run the agent loop
  (:func:`dispatchguard.agent.arun_tool_loop`) when tools are allowed (``allow_tools`` and a
  non-empty registry); other modes, or those two without tools, ask the model directly.
- ``POST /chat/{request_id}/cancel`` cancels a running request between steps (a client that
  wants to cancel sends its own ``request_id``; otherwise one is generated and returned).
- ``GET /healthz``.

Limits: a request body above ``max_body_bytes`` is answered 413 before it is parsed (declared
``Content-Length`` or bytes actually received); a message above ``max_message_chars`` is 422. A
model that cannot be reached is 502; a ``request_id`` already running is 409.
"""

# No "from __future__ import annotations": FastAPI reads the handlers' annotations at run time, and
# ChatRequest is local to create_app (its limits come from the arguments).
import json
import uuid
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Path
from pydantic import BaseModel, ConfigDict, Field

from dispatchguard.agent.execute import CancelToken
from dispatchguard.agent.llm import acomplete
from dispatchguard.agent.loop import arun_tool_loop

__all__ = ["AGENT_MODES", "BodySizeLimit", "create_app"]

AGENT_MODES = frozenset({"agent", "work"})
Mode = Literal["chat", "agent", "work"]
REQUEST_ID_PATTERN = r"^[A-Za-z0-9._-]{1,64}$"
DIRECT_SYSTEM_PROMPT = "You are a helpful assistant. Answer the user's message directly."


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
) -> FastAPI:
    """Build the service. ``registry`` defaults to ``TOOL_REGISTRY``; ``llm`` (any client accepted
    by the loop) defaults to :class:`~dispatchguard.agent.llm.OpenAICompatibleLLM` configured from
    the environment, which raises ``LLMConfigError`` here when it is not configured."""
    if registry is None:
        from dispatchguard.runtime.registry import TOOL_REGISTRY

        registry = TOOL_REGISTRY
    if llm is None:
        from dispatchguard.agent.llm import OpenAICompatibleLLM

        llm = OpenAICompatibleLLM()

    class ChatRequest(BaseModel):
        model_config = ConfigDict(extra="forbid")

        message: str = Field(min_length=1, max_length=max_message_chars)
        mode: Mode = "chat"
        request_id: str | None = Field(
            default=None, pattern=REQUEST_ID_PATTERN,
            description="Choose it to be able to cancel the request; generated when absent.",
        )

    app = FastAPI(title="dispatchguard chat", version="1")
    app.add_middleware(BodySizeLimit, max_bytes=max_body_bytes)
    active: dict[str, CancelToken] = {}
    app.state.active_requests = active
    errors: dict[int | str, dict[str, Any]] = {
        code: {"model": ErrorResponse} for code in (409, 413, 502)
    }

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/chat", response_model=ChatResponse, responses=errors)
    async def chat(body: ChatRequest) -> ChatResponse:
        request_id = body.request_id or uuid.uuid4().hex
        if request_id in active:
            raise HTTPException(409, f"request {request_id!r} is already running")
        token = active[request_id] = CancelToken()
        try:
            if body.mode in AGENT_MODES and allow_tools and len(registry):
                result = await arun_tool_loop(
                    llm, body.message, registry=registry, max_steps=max_steps, cancel=token,
                    tool_timeout=tool_timeout,
                )
                if result.stop_reason == "llm_error":
                    raise HTTPException(502, result.response)
                response, tools_used = result.response, result.tools_used
                steps, stop_reason = result.steps, result.stop_reason
            else:
                messages = [{"role": "system", "content": system_prompt},
                            {"role": "user", "content": body.message}]
                try:
                    response = await acomplete(llm, messages)
                except Exception as exc:
                    reason = str(exc) or type(exc).__name__
                    raise HTTPException(502, f"the model could not be asked: {reason}") from exc
                tools_used, steps = [], 1
                stop_reason = "cancelled" if token.cancelled else "answer"
        finally:
            del active[request_id]
        return ChatResponse(response=response, tools_used=tools_used, steps=steps,
                            request_id=request_id, mode=body.mode, stop_reason=stop_reason)

    @app.post(
        "/chat/{request_id}/cancel", response_model=CancelResponse, status_code=202,
        responses={404: {"model": ErrorResponse}, 413: {"model": ErrorResponse}},
    )
    async def cancel(request_id: str = Path(pattern=REQUEST_ID_PATTERN)) -> CancelResponse:
        token = active.get(request_id)
        if token is None:
            raise HTTPException(404, f"no running request {request_id!r}")
        token.cancel("cancelled by the client")
        return CancelResponse(request_id=request_id, cancelled=True)

    return app
