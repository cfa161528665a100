"""The retry policy against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import email.utils
import logging
import time

import httpx
import pytest
from werkzeug import Response

from dispatchguard import http
from dispatchguard.http import (
    ATTEMPTS_EXTENSION,
    HttpError,
    HttpStatusError,
    HttpTimeoutError,
    HttpTransportError,
    ResponseTooLarge,
    parse_retry_after,
)


def hits(server, path: str) -> int:
    return sum(1 for request, _ in server.log if request.path == path)


def test_transient_5xx_then_success_counts_attempts(server, caplog):
    server.expect_ordered_request("/flaky").respond_with_data("down", status=503)
    server.expect_ordered_request("/flaky").respond_with_data("bad gateway", status=502)
    server.expect_ordered_request("/flaky").respond_with_json({"ok": True})
    with caplog.at_level(logging.WARNING, logger="dispatchguard.http"):
        response = http.request("GET", server.url_for("/flaky"))
    assert response.json() == {"ok": True}
    assert response.extensions[ATTEMPTS_EXTENSION] == 3
    assert hits(server, "/flaky") == 3
    reasons = [r.getMessage() for r in caplog.records]
    assert len(reasons) == 2
    assert "attempt 1 of 3 failed: HTTP 503" in reasons[0]
    assert "attempt 2 of 3 failed: HTTP 502" in reasons[1]


def test_retries_run_out_with_status_and_attempts(server):
    server.expect_request("/down").respond_with_data("gateway timeout", status=504)
    with pytest.raises(HttpStatusError) as info:
        http.request("GET", server.url_for("/down"))
    error = info.value
    assert error.status == 504 and error.attempts == 3 and hits(server, "/down") == 3
    assert error.error_kind == "http_error"
    assert error.error_details == {
        "url": server.url_for("/down"),
        "status": 504,
        "attempts": 3,
        "reason": "HTTP 504 GATEWAY TIMEOUT",
    }
    assert "after 3 attempts" in str(error)


def test_429_retry_after_seconds_is_honoured(server):
    server.expect_ordered_request("/limited").respond_with_data("slow down", status=429, headers={"Retry-After": "1"})
    server.expect_ordered_request("/limited").respond_with_json([1])
    start = time.monotonic()
    assert http.get_json(server.url_for("/limited"), cache=False) == [1]
    assert time.monotonic() - start >= 1.0
    assert hits(server, "/limited") == 2


def test_retry_after_is_capped(server):
    http.configure(retry_after_cap=0.2)
    server.expect_ordered_request("/capped").respond_with_data("", status=503, headers={"Retry-After": "3600"})
    server.expect_ordered_request("/capped").respond_with_json("ok")
    start = time.monotonic()
    assert http.get_json(server.url_for("/capped"), cache=False) == "ok"
    elapsed = time.monotonic() - start
    assert 0.2 <= elapsed < 1.5


def test_retry_after_http_date_is_honoured(server):
    # HTTP dates have one-second resolution: "now + 2 s" rounds down to between 1 and 2 s away.
    when = email.utils.formatdate(time.time() + 2, usegmt=True)
    server.expect_ordered_request("/date").respond_with_data("", status=503, headers={"Retry-After": when})
    server.expect_ordered_request("/date").respond_with_json("ok")
    start, wall = time.monotonic(), time.time()
    expected = email.utils.parsedate_to_datetime(when).timestamp() - wall
    assert http.get_json(server.url_for("/date"), cache=False) == "ok"
    assert expected > 0.9 and time.monotonic() - start >= expected - 0.05


def test_total_time_budget_stops_before_a_long_wait(server):
    http.configure(max_total_time=0.5)
    server.expect_request("/budget").respond_with_data("", status=503, headers={"Retry-After": "2"})
    start = time.monotonic()
    with pytest.raises(HttpStatusError) as info:
        http.request("GET", server.url_for("/budget"))
    assert info.value.attempts == 1
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422, 500, 501])
def test_other_error_statuses_are_not_retried(server, status):
    server.expect_request("/nope").respond_with_data("no", status=status)
    with pytest.raises(HttpStatusError) as info:
        http.request("GET", server.url_for("/nope"))
    assert info.value.status == status and info.value.attempts == 1
    assert not info.value.retryable
    assert hits(server, "/nope") == 1


def test_raise_for_status_false_returns_error_responses(server):
    server.expect_request("/404").respond_with_data("missing", status=404)
    server.expect_request("/503").respond_with_data("busy", status=503)
    response = http.request("GET", server.url_for("/404"), raise_for_status=False)
    assert response.status_code == 404 and response.text == "missing"
    response = http.request("GET", server.url_for("/503"), raise_for_status=False)
    assert response.status_code == 503 and response.extensions[ATTEMPTS_EXTENSION] == 3
    assert hits(server, "/503") == 3


@pytest.mark.integration
def test_connection_refused_is_retried_then_typed(closed_port):
    url = f"http://127.0.0.1:{closed_port}/x"
    with pytest.raises(HttpTransportError) as info:
        http.request("GET", url)
    error = info.value
    assert error.attempts == 3 and error.status is None and error.url == url
    assert "ConnectError" in error.reason
    assert error.error_details["status"] is None


def test_read_timeout(server):
    http.configure(read_timeout=0.2, max_attempts=2)
    server.expect_request("/slow").respond_with_handler(lambda request: (time.sleep(0.5), Response("late"))[1])
    with pytest.raises(HttpTimeoutError) as info:
        http.request("GET", server.url_for("/slow"))
    assert info.value.attempts == 2 and "ReadTimeout" in info.value.reason
    assert isinstance(info.value, HttpTransportError)


def test_non_idempotent_methods_are_not_retried_unless_asked(server):
    server.expect_request("/post", method="POST").respond_with_data("", status=503)
    with pytest.raises(HttpStatusError) as info:
        http.request("POST", server.url_for("/post"), json={"a": 1})
    assert info.value.attempts == 1 and hits(server, "/post") == 1
    assert http.request("POST", server.url_for("/post"), raise_for_status=False).extensions[ATTEMPTS_EXTENSION] == 1
    server.clear()
    server.expect_ordered_request("/post", method="POST").respond_with_data("", status=503)
    server.expect_ordered_request("/post", method="POST").respond_with_json({"created": True})
    response = http.request("post", server.url_for("/post"), json={"a": 1}, retry_non_idempotent=True)
    assert response.json() == {"created": True} and response.extensions[ATTEMPTS_EXTENSION] == 2


def test_non_retryable_transport_error_and_generic_http_error(server):
    with pytest.raises(HttpTransportError) as info:
        http.request("GET", "ftp://127.0.0.1/file")
    assert info.value.attempts == 1 and "UnsupportedProtocol" in info.value.reason
    server.expect_request("/loop").respond_with_data("", status=302, headers={"Location": "/loop"})
    with pytest.raises(HttpError) as info2:
        http.request("GET", server.url_for("/loop"))
    assert type(info2.value) is HttpError and "TooManyRedirects" in info2.value.reason


def test_response_size_limit_declared_and_streamed(server):
    http.configure(max_response_bytes=1000)
    server.expect_request("/declared").respond_with_data("x" * 5000)
    server.expect_request("/chunked").respond_with_handler(lambda request: Response(iter([b"y" * 600] * 5)))
    server.expect_request("/small").respond_with_data("z" * 1000)
    with pytest.raises(ResponseTooLarge) as info:
        http.request("GET", server.url_for("/declared"))
    assert "5000 bytes exceeds the limit of 1000" in info.value.reason and info.value.status == 200
    with pytest.raises(ResponseTooLarge):
        http.request("GET", server.url_for("/chunked"))
    assert hits(server, "/declared") == hits(server, "/chunked") == 1
    assert http.request("GET", server.url_for("/small")).content == b"z" * 1000


def test_user_agent_and_shared_keepalive_client(server):
    server.expect_request("/ua", headers={"User-Agent": http.get_settings().user_agent}).respond_with_data("hi")
    assert http.request("GET", server.url_for("/ua")).text == "hi"
    assert http.get_client() is http.get_client()


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("5", 5.0),
        (" 2.5 ", 2.5),
        ("-3", 0.0),
        ("nan", None),
        ("soon", None),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 10.0),
        ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),
        ("Wed, 21 Oct 2015 07:28:10", None),  # no zone: not an HTTP date
    ],
)
def test_parse_retry_after(header, expected):
    now = email.utils.parsedate_to_datetime("Wed, 21 Oct 2015 07:28:00 GMT").timestamp()
    assert parse_retry_after(header, now=now) == expected


def test_parse_retry_after_date_against_the_clock():
    assert 8 < parse_retry_after(email.utils.formatdate(time.time() + 10, usegmt=True)) <= 10


# -- async twins ---------------------------------------------------------------------------------


def test_arequest_retries_and_counts(server):
    server.expect_ordered_request("/a").respond_with_data("", status=503)
    server.expect_ordered_request("/a").respond_with_json({"v": 2})

    async def main():
        response = await http.arequest("GET", server.url_for("/a"))
        await http.aclose_clients()
        return response

    response = asyncio.run(main())
    assert response.json() == {"v": 2} and response.extensions[ATTEMPTS_EXTENSION] == 2


def test_arequest_errors(server, closed_port):
    http.configure(max_response_bytes=10)
    server.expect_request("/404").respond_with_data("", status=404)
    server.expect_request("/big").respond_with_handler(lambda request: Response(iter([b"y" * 8] * 3)))
    server.expect_request("/post", method="POST").respond_with_data("", status=502)

    async def main():
        with pytest.raises(HttpStatusError) as not_found:
            await http.arequest("GET", server.url_for("/404"))
        with pytest.raises(ResponseTooLarge):
            await http.arequest("GET", server.url_for("/big"))
        with pytest.raises(HttpTransportError) as refused:
            await http.arequest("GET", f"http://127.0.0.1:{closed_port}/")
        response = await http.arequest("POST", server.url_for("/post"), raise_for_status=False)
        await http.aclose_clients()
        return not_found.value, refused.value, response

    not_found, refused, response = asyncio.run(main())
    assert not_found.attempts == 1 and refused.attempts == 3
    assert response.status_code == 502 and hits(server, "/post") == 1


def test_async_client_timeout_is_typed(server):
    http.configure(read_timeout=0.1, max_attempts=1)
    server.expect_request("/slow").respond_with_handler(lambda request: (time.sleep(0.4), Response("late"))[1])

    async def main():
        try:
            with pytest.raises(HttpTimeoutError):
                await http.arequest("GET", server.url_for("/slow"))
        finally:
            await http.aclose_clients()

    asyncio.run(main())


@pytest.mark.integration
def test_httpx_exceptions_are_chained(closed_port):
    http.configure(max_attempts=1)
    with pytest.raises(HttpTransportError) as info:
        http.request("GET", f"http://127.0.0.1:{closed_port}/")
    assert isinstance(info.value.__cause__, httpx.ConnectError)
