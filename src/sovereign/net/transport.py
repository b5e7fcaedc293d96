"""An httpx transport that resolves once, checks every address, and connects to a checked one.

:class:`GuardedBackend` is an httpcore network backend: httpcore asks it for a TCP
connection to the URL's host, and it parses that host with the same
:func:`~sovereign.net.url.parse_host` that validated the URL, resolves a name
exactly once, classifies **every** address, and only then connects, to one of
those very addresses. TLS (SNI and certificate check) and the ``Host`` header
stay on the host name because httpcore takes them from the URL, not from the
socket. :class:`PinnedTransport` puts that backend under httpx. No environment
proxy, ``.netrc`` or redirect handling exists at this layer (DESIGN §3 rule 2).
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Iterable
from functools import cache
from typing import Any

import httpcore
import httpx

from .errors import TargetRejected
from .policy import DEFAULT_POLICY, AddressPolicy, IPAddress, classify, classify_host
from .resolver import Resolver, SystemResolver
from .url import parse_host
from .verdict import Verdict

__all__ = ["GuardedBackend", "PinnedTransport", "admit"]


async def admit(host: str, resolver: Resolver, policy: AddressPolicy) -> list[IPAddress]:
    """The addresses ``host`` may be connected to: all of its addresses, or an error.

    Args:
        host: the host as the URL carries it (name or IP literal, ASCII).
        resolver: asked once when ``host`` is a name; never for an IP literal.
        policy: passed to :func:`classify` for every address.

    Raises:
        TargetRejected: the host spelling or any one of its addresses is refused.
        FetchFailed: the name does not resolve. InvalidURL: ``host`` is malformed.
    """
    parsed = parse_host(host)
    verdict = classify_host(parsed, policy)
    if verdict is not None and not verdict.allowed:
        raise TargetRejected(verdict, parsed.name)
    addresses = [parsed.address] if parsed.address else await resolver.resolve(parsed.name)
    for address in addresses:
        verdict = classify(address, policy)
        if not verdict.allowed:
            shown = parsed.name if parsed.address else f"{parsed.name} ({address})"
            raise TargetRejected(verdict, shown)
    return addresses


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend that connects only to admitted addresses.

    Args:
        resolver: name resolution (default: the system's ``getaddrinfo``).
        policy: the address policy (default: the fixed table and this device's addresses).
        connector: the backend that opens sockets to IP literals (default:
            httpcore's anyio backend); tests pass one that records attempts.
    """

    def __init__(
        self,
        resolver: Resolver | None = None,
        policy: AddressPolicy | None = None,
        connector: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.resolver = resolver or SystemResolver()
        self.policy = policy or DEFAULT_POLICY
        self.connector = connector or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Admit ``host`` (see :func:`admit`), then connect to its addresses in order.

        Raises:
            TargetRejected: before any socket opens. httpcore.ConnectError or
            ConnectTimeout: the last failure when no address accepted.
        """
        addresses = await admit(host, self.resolver, self.policy)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self.connector.connect_tcp(
                    str(address), port, timeout=timeout, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None  # admit() never returns an empty list
        raise failure

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.AsyncNetworkStream:
        """Refused: a fetch never reaches a local socket."""
        raise TargetRejected(Verdict.LOOPBACK, "a unix socket")

    async def sleep(self, seconds: float) -> None:
        """Delegates to the connector."""
        await self.connector.sleep(seconds)


@cache
def _verified_tls_context() -> ssl.SSLContext:
    """Certificate and host-name verification on, CA bundle from certifi, no env overrides."""
    return httpx.create_ssl_context(verify=True, trust_env=False)


class PinnedTransport(httpx.AsyncBaseTransport):
    """httpx transport over :class:`GuardedBackend`; HTTP/1.1, no retries, no proxy.

    Args: as :class:`GuardedBackend`, plus ``ssl_context`` (default: verified, certifi).
    Use as an async context manager, or call :meth:`aclose`.
    """

    def __init__(
        self,
        *,
        resolver: Resolver | None = None,
        policy: AddressPolicy | None = None,
        connector: httpcore.AsyncNetworkBackend | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or _verified_tls_context(),
            network_backend=GuardedBackend(resolver, policy, connector),
            max_connections=4,
            http1=True,
            http2=False,
            retries=0,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` as is; errors propagate untranslated (see ``errors.translate``)."""
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        response = await self._pool.handle_async_request(core_request)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        """Close every pooled connection."""
        await self._pool.aclose()


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._stream:
            yield part

    async def aclose(self) -> None:
        if hasattr(self._stream, "aclose"):
            await self._stream.aclose()
