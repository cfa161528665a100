"""Bounded, address-checked requests: the transport under the shared clients.

Two per-request extensions drive it (set by :func:`dispatchguard.http.request` and its twins):

- ``DEADLINE_EXTENSION``, a :func:`time.monotonic` instant: every connect/read/write/pool timeout of
  each hop (redirects included) is capped to the time left, so no single wait outlives the call's
  ``max_total_time``;
- ``GUARD_EXTENSION``, an :class:`AddressGuard`: the host of each hop (redirects included) is
  resolved, every address it resolves to is checked, and the connection is pinned to a checked
  address (the ``Host`` header and TLS server name keep the original name), so a DNS answer that
  changes between the check and the connect (rebinding) cannot reach a refused address.

Refused by default: every address that is not globally routable (loopback, private, link-local,
unique-local, shared, reserved, documentation, unspecified), multicast, and IPv4-mapped IPv6 forms
of those; this covers the cloud metadata addresses 169.254.169.254 and fd00:ec2::254. An
allow-list of host names, addresses and networks lifts the refusal (``ssrf_allowlist``).
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass

import anyio.to_thread
import httpx

from .errors import HttpError

__all__ = [
    "DEADLINE_EXTENSION",
    "GUARD_EXTENSION",
    "AddressGuard",
    "AsyncGuardedTransport",
    "BlockedURL",
    "GuardedTransport",
]

DEADLINE_EXTENSION = "dispatchguard.deadline"
GUARD_EXTENSION = "dispatchguard.address_guard"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class BlockedURL(HttpError):
    """The URL's host is, or resolves to, an address the guard refuses (SSRF protection)."""

    error_kind = "blocked_url"


_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: local-use translation
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated ::a.b.c.d


