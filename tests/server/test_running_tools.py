"""/chat and running tools: a deadline or a cancel does not wait for a running sync tool, and
per-request values reach the tools' injected arguments (validated, never shown to the model). A
real scripted model server and uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
import time
from typing import Annotated

import httpx
import pytest

from dispatchguard import InjectedArg, ToolRegistry
from dispatchguard.server import create_app


def test_the_deadline_does_not_wait_for_a_running_sync_tool(registry, llm, llm_server, serve):
    llm_server.set_script([json.dumps({"name": "slow", "args": {"seconds": 3.5}})], default="done")
    app = create_app(registry, llm, request_timeout=0.5, tool_timeout=12)
    started = time.monotonic()
    response = httpx.post(f"{serve(app)}/chat", json={"message": "go", "mode": "agent"}, timeout=30)
    waited = time.monotonic() - started
    assert response.status_code == 504
    assert waited < 2.5  # the deadline, not the tool's 3 s


def test_a_cancel_does_not_wait_for_a_running_sync_tool(registry, llm, llm_server, serve, tool_started):
    import threading

    llm_server.set_script([json.dumps({"name": "slow", "args": {"seconds": 3.5}})], default="done")
    app = create_app(registry, llm, tool_timeout=12)
    base = serve(app)
    answer = {}

    def chat():
        started = time.monotonic()
        answer["response"] = httpx.post(f"{base}/chat", json={"message": "go", "mode": "agent",
                                                              "request_id": "c9"}, timeout=30)
        answer["waited"] = time.monotonic() - started

    thread = threading.Thread(target=chat)
    thread.start()
    assert tool_started.wait(10)  # the tool is running now
    assert httpx.post(f"{base}/chat/c9/cancel").status_code == 202
    thread.join(30)
    assert answer["response"].json()["stop_reason"] == "cancelled"
    assert answer["waited"] < 2.5  # not the tool's 3 s


@pytest.fixture
def injected_registry():
    reg = ToolRegistry()

    @reg.tool()
    def orders(status: str, user_id: Annotated[str, InjectedArg()]) -> list[str]:
        """The user's orders with a status."""
        return [f"{user_id}:{status}"]

    return reg


def test_chat_passes_per_request_values_of_injected_arguments(injected_registry, llm, llm_server, serve):
    llm_server.set_script([json.dumps({"name": "orders", "args": {"status": "open", "user_id": "evil"}}),
                           "Here they are."])
    base = serve(create_app(injected_registry, llm))
    response = httpx.post(f"{base}/chat", json={"message": "my orders", "mode": "agent",
                                                "tool_context": {"user_id": "u-42"}})
    assert response.status_code == 200, response.text
    first, second = llm_server.requests
    assert "u-42" not in json.dumps(first)  # the value is not shown to the model
    assert "u-42:open" in json.dumps(second)  # the tool got it
    assert "user_id" not in json.dumps(first)  # nor the argument


@pytest.mark.parametrize("tool_context", [{"tenant": "x"}, {"user_id": {"nested": True}}, {"user_id": "x" * 5000},
                                          ["user_id"]])
def test_per_request_values_are_validated(injected_registry, llm, serve, tool_context):
    base = serve(create_app(injected_registry, llm))
    response = httpx.post(f"{base}/chat", json={"message": "hi", "mode": "agent", "tool_context": tool_context})
    assert response.status_code == 422
    assert "x" * 50 not in response.text  # the input is never echoed


def test_the_application_can_set_injected_values_the_client_cannot(injected_registry, llm, llm_server, serve):
    llm_server.set_script([json.dumps({"name": "orders", "args": {"status": "open"}}), "ok"])
    app = create_app(injected_registry, llm, client_context_keys=(),
                     tool_context=lambda request: {"user_id": request.headers["x-user"]})
    base = serve(app)
    refused = httpx.post(f"{base}/chat", json={"message": "hi", "mode": "agent", "tool_context": {"user_id": "evil"}})
    assert refused.status_code == 422
    response = httpx.post(f"{base}/chat", json={"message": "hi", "mode": "agent"}, headers={"x-user": "u-7"})
    assert response.status_code == 200
    assert "u-7:open" in json.dumps(llm_server.requests[-1])
