"""The SSRF guard under request(..., guard=...): literal and resolved addresses, redirects, pinning."""

from __future__ import annotations

import asyncio
import ipaddress

import httpx
import pytest

from dispatchguard import http
from dispatchguard.http import AddressGuard, BlockedURL


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://[::1]:9/",
        "http://[::ffff:127.0.0.1]:9/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://172.16.0.1/",
        "http://100.64.0.1/",
        "http://0.0.0.0:9/",
        "http://224.0.0.1/",
        "http://[fe80::1]/",
        # IPv6 forms that carry a non-public IPv4 (red-team finding, issue 23)
        "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",  # NAT64 of 169.254.169.254
        "http://[64:ff9b:1::a00:1]/",  # local-use NAT64
        "http://[2002:a9fe:a9fe::1]/",  # 6to4 of 169.254.169.254
        "http://[::a9fe:a9fe]/",  # IPv4-compatible
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo: a documentation address inside
        "http://[fec0::1]/",  # site-local
    ],
)
def test_non_public_literals_are_refused_before_connecting(url):
    with pytest.raises(BlockedURL) as info:
        http.request("GET", url, guard=http.address_guard())
    error = info.value
    assert error.error_kind == "blocked_url" and error.attempts == 1
    assert "is not a public address" in error.reason and "SSRF_ALLOWLIST" in error.reason


def test_a_host_name_is_checked_after_resolution(server):
    server.expect_request("/x").respond_with_json({"ok": True})
    url = server.url_for("/x").replace("127.0.0.1", "localhost")
    with pytest.raises(BlockedURL, match=r"localhost resolves to 127\.0\.0\.1, which is not a public address"):
        http.get_json(url, guard=http.address_guard(), cache=False)
    assert server.log == []  # refused before any connection


def test_allowlisted_network_passes_and_the_connection_is_pinned(server):
    server.expect_request("/x").respond_with_json({"ok": True})
    http.configure(ssrf_allowlist=("127.0.0.0/8",))
    url = server.url_for("/x").replace("127.0.0.1", "localhost")
    assert http.get_json(url, guard=http.address_guard(), cache=False) == {"ok": True}
    request, _ = server.log[0]
    assert request.headers["Host"] == f"localhost:{server.port}"  # the name is kept, the address pinned


def test_redirects_are_checked_hop_by_hop(server):
    port = server.port
    server.expect_request("/start").respond_with_data("", status=302, headers={"Location": f"http://127.0.0.1:{port}/end"})
    server.expect_request("/end").respond_with_json({"secret": 1})
    start = f"http://localhost:{port}/start"
    with pytest.raises(BlockedURL) as info:
        http.get_json(start, guard=http.address_guard("localhost"), cache=False)
    assert info.value.url == f"http://127.0.0.1:{port}/end"
    assert [request.path for request, _ in server.log] == ["/start"]
    # without a guard (the default: models on localhost, internal APIs) nothing is refused
    assert http.get_json(start, cache=False) == {"secret": 1}


def test_async_requests_are_guarded_too(server):
    server.expect_request("/a").respond_with_json([1])
    url = server.url_for("/a")

    async def run():
        with pytest.raises(BlockedURL):
            await http.arequest("GET", url.replace("127.0.0.1", "localhost"), guard=http.address_guard())
        allowed = await http.aget_json(url.replace("127.0.0.1", "localhost"), guard=http.address_guard("localhost"))
        await http.aclose_loop_client()
        return allowed

    assert asyncio.run(run()) == [1]


def test_unresolvable_hosts_are_transport_errors():
    with pytest.raises(http.HttpTransportError, match="cannot resolve"):
        http.request("GET", "http://no-such-host.invalid/", guard=http.address_guard())


