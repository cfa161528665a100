"""Shared clients, settings (code and environment) and the requests-cache compatibility session."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time

import httpx
import pytest
from werkzeug import Response

from dispatchguard import http
from dispatchguard.http import HttpSettings, settings_from_env
from dispatchguard.http.clients import _close_async_client


def test_client_defaults_follow_settings():
    http.configure(connect_timeout=1.5, read_timeout=7, max_connections=3, user_agent="ua/1")
    client = http.get_client()
    assert client.timeout == httpx.Timeout(connect=1.5, read=7, write=30.0, pool=5.0)
    assert client.headers["User-Agent"] == "ua/1"
    assert client.follow_redirects is True


def test_get_client_is_shared_and_created_once_across_threads():
    seen, barrier = [], threading.Barrier(16)

    def grab():
        barrier.wait()
        seen.append(http.get_client())

    threads = [threading.Thread(target=grab) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(client) for client in seen}) == 1


def test_configure_rebuilds_and_reset_closes():
    old = http.get_client()
    http.configure(read_timeout=3)
    assert old.is_closed
    new = http.get_client()
    assert new is not old and new.timeout.read == 3
    new.close()
    assert http.get_client() is not new  # a closed shared client is replaced
    with pytest.raises(TypeError, match="unknown HTTP setting"):
        http.configure(retries=3)


def test_async_client_is_per_event_loop_and_adopts_an_unbound_one():
    unbound = http.get_async_client()  # no running loop
    assert http.get_async_client() is unbound

    async def grab():
        return http.get_async_client(), http.get_async_client()

    loop = asyncio.new_event_loop()
    try:
        first, again = loop.run_until_complete(grab())
        assert first is again is unbound
        other_loop_client, _ = asyncio.run(grab())
        assert other_loop_client is not first
        http.reset_clients()  # closes the not-running loop's client on its loop
        assert first.is_closed
    finally:
        loop.close()


def test_close_async_client_on_running_closed_and_no_loop():
    async def on_running_loop():
        client = httpx.AsyncClient()
        loop = asyncio.get_running_loop()
        await asyncio.to_thread(_close_async_client, loop, client)
        for _ in range(5):
            await asyncio.sleep(0.01)
        return client

    assert asyncio.run(on_running_loop()).is_closed

    closed_loop = asyncio.new_event_loop()
    closed_loop.close()
    client = httpx.AsyncClient()
    _close_async_client(closed_loop, client)  # nothing to await on: dropped
    _close_async_client(None, client)
    assert client.is_closed
    _close_async_client(None, client)  # already closed: no-op


def test_aclose_clients_closes_the_loops_clients():
    sync_client = http.get_client()

    async def main():
        client = http.get_async_client()
        await http.aclose_clients()
        return client

    assert asyncio.run(main()).is_closed and sync_client.is_closed


def test_settings_from_env(monkeypatch):
    env = {
        "DISPATCHGUARD_HTTP_READ_TIMEOUT": "2.5",
        "DISPATCHGUARD_HTTP_MAX_ATTEMPTS": "7",
        "DISPATCHGUARD_HTTP_FOLLOW_REDIRECTS": "off",
        "DISPATCHGUARD_HTTP_USER_AGENT": "bot/2",
        "DISPATCHGUARD_HTTP_CACHE_PATH": "~/dg.sqlite",
        "UNRELATED": "x",
    }
    s = settings_from_env(env)
    assert (s.read_timeout, s.max_attempts, s.follow_redirects, s.user_agent) == (2.5, 7, False, "bot/2")
    assert s.cache_path is not None and s.cache_path.endswith("dg.sqlite") and "~" not in s.cache_path
    assert settings_from_env({"DISPATCHGUARD_HTTP_CACHE_PATH": ""}).cache_path is None
    assert settings_from_env({"DISPATCHGUARD_HTTP_FOLLOW_REDIRECTS": "YES"}).follow_redirects is True
    assert settings_from_env({}) == HttpSettings()
    with pytest.raises(ValueError, match="DISPATCHGUARD_HTTP_MAX_ATTEMPTS='many'"):
        settings_from_env({"DISPATCHGUARD_HTTP_MAX_ATTEMPTS": "many"})
    with pytest.raises(ValueError, match="DISPATCHGUARD_HTTP_FOLLOW_REDIRECTS"):
        settings_from_env({"DISPATCHGUARD_HTTP_FOLLOW_REDIRECTS": "maybe"})
    monkeypatch.setenv("DISPATCHGUARD_HTTP_READ_TIMEOUT", "9")
    http.reset_clients(reset_settings=True)
    assert http.get_settings().read_timeout == 9
    assert http.get_client().timeout.read == 9
    # the environment is read again only there: configure's overrides are dropped with it
    http.configure(read_timeout=3, max_attempts=2)
    monkeypatch.setenv("DISPATCHGUARD_HTTP_READ_TIMEOUT", "8")
    assert http.get_settings().read_timeout == 3
    http.reset_clients(reset_settings=True)
    assert (http.get_settings().read_timeout, http.get_settings().max_attempts) == (8, HttpSettings().max_attempts)


# -- requests_session ------------------------------------------------------------------------------


def test_requests_session_retries_caches_and_caps_retry_after(server):
    server.expect_ordered_request("/r").respond_with_data("", status=503, headers={"Retry-After": "60"})
    server.expect_ordered_request("/r").respond_with_json({"ok": 1})
    http.configure(retry_after_cap=0.2)
    session = http.requests_session(ttl=60)
    try:
        start = time.monotonic()
        first = session.get(server.url_for("/r"))
        assert first.json() == {"ok": 1} and not first.from_cache
        assert time.monotonic() - start < 2
        second = session.get(server.url_for("/r"))
        assert second.json() == {"ok": 1} and second.from_cache
        assert session.headers["User-Agent"] == http.get_settings().user_agent
    finally:
        session.close()
    assert len(server.log) == 2


def test_requests_session_sqlite_and_timeout(server, tmp_path):
    import requests

    http.configure(read_timeout=0.2, max_attempts=1)
    server.expect_request("/slow").respond_with_handler(lambda request: (time.sleep(0.5), Response("late"))[1])
    session = http.requests_session(cache_path=str(tmp_path / "rc"), settings=http.get_settings())
    try:
        assert session.cache.__class__.__name__ == "SQLiteCache"
        with pytest.raises(requests.exceptions.RequestException, match="timed out"):
            session.get(server.url_for("/slow"))
    finally:
        session.close()


def test_requests_session_without_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "requests_cache", None)
    with pytest.raises(ImportError, match=r"pip install dispatchguard\[requests\]"):
        http.requests_session()


@pytest.mark.integration
def test_loop_clients_are_closed_when_asyncio_run_ends():
    """A user's own asyncio.run: the client made for that loop is closed on that loop before it
    ends, so no connection is left to die with it (ResourceWarning: unclosed transport)."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import asyncio, gc, json, threading, warnings
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        warnings.simplefilter("always", ResourceWarning)
        from dispatchguard import http

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                body = json.dumps({"ok": True}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/"

        async def main():
            client = http.get_async_client()
            assert (await http.aget_json(url, cache=False)) == {"ok": True}
            return client

        clients = [asyncio.run(main()) for _ in range(3)]
        gc.collect()
        print(json.dumps([c.is_closed for c in clients]))
        server.shutdown()
        server.server_close()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, True, True]
    assert "unclosed" not in done.stderr, done.stderr
