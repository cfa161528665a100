"""The /chat service: modes, limits, errors and cancellation, against the scripted model server."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from dispatchguard.agent.testing import ScriptedReply
from dispatchguard.server import BodySizeLimit, create_app


def tool_call(name, **args):
    return json.dumps({"name": name, "args": args})


@pytest.fixture
def client(registry, llm):
    with TestClient(create_app(registry, llm, tool_timeout=0.5)) as client:
        yield client


def test_chat_mode_answers_directly(client, llm_server):
    llm_server.set_script(["Hello there."])
    response = client.post("/chat", json={"message": "hi"})
    assert response.status_code == 200
    body = response.json()
    assert body["response"] == "Hello there." and body["tools_used"] == [] and body["steps"] == 1
    assert body["mode"] == "chat" and body["stop_reason"] == "answer" and len(body["request_id"]) == 32
    (request,) = llm_server.requests
    assert request["messages"][-1] == {"role": "user", "content": "hi"}
    assert "add" not in request["messages"][0]["content"]  # no tool prompt


@pytest.mark.parametrize("mode", ["agent", "work"])
def test_agent_and_work_modes_use_the_loop(client, llm_server, mode):
    llm_server.set_script([tool_call("add", a=20, b=22), "It is 42."])
    response = client.post("/chat", json={"message": "20 + 22?", "mode": mode, "request_id": "r-1"})
    assert response.status_code == 200
    assert response.json() == {
        "response": "It is 42.\n\nSources: [source:add]", "tools_used": ["add"], "steps": 2,
        "request_id": "r-1", "mode": mode, "stop_reason": "answer",
    }
    assert llm_server.requests[1]["messages"][-1]["content"] == "Tool 1 [add]: 42"


@pytest.mark.parametrize("kwargs", [{"allow_tools": False}, {"registry": "empty"}])
def test_agent_mode_without_tools_answers_directly(llm, llm_server, registry, kwargs):
    from dispatchguard import ToolRegistry

    if kwargs.get("registry") == "empty":
        kwargs = {"registry": ToolRegistry()}
    else:
        kwargs["registry"] = registry
    llm_server.set_script(["Direct."])
    with TestClient(create_app(llm=llm, **kwargs)) as client:
        body = client.post("/chat", json={"message": "hi", "mode": "agent"}).json()
    assert (body["response"], body["steps"], body["tools_used"]) == ("Direct.", 1, [])
    assert len(llm_server.requests[0]["messages"]) == 2


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"message": ""},
        {"message": "x" * 101},
        {"message": "hi", "mode": "shell"},
        {"message": "hi", "extra": 1},
        {"message": "hi", "request_id": "../etc"},
        {"message": 5},
    ],
)
def test_invalid_requests_are_422(registry, llm, payload):
    with TestClient(create_app(registry, llm, max_message_chars=100)) as client:
        assert client.post("/chat", json=payload).status_code == 422


def test_oversized_bodies_are_413(registry, llm, llm_server):
    app = create_app(registry, llm, max_body_bytes=200)
    with TestClient(app) as client:
        big = client.post("/chat", json={"message": "x" * 300})
        assert big.status_code == 413 and "200 bytes" in big.json()["detail"]

        def chunks():  # no Content-Length: the bytes received are counted
            yield b'{"message": "'
            yield b"y" * 300
            yield b'"}'

        streamed = client.post("/chat", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413
        assert client.get("/healthz").json() == {"status": "ok"}
    assert llm_server.requests == []


def test_body_limit_middleware_passes_other_scopes_and_stops_on_disconnect():
    import asyncio

    called, sent = [], []

    async def app(scope, receive, send):
        called.append(scope["type"])

    async def disconnect():
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    limit = BodySizeLimit(app, 10)
    asyncio.run(limit({"type": "lifespan"}, disconnect, send))
    asyncio.run(limit({"type": "http", "headers": []}, disconnect, send))
    assert called == ["lifespan"] and sent == []


def test_the_app_reads_the_body_once_then_sees_the_client_stream():
    import asyncio

    seen = []
    incoming = [{"type": "http.request", "body": b"ab", "more_body": True},
                {"type": "http.request", "body": b"c", "more_body": False},
                {"type": "http.disconnect"}]

    async def receive():
        return incoming.pop(0)

    async def app(scope, receive, send):
        seen.extend([await receive(), await receive()])

    async def send(message):
        pass

    asyncio.run(BodySizeLimit(app, 10)({"type": "http", "headers": []}, receive, send))
    assert seen == [{"type": "http.request", "body": b"abc", "more_body": False},
                    {"type": "http.disconnect"}]


@pytest.mark.parametrize("mode", ["chat", "agent"])
def test_model_failures_are_502(client, llm_server, mode):
    llm_server.set_script([ScriptedReply(status=400, body='{"error": {"message": "no such model"}}')])
    response = client.post("/chat", json={"message": "hi", "mode": mode})
    assert response.status_code == 502
    detail = response.json()["detail"]
    assert "400" in detail
    # the internal model endpoint stays internal (red-team finding, issue 23)
    assert llm_server.base_url not in detail and "127.0.0.1" not in detail and "<the model endpoint>" in detail


def test_cancel_unknown_request_is_404(client):
    assert client.post("/chat/nope/cancel").status_code == 404
    assert client.post("/chat/bad%20id/cancel").status_code == 422


def test_cancel_mid_run_and_duplicate_ids_on_a_real_server(registry, llm, llm_server, serve, tool_started):
    # the duplicate and the cancel come while the tool runs (an event, not a timer); the tool would run
    # 3 s and its timeout is longer: only the cancel ends the request before the model is asked again
    app = create_app(registry, llm, tool_timeout=12)
    base = serve(app)
    llm_server.set_script([tool_call("slow", seconds=3), "never asked"])
    results = {}

    def chat():
        results["chat"] = httpx.post(
            f"{base}/chat", json={"message": "go", "mode": "agent", "request_id": "job-7"}, timeout=10
        )

    thread = threading.Thread(target=chat)
    thread.start()
    assert tool_started.wait(10)
    duplicate = httpx.post(f"{base}/chat", json={"message": "go", "request_id": "job-7"})
    assert duplicate.status_code == 409
    cancel = httpx.post(f"{base}/chat/job-7/cancel")
    assert cancel.status_code == 202 and cancel.json() == {"request_id": "job-7", "cancelled": True}
    thread.join(10)
    body = results["chat"].json()
    assert body["stop_reason"] == "cancelled" and body["response"].startswith("Cancelled")
    assert len(llm_server.requests) == 1 and app.state.active_requests == {}


def test_direct_mode_cancelled_during_the_model_call(registry, llm, llm_server, serve):
    app = create_app(registry, llm)
    base = serve(app)
    llm_server.set_script([ScriptedReply(content="late answer", delay=0.4)])
    results = {}

    def chat():
        results["chat"] = httpx.post(f"{base}/chat", json={"message": "hi", "request_id": "d1"})

    thread = threading.Thread(target=chat)
    thread.start()
    deadline = time.monotonic() + 5
    while "d1" not in app.state.active_requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert httpx.post(f"{base}/chat/d1/cancel").status_code == 202
    thread.join(10)
    assert results["chat"].json()["stop_reason"] == "cancelled"


def test_default_llm_comes_from_the_environment(monkeypatch, registry, llm_server):
    from dispatchguard.agent import LLMConfigError

    for name in ("DISPATCHGUARD_LLM_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LLMConfigError):
        create_app(registry)
    monkeypatch.setenv("DISPATCHGUARD_LLM_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("DISPATCHGUARD_LLM_MODEL", "env-model")
    llm_server.set_script(["from env"])
    with TestClient(create_app()) as client:
        assert client.post("/chat", json={"message": "hi"}).json()["response"] == "from env"
    assert llm_server.requests[0]["model"] == "env-model"