def test_allowlist_entries_are_validated_and_matched():
    with pytest.raises(ValueError, match="not a valid address or network"):
        AddressGuard.from_allowlist(["10.0.0.0/33"])
    guard = AddressGuard.from_allowlist([" 10.0.0.0/8 ", "Searx.Internal", "[::1]", ""])
    assert guard.allow == ("10.0.0.0/8", "searx.internal", "::1")
    assert guard.host_allowed("SEARX.internal.")
    assert guard.address_allowed(ipaddress.ip_address("10.2.3.4"))
    assert guard.address_allowed(ipaddress.ip_address("::ffff:10.2.3.4"))
    assert guard.address_allowed(ipaddress.ip_address("::1"))
    assert guard.address_allowed(ipaddress.ip_address("8.8.8.8"))
    assert not guard.address_allowed(ipaddress.ip_address("192.168.0.1"))
    # an IPv6 form of a public IPv4 is public; of an allow-listed one, allowed
    assert guard.address_allowed(ipaddress.ip_address("64:ff9b::808:808"))
    assert guard.address_allowed(ipaddress.ip_address("2002:808:808::1"))
    assert guard.address_allowed(ipaddress.ip_address("64:ff9b::a02:304"))  # 10.2.3.4: allow-listed
    assert not guard.address_allowed(ipaddress.ip_address("64:ff9b::c0a8:1"))  # 192.168.0.1
    with pytest.raises(BlockedURL, match="did not resolve"):
        guard.pick(httpx.URL("http://x.example/"), [])


def test_allowlist_from_the_environment(monkeypatch):
    monkeypatch.setenv("DISPATCHGUARD_HTTP_SSRF_ALLOWLIST", "127.0.0.1, 10.0.0.0/8")
    http.reset_clients(reset_settings=True)
    assert http.get_settings().ssrf_allowlist == ("127.0.0.1", "10.0.0.0/8")
    assert http.address_guard("extra.host").allow == ("127.0.0.1", "10.0.0.0/8", "extra.host")


@pytest.mark.integration
def test_a_pinned_https_request_still_verifies_the_host_name(tmp_path, monkeypatch):
    """The connection goes to the checked address, while TLS checks the certificate against the
    name in the URL (SNI): a certificate for "localhost" only is accepted through the pin, and
    refused when the URL itself names the address."""
    import ssl

    import trustme
    from pytest_httpserver import HTTPServer

    authority = trustme.CA()
    certificate = authority.issue_cert("localhost")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(server_context)
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))  # httpx trusts it (trust_env)
    http.reset_clients()
    http.configure(ssrf_allowlist=("127.0.0.1",))
    tls = HTTPServer(host="127.0.0.1", port=0, ssl_context=server_context)
    tls.start()
    try:
        tls.expect_request("/x").respond_with_json({"tls": True})
        by_name = f"https://localhost:{tls.port}/x"
        assert http.get_json(by_name, guard=http.address_guard(), cache=False) == {"tls": True}
        assert tls.log[0][0].headers["Host"] == f"localhost:{tls.port}"
        with pytest.raises(http.HttpTransportError, match=r"CERTIFICATE_VERIFY_FAILED|certificate"):
            http.get_json(f"https://127.0.0.1:{tls.port}/x", guard=http.address_guard(), cache=False)
    finally:
        http.reset_clients()
        tls.clear()
        tls.stop()


def test_the_shared_clients_used_directly_are_neither_bounded_nor_guarded(server):
    server.expect_request("/raw").respond_with_json({"raw": True})
    assert http.get_client().get(server.url_for("/raw")).json() == {"raw": True}


def test_async_literal_addresses_follow_the_allowlist(server):
    server.expect_request("/lit").respond_with_json({"lit": 1})
    url = server.url_for("/lit")

    async def run():
        with pytest.raises(BlockedURL, match=r"127\.0\.0\.1 is not a public address"):
            await http.arequest("GET", url, guard=http.address_guard())
        allowed = await http.aget_json(url, guard=http.address_guard("127.0.0.0/8"), cache=False)
        await http.aclose_loop_client()
        return allowed

    assert asyncio.run(run()) == {"lit": 1}


