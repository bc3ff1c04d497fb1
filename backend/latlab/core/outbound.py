"""Requests the lab sends to addresses its users give (webhook channels). Loopback, private,
link-local and other non-public addresses are refused unless the project allows them. The
check is made on the address the connection actually goes to, when it is made: a name that
resolved to a public address when the channel was saved and resolves to an internal one now
is refused, and redirects are not followed."""

import ipaddress
import socket
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

ALLOWED_BY = "an admin may allow private webhook targets for the project"


class TargetRefused(httpx.TransportError):
    pass


def post_json(url: str, body: Any, *, allow_private: bool, timeout: float) -> httpx.Response:
    transport = _GuardedTransport(allow_private)
    with httpx.Client(transport=transport, timeout=timeout, follow_redirects=False) as client:
        return client.post(url, json=body)


def check_url(url: str, *, allow_private: bool) -> None:
    """Refuses a URL whose host resolves to a non-public address now; a host that does not
    resolve yet passes (sending will say)."""
    try:
        host = urlsplit(url).hostname
    except ValueError as error:
        raise TargetRefused(f"not a valid URL: {error}") from None
    if not host:
        raise TargetRefused("the URL names no host")
    try:
        addresses = _resolve(host, 443)
    except UnicodeError:
        raise TargetRefused(f"'{host}' is not a valid host name") from None
    except OSError:
        return
    _check(host, addresses, allow_private)


def _resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _check(host: str, addresses: list[str], allow_private: bool) -> None:
    if allow_private:
        return
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if not ip.is_global or ip.is_multicast:
            raise TargetRefused(f"{host} resolves to {ip}, which is not a public address; "
                                f"{ALLOWED_BY}")


class _GuardedBackend(httpcore.SyncBackend):
    """Connects only to an address it has checked (the same one, so a second lookup cannot
    swap it)."""

    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        addresses = _resolve(host, port)
        _check(host, addresses, self.allow_private)
        return super().connect_tcp(addresses[0], port, timeout, local_address, socket_options)


class _GuardedTransport(httpx.HTTPTransport):
    def __init__(self, allow_private: bool) -> None:
        super().__init__(trust_env=False)
        # TLS still verifies (and names in SNI) the URL's host, not the address.
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            network_backend=_GuardedBackend(allow_private))
