"""TLS goes to the checked address while SNI, the certificate check and Host stay on the name."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from ipaddress import ip_address

import pytest
import trustme

from sovereign.net import (
    AddressPolicy,
    FetchFailed,
    PinnedTransport,
    StaticResolver,
    fetch,
)

from .support import LoopbackConnector, response_head

NAME = "secure.test"
POLICY = AddressPolicy(local_interfaces=lambda: [], unsafe_allow={ip_address("127.0.0.1")})


class TLSServer:
    def __init__(self, context: ssl.SSLContext) -> None:
        self.context = context
        self.server_names: list[str | None] = []
        self.hosts: list[str] = []
        context.sni_callback = lambda _obj, name, _ctx: self.server_names.append(name)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            self.hosts += [line[5:].strip() for line in head.split("\r\n")
                           if line.lower().startswith("host:")]
            body = b"<html><body><p>over TLS</p></body></html>"
            writer.write(response_head("200 OK", {
                "Content-Type": "text/html", "Content-Length": str(len(body)),
                "Connection": "close"}) + body)
            await writer.drain()
        except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@pytest.fixture
def authority() -> trustme.CA:
    return trustme.CA()


async def _start(authority: trustme.CA, name: str) -> tuple[TLSServer, asyncio.Server, int]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(name).configure_cert(context)
    tls = TLSServer(context)
    server = await asyncio.start_server(tls.serve, "127.0.0.1", 0, ssl=context)
    return tls, server, server.sockets[0].getsockname()[1]


@pytest.fixture
async def served(authority: trustme.CA) -> AsyncIterator[tuple[TLSServer, int]]:
    tls, server, port = await _start(authority, NAME)
    yield tls, port
    server.close()


def _client_context(authority: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context()
    authority.configure_trust(context)
    return context


async def test_tls_uses_the_name_for_sni_certificate_and_host(
    served: tuple[TLSServer, int], authority: trustme.CA
) -> None:
    tls, port = served
    connector = LoopbackConnector()
    async with PinnedTransport(resolver=StaticResolver({NAME: ["127.0.0.1"]}), policy=POLICY,
                               connector=connector, ssl_context=_client_context(authority)) as t:
        page = await fetch(f"https://{NAME}:{port}/", t)
    assert b"over TLS" in page.body
    assert connector.attempts == [("127.0.0.1", port)]
    assert tls.server_names == [NAME]
    assert tls.hosts == [f"{NAME}:{port}"]


async def test_a_certificate_for_another_name_is_a_fetch_failure(authority: trustme.CA) -> None:
    _, server, port = await _start(authority, "other.test")
    try:
        async with PinnedTransport(resolver=StaticResolver({NAME: ["127.0.0.1"]}), policy=POLICY,
                                   connector=LoopbackConnector(),
                                   ssl_context=_client_context(authority)) as t:
            with pytest.raises(FetchFailed, match="certificate"):
                await fetch(f"https://{NAME}:{port}/", t)
    finally:
        server.close()


async def test_an_untrusted_authority_is_a_fetch_failure(served: tuple[TLSServer, int]) -> None:
    _, port = served
    async with PinnedTransport(resolver=StaticResolver({NAME: ["127.0.0.1"]}), policy=POLICY,
                               connector=LoopbackConnector()) as t:
        with pytest.raises(FetchFailed, match="certificate"):
            await fetch(f"https://{NAME}:{port}/", t)