def test_a_guarded_call_is_never_answered_by_an_unguarded_cache_entry(server, tmp_path):
    server.expect_request("/internal").respond_with_json({"secret": 1})
    url = server.url_for("/internal")
    http.configure(cache_path=str(tmp_path / "shared.sqlite"))  # entries outlive configure()
    assert http.get_json(url) == {"secret": 1}  # cached, fetched without a guard
    with pytest.raises(BlockedURL):
        http.get_json(url, guard=http.address_guard())
    http.configure(ssrf_allowlist=("127.0.0.1",))
    assert http.get_json(url, guard=http.address_guard()) == {"secret": 1}
    http.configure(ssrf_allowlist=("127.0.0.0/8",))
    assert http.get_json(url, guard=http.address_guard()) == {"secret": 1}
    assert len(server.log) == 3  # each allow-list fetched it for itself

    async def guarded():
        http.configure(ssrf_allowlist=())
        with pytest.raises(BlockedURL):
            await http.aget_json(url, guard=http.address_guard())
        await http.aclose_loop_client()

    asyncio.run(guarded())
def test_proxies_from_the_environment_are_not_used(server, monkeypatch):
    # A proxy would let a guarded request reach what the proxy resolves: the shared clients
    # connect directly (httpx ignores environment proxies when a transport is given).
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    http.reset_clients()
    server.expect_request("/x").respond_with_json({"ok": True})
    url = server.url_for("/x")
    assert http.get_json(url, cache=False) == {"ok": True}
    assert http.get_json(url, guard=http.address_guard("127.0.0.1"), cache=False) == {"ok": True}

    async def run():
        try:
            return await http.aget_json(url, cache=False)
        finally:
            await http.aclose_loop_client()

    assert asyncio.run(run()) == {"ok": True}
    with pytest.raises(BlockedURL):
        http.request("GET", url, guard=http.address_guard())


# -- requests_session(guard=...) --------------------------------------------------------------------


def test_a_guarded_requests_session_checks_every_hop_and_pins_the_address(server, tmp_path):
    port = server.port
    server.expect_request("/start").respond_with_data("", status=302, headers={"Location": f"http://127.0.0.1:{port}/end"})
    server.expect_request("/end").respond_with_json({"secret": 1})
    server.expect_request("/ok").respond_with_json({"ok": True})
    session = http.requests_session(guard=http.address_guard("localhost"), cache_path=str(tmp_path / "c"))
    try:
        with pytest.raises(BlockedURL, match=r"127\.0\.0\.1 is not a public address"):
            session.get(f"http://127.0.0.1:{port}/ok")
        with pytest.raises(BlockedURL) as info:
            session.get(f"http://localhost:{port}/start")  # allowed by name; its redirect is not
        assert info.value.url == f"http://127.0.0.1:{port}/end"
        assert session.get(f"http://localhost:{port}/ok").json() == {"ok": True}
    finally:
        session.close()
    assert [request.path for request, _ in server.log] == ["/start", "/ok"]
    assert server.log[-1][0].headers["Host"] == f"localhost:{port}"
    # an unguarded session sharing the cache file gets its own entries, and is not checked
    plain = http.requests_session(cache_path=str(tmp_path / "c"))
    try:
        assert not plain.get(f"http://localhost:{port}/ok").from_cache
        assert plain.get(f"http://127.0.0.1:{port}/end").json() == {"secret": 1}
    finally:
        plain.close()


@pytest.mark.integration
def test_a_guarded_requests_session_pins_https_and_verifies_the_name(tmp_path):
    import ssl

    import requests
    import trustme
    from pytest_httpserver import HTTPServer

    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(server_context)
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    tls = HTTPServer(host="127.0.0.1", port=0, ssl_context=server_context)
    tls.start()
    session = http.requests_session(guard=http.address_guard("127.0.0.1"))
    try:
        tls.expect_request("/x").respond_with_json({"tls": True})
        assert session.get(f"https://localhost:{tls.port}/x", verify=str(ca_file)).json() == {"tls": True}
        with pytest.raises(requests.exceptions.SSLError):  # the certificate names localhost only
            session.get(f"https://127.0.0.1:{tls.port}/x", verify=str(ca_file))
    finally:
        session.close()
        tls.clear()
        tls.stop()


def test_a_guarded_requests_session_ignores_proxies_from_the_environment(server, monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    server.expect_request("/x").respond_with_json([1])
    session = http.requests_session(guard=http.address_guard("127.0.0.1"))
    try:
        assert session.get(server.url_for("/x")).json() == [1]
    finally:
        session.close()
