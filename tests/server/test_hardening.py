"""The service on a real uvicorn: bad bodies are 4xx on a connection that stays open, cancel and
client disconnects abort a model call in flight, the per-request deadline is 504."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

from dispatchguard.agent.testing import ScriptedReply
from dispatchguard.server import create_app

BAD_BODIES = [
    b'{"message": NaN}',
    b'{"message": Infinity}',
    b'{"message": -Infinity, "mode": NaN}',
    b'{"message": "\\ud800"}',  # a lone surrogate: not Unicode text
    b'{"message": "ok", "request_id": "\\udfff"}',
    b'{"message": "ok", "extra": NaN}',
    b'{"message": 1e999}',
    b"\xff\xfe\x00",
    b"[" * 20_000,  # nesting deeper than the JSON parser's recursion limit
    b"null",
    b'"text"',
    b"",
    b'{"message": "ok"',
]


def local_port(response: httpx.Response) -> int:
    return response.extensions["network_stream"].get_extra_info("client_addr")[1]


class Hang:
    """A script entry that answers only when released (or after 10 s)."""

    def __init__(self) -> None:
        self.released = threading.Event()
        self.started = threading.Event()
        self.released_by_test: bool | None = None

    def __call__(self, body):
        self.started.set()
        self.released_by_test = self.released.wait(10)
        return "too late"


def wait_for(predicate, seconds=10):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.01)


def test_bad_bodies_are_4xx_and_keep_the_connection(registry, llm, llm_server, serve):
    llm_server.set_script([], default="fine")
    base = serve(create_app(registry, llm))
    with httpx.Client(base_url=base) as client:
        first = client.post("/chat", json={"message": "hi"})
        assert first.status_code == 200
        port = local_port(first)
        for body in BAD_BODIES:
            response = client.post("/chat", content=body, headers={"content-type": "application/json"})
            assert 400 <= response.status_code < 500, (body[:30], response.status_code, response.text)
            assert "detail" in response.json()
            assert local_port(response) == port, f"connection reset after {body[:30]!r}"
        assert client.post("/chat", json={"message": "again"}).json()["response"] == "fine"
        assert local_port(first) == port


def test_validation_errors_name_the_field_without_echoing_the_input(registry, llm, serve):
    base = serve(create_app(registry, llm))
    response = httpx.post(f"{base}/chat", content=b'{"message": NaN, "mode": "\\ud800"}',
                          headers={"content-type": "application/json"})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert {tuple(error["loc"]) for error in detail} == {("body", "message"), ("body", "mode")}
    assert all(set(error) == {"type", "loc", "msg"} for error in detail)


def test_a_model_answer_that_is_not_unicode_is_repaired(registry, llm, llm_server, serve):
    body = {"choices": [{"message": {"role": "assistant", "content": "a\ud800b"}}]}
    llm_server.set_script([ScriptedReply(body=json.dumps(body))])
    response = httpx.post(f"{serve(create_app(registry, llm))}/chat", json={"message": "hi"})
    assert response.status_code == 200 and response.json()["response"] == "a\ufffdb"


@pytest.mark.parametrize("mode", ["chat", "agent"])
def test_cancel_aborts_a_model_call_in_flight(mode, registry, llm, llm_server, serve):
    hang = Hang()
    llm_server.set_script([hang])
    app = create_app(registry, llm)
    base = serve(app)
    results = {}

    def chat():
        results["chat"] = httpx.post(f"{base}/chat", json={"message": "hi", "mode": mode, "request_id": "h1"},
                                     timeout=30)

    thread = threading.Thread(target=chat)
    thread.start()
    assert hang.started.wait(10)
    assert httpx.post(f"{base}/chat/h1/cancel").status_code == 202
    thread.join(30)
    hang.released.set()
    body = results["chat"].json()
    assert results["chat"].status_code == 200
    assert (body["stop_reason"], body["response"]) == ("cancelled", "Cancelled: cancelled by the client")
    assert app.state.active_requests == {}
    wait_for(lambda: hang.released_by_test is not None)
    assert hang.released_by_test is True  # the answer came while the model call still hung


def test_a_client_disconnect_cancels_the_run_and_frees_its_id(registry, llm, llm_server, serve):
    hang = Hang()
    llm_server.set_script([hang, "second run"])
    app = create_app(registry, llm)
    base = serve(app)
    host, port = base.removeprefix("http://").split(":")
    body = json.dumps({"message": "hi", "mode": "agent", "request_id": "gone"}).encode()
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        assert hang.started.wait(10)
        assert "gone" in app.state.active_requests
    wait_for(lambda: "gone" not in app.state.active_requests)
    again = httpx.post(f"{base}/chat", json={"message": "hi", "request_id": "gone"})
    hang.released.set()
    assert again.status_code == 200 and again.json()["response"] == "second run"
    wait_for(lambda: hang.released_by_test is not None)
    assert hang.released_by_test is True


@pytest.mark.parametrize("mode", ["chat", "agent"])
def test_the_request_deadline_is_504(mode, registry, llm, llm_server, serve):
    hang = Hang()
    llm_server.set_script([hang])
    app = create_app(registry, llm, request_timeout=0.3)
    response = httpx.post(f"{serve(app)}/chat", json={"message": "hi", "mode": mode, "request_id": "slow"},
                          timeout=30)
    hang.released.set()
    assert response.status_code == 504 and "deadline of 0.3s" in response.json()["detail"]
    assert app.state.active_requests == {}


def test_bad_settings_are_refused(registry, llm):
    with pytest.raises(ValueError, match="request_timeout"):
        create_app(registry, llm, request_timeout=0)