def _embedded_ipv4(address: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, NAT64, 6to4, Teredo, IPv4-compatible):
    a request to it reaches them, so the guard judges them too."""
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    found = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    if address.teredo is not None:
        found += list(address.teredo)
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def _is_public(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and (address.is_site_local or address in _NAT64_LOCAL):
        return False
    embedded = _embedded_ipv4(address)
    if embedded:
        return all(_is_public(v4) for v4 in embedded)
    return address.is_global and not address.is_multicast


@dataclass(frozen=True)
class AddressGuard:
    """Which hosts a guarded request may reach: public addresses, plus the allow-list.

    ``allow`` holds host names (matched exactly, case-insensitively), addresses and networks in CIDR
    notation, e.g. ``("127.0.0.1", "10.1.0.0/16", "searx.internal")``.
    """

    allow: tuple[str, ...] = ()

    @classmethod
    def from_allowlist(cls, entries: Iterable[str]) -> AddressGuard:
        """A guard from raw entries: stripped, lower-cased, ``[]`` removed, blank ones skipped.

        Raises ``ValueError`` for an entry that looks like an address or network but does not parse.
        """
        cleaned = tuple(entry.strip().lower().strip("[]") for entry in entries if entry.strip())
        for entry in cleaned:
            if any(ch in entry for ch in "/:") or entry.replace(".", "").isdigit():
                try:
                    ipaddress.ip_network(entry, strict=False)
                except ValueError as exc:
                    reason = f"ssrf_allowlist entry {entry!r} is not a valid address or network: {exc}"
                    raise ValueError(reason) from None
        return cls(cleaned)

    def _networks(self) -> list[IPNetwork]:
        networks = []
        for entry in self.allow:
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                continue  # a host name
        return networks

    def host_allowed(self, host: str) -> bool:
        """Whether ``host`` is allow-listed by name (case-insensitive, a trailing dot ignored)."""
        return host.lower().rstrip(".") in self.allow

    def address_allowed(self, address: IPAddress) -> bool:
        """Whether ``address`` may be reached.

        True when it is public (and so is every IPv4 address it embeds), or when it or an IPv4
        address it embeds lies in an allow-listed network.
        """
        if _is_public(address):
            return True
        candidates = [address, *_embedded_ipv4(address)]
        return any(a in network for network in self._networks() for a in candidates if a.version == network.version)

    def pick(self, url: httpx.URL, addresses: list[str]) -> str:
        """The address to connect to for ``url``, after checking all of ``addresses``; or BlockedURL."""
        host = url.host
        if not addresses:
            raise BlockedURL(f"host {host!r} did not resolve to any address", url=str(url))
        if self.host_allowed(host):
            return addresses[0]
        for text in addresses:
            address = ipaddress.ip_address(text.split("%", 1)[0])
            if not self.address_allowed(address):
                shown = host if host == text else f"{host} resolves to {text}, which"
                raise BlockedURL(
                    f"blocked URL: {shown} is not a public address (loopback, private, link-local or metadata);"
                    " add it to DISPATCHGUARD_HTTP_SSRF_ALLOWLIST to allow it",
                    url=str(url),
                )
        return addresses[0]


def _literal(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return None


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise httpx.ConnectError(f"cannot resolve {host!r}: {exc}") from None
    seen: dict[str, None] = {}
    for _family, _type, _proto, _canon, sockaddr in infos:
        seen[str(sockaddr[0])] = None
    return list(seen)


def resolve_host(host: str, port: int) -> list[str]:
    """The addresses to check for ``host``: itself when it is an address, else what the system
    resolver answers (``httpx.ConnectError`` when it cannot)."""
    literal = _literal(host)
    return [literal] if literal else _resolve(host, port)


def _default_port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _pinned(request: httpx.Request, address: str) -> httpx.Request:
    """The same request, sent to ``address``; Host header and TLS server name keep the original host."""
    if address == request.url.host:
        return request
    extensions = dict(request.extensions)
    if request.url.scheme == "https":
        extensions.setdefault("sni_hostname", request.url.host)
    return httpx.Request(
        request.method,
        request.url.copy_with(host=address),
        headers=request.headers,
        stream=request.stream,
        extensions=extensions,
    )


def _cap_timeouts(request: httpx.Request) -> None:
    deadline = request.extensions.get(DEADLINE_EXTENSION)
    if deadline is None:
        return
    remaining = max(deadline - time.monotonic(), 0.001)
    timeouts = dict(request.extensions.get("timeout") or {})
    for phase in ("connect", "read", "write", "pool"):
        current = timeouts.get(phase)
        timeouts[phase] = remaining if current is None else min(current, remaining)
    request.extensions = {**request.extensions, "timeout": timeouts}


class GuardedTransport(httpx.BaseTransport):
    """Wraps a transport: caps timeouts to the request's deadline, checks and pins addresses."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Cap timeouts to the deadline; under a guard, resolve, check and pin the host; forward.

        Raises ``BlockedURL`` for a refused address, ``httpx.ConnectError`` when the host does
        not resolve. The name lookup blocks and is not bounded by the deadline.
        """
        _cap_timeouts(request)
        guard = request.extensions.get(GUARD_EXTENSION)
        if isinstance(guard, AddressGuard):
            addresses = resolve_host(request.url.host, _default_port(request.url))
            request = _pinned(request, guard.pick(request.url, addresses))
        return self.inner.handle_request(request)

    def close(self) -> None:
        """Close the wrapped transport."""
        self.inner.close()


class AsyncGuardedTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`GuardedTransport` (name resolution runs in a worker thread)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """As :meth:`GuardedTransport.handle_request`; the lookup runs in a worker thread."""
        _cap_timeouts(request)
        guard = request.extensions.get(GUARD_EXTENSION)
        if isinstance(guard, AddressGuard):
            addresses = await anyio.to_thread.run_sync(resolve_host, request.url.host, _default_port(request.url))
            request = _pinned(request, guard.pick(request.url, addresses))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self.inner.aclose()
