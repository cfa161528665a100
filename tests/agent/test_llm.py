"""The model-client protocol and OpenAICompatibleLLM against the scripted model server."""

from __future__ import annotations

import asyncio
import json

import pytest

from dispatchguard.agent.llm import (
    AsyncLLMClient,
    LLMClient,
    LLMConfigError,
    LLMError,
    OpenAICompatibleLLM,
    acomplete,
)
from dispatchguard.agent.testing import ScriptedReply

MESSAGES = [{"role": "user", "content": "hi"}]
ENV = [
    "DISPATCHGUARD_LLM_BASE_URL", "DISPATCHGUARD_LLM_MODEL", "DISPATCHGUARD_LLM_API_KEY",
    "OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY",
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def test_settings_come_from_arguments_first(monkeypatch):
    monkeypatch.setenv("DISPATCHGUARD_LLM_MODEL", "env-model")
    llm = OpenAICompatibleLLM("http://h:1/v1", "arg-model", "k")
    assert (llm.url, llm.model, llm.api_key) == ("http://h:1/v1/chat/completions", "arg-model", "k")


def test_settings_come_from_dispatchguard_env_then_openai_env(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.org/v1/")
    monkeypatch.setenv("OPENAI_MODEL", "gpt")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    llm = OpenAICompatibleLLM()
    assert (llm.base_url, llm.model, llm.api_key) == ("https://api.example.org/v1", "gpt", "sk-openai")
    monkeypatch.setenv("DISPATCHGUARD_LLM_BASE_URL", "http://127.0.0.1:11434")
    monkeypatch.setenv("DISPATCHGUARD_LLM_MODEL", "llama3")
    monkeypatch.setenv("DISPATCHGUARD_LLM_API_KEY", "dg-key")
    llm = OpenAICompatibleLLM()
    # a base URL without a path gets /v1
    assert (llm.url, llm.model, llm.api_key) == (
        "http://127.0.0.1:11434/v1/chat/completions", "llama3", "dg-key",
    )
    assert "dg-key" not in repr(llm) and "llama3" in repr(llm)


def test_missing_or_bad_settings_are_clear_errors(monkeypatch):
    with pytest.raises(LLMConfigError, match="DISPATCHGUARD_LLM_BASE_URL"):
        OpenAICompatibleLLM(model="m")
    with pytest.raises(LLMConfigError, match="DISPATCHGUARD_LLM_MODEL"):
        OpenAICompatibleLLM("http://h/v1")
    with pytest.raises(LLMConfigError, match="http"):
        OpenAICompatibleLLM("ftp://h/v1", "m")
    with pytest.raises(ValueError):  # LLMConfigError is a ValueError too
        OpenAICompatibleLLM("localhost:8000", "m")


def test_complete_posts_an_openai_request(llm_server):
    llm_server.set_script(["Hello!"])
    llm = OpenAICompatibleLLM(llm_server.base_url, "m1", "secret", max_tokens=64,
                              extra_body={"top_p": 0.5})
    assert llm.complete(MESSAGES) == "Hello!"
    (body,) = llm_server.requests
    assert body == {"model": "m1", "messages": MESSAGES, "temperature": 0.0, "max_tokens": 64,
                    "top_p": 0.5}
    assert llm_server.headers[0]["authorization"] == "Bearer secret"


def test_no_key_no_authorization_header_and_no_temperature(llm_server):
    llm_server.set_script(["ok"])
    llm = OpenAICompatibleLLM(llm_server.base_url, "m", temperature=None)
    assert asyncio.run(llm.acomplete(MESSAGES)) == "ok"
    assert "authorization" not in llm_server.headers[0]
    assert "temperature" not in llm_server.requests[0]


@pytest.mark.parametrize("method", ["complete", "acomplete"])
def test_error_status_is_an_llm_error_with_the_status(llm_server, method):
    llm_server.set_script([ScriptedReply(status=401, body='{"error": {"message": "bad key"}}')])
    llm = OpenAICompatibleLLM(llm_server.base_url, "m")
    with pytest.raises(LLMError, match="model request failed") as info:
        result = getattr(llm, method)(MESSAGES)
        if method == "acomplete":
            asyncio.run(result)
    assert info.value.status == 401


@pytest.mark.parametrize(
    ("body", "message"),
    [("<html>", "not JSON"), ('{"choices": []}', "without choices"), ('{"x": 1}', "without choices")],
)
def test_unreadable_answers_are_llm_errors(llm_server, body, message):
    llm_server.set_script([ScriptedReply(body=body)])
    with pytest.raises(LLMError, match=message):
        OpenAICompatibleLLM(llm_server.base_url, "m").complete(MESSAGES)


def test_null_content_is_an_empty_answer(llm_server):
    body = {"choices": [{"message": {"role": "assistant", "content": None}}]}
    llm_server.set_script([ScriptedReply(body=json.dumps(body))])
    assert OpenAICompatibleLLM(llm_server.base_url, "m").complete(MESSAGES) == ""


class SyncClient:
    def complete(self, messages):
        return f"sync:{messages[-1]['content']}"


class AsyncClient:
    async def acomplete(self, messages):
        return "async"


class AsyncComplete:
    async def complete(self, messages):
        return "async complete"


def test_acomplete_accepts_every_client_shape():
    assert isinstance(SyncClient(), LLMClient) and isinstance(AsyncClient(), AsyncLLMClient)
    assert asyncio.run(acomplete(SyncClient(), MESSAGES)) == "sync:hi"
    assert asyncio.run(acomplete(AsyncClient(), MESSAGES)) == "async"
    assert asyncio.run(acomplete(AsyncComplete(), MESSAGES)) == "async complete"
    assert asyncio.run(acomplete(lambda messages: "fn", MESSAGES)) == "fn"

    async def coroutine_fn(messages):
        return "coro"

    assert asyncio.run(acomplete(coroutine_fn, MESSAGES)) == "coro"


def test_acomplete_rejects_bad_clients_and_answers():
    with pytest.raises(LLMConfigError, match="complete"):
        asyncio.run(acomplete(42, MESSAGES))
    with pytest.raises(LLMError, match="returned dict, expected str"):
        asyncio.run(acomplete(lambda messages: {"content": "x"}, MESSAGES))


def test_scripted_server_routes_and_errors(llm_server):
    import httpx

    base = llm_server.base_url
    assert httpx.get(f"{base}/models").json()["data"][0]["id"] == "scripted"
    assert httpx.get(f"{base}/nothing").status_code == 404
    assert httpx.post(f"{base}/nothing", json={}).status_code == 404
    assert httpx.post(f"{base}/chat/completions", content=b"{").status_code == 400
    exhausted = httpx.post(f"{base}/chat/completions", json={"messages": []})
    assert exhausted.status_code == 500 and "script exhausted" in exhausted.text
    llm_server.set_script([lambda body: ScriptedReply(content="late", delay=0.05)], default="again")
    assert llm_server.remaining == 1
    llm = OpenAICompatibleLLM(base, "m")
    assert [llm.complete(MESSAGES), llm.complete(MESSAGES)] == ["late", "again"]
