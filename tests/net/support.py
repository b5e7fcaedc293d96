"""Test doubles for the network layer: a connection recorder, scripted streams, a loopback server.

Nothing here sends traffic off this machine: :class:`Recorder` never opens a
socket, :class:`LoopbackConnector` opens only loopback ones, and the servers
listen on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from ipaddress import IPv4Address, IPv6Address, ip_address
from typing import Any

import httpcore

from sovereign.executor import ConfirmationStore, ErrorCode, Executor, Outcome, Registry, TurnState


def is_loopback(host: str) -> bool:
    try:
        address = ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return (isinstance(address, IPv4Address) and address.packed[0] == 127) or (
        isinstance(address, IPv6Address) and address == IPv6Address("::1")
    )


class ScriptedStream(httpcore.AsyncNetworkStream):
    """Answers with ``head`` on the first read, then one ``body`` item per read."""

    def __init__(self, head: bytes, body: Iterable[bytes]) -> None:
        self._head: bytes | None = head
        self._body: Iterator[bytes] = iter(body)
        self.body_bytes_read = 0
        self.sent = b""

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._head is not None:
            head, self._head = self._head, None
            return head
        item = next(self._body, b"")
        self.body_bytes_read += len(item)
        return item

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.sent += buffer

    async def aclose(self) -> None:
        pass

    async def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        self.server_hostname = server_hostname
        return self

    def get_extra_info(self, info: str) -> Any:
        return None


class Recorder(httpcore.AsyncNetworkBackend):
    """Records every connection attempt and opens no socket.

    With no ``stream`` each attempt fails as a refused connection; with one, the
    attempt is answered by that scripted stream (no byte leaves the process).
    """

    def __init__(self, stream: ScriptedStream | None = None) -> None:
        self.attempts: list[tuple[str, int]] = []
        self.stream = stream

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        self.attempts.append((host, port))
        if self.stream is None:
            raise httpcore.ConnectError("recorded; this test opens no socket")
        return self.stream

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        raise AssertionError("no unix socket may be opened")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class LoopbackConnector(Recorder):
    """Records every attempt and really connects, but only to loopback addresses."""

    def __init__(self) -> None:
        super().__init__()
        self._real = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        self.attempts.append((host, port))
        if not is_loopback(host):
            raise httpcore.ConnectError(f"test refuses to leave the machine ({host})")
        return await self._real.connect_tcp(host, port, timeout=timeout)


Handler = Callable[[asyncio.StreamWriter, dict[str, str]], Awaitable[None]]


class LoopbackServer:
    """A tiny HTTP/1.1 server on 127.0.0.1: ``routes[path](writer, request_headers)``."""

    def __init__(self) -> None:
        self.routes: dict[str, Handler] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> LoopbackServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            line, *header_lines = head.decode("latin-1").split("\r\n")
            path = line.split(" ")[1]
            headers = {
                k.strip().lower(): v.strip()
                for k, _, v in (h.partition(":") for h in header_lines if h)
            }
            self.requests.append((path, headers))
            handler = self.routes.get(path.split("?")[0], not_found)
            await handler(writer, headers)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


async def not_found(writer: asyncio.StreamWriter, headers: dict[str, str]) -> None:
    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()


def response_head(status: str, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def respond(status: str, headers: dict[str, str], body: bytes = b"") -> Handler:
    """A handler that sends one fixed response and closes."""

    async def handler(writer: asyncio.StreamWriter, _: dict[str, str]) -> None:
        all_headers = {"Content-Length": str(len(body)), "Connection": "close", **headers}
        writer.write(response_head(status, all_headers) + body)
        await writer.drain()

    return handler


def stream_body(status: str, headers: dict[str, str],
                chunks: Callable[[], AsyncIterator[bytes]]) -> Handler:
    """A handler that streams ``chunks()`` as a chunked body until the client goes away."""

    async def handler(writer: asyncio.StreamWriter, _: dict[str, str]) -> None:
        writer.write(response_head(status, {
            "Transfer-Encoding": "chunked", "Connection": "close", **headers}))
        async for chunk in chunks():
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    return handler


async def invoke_fetch(registry: Registry, url: str, start_index: int | None = None) -> Outcome:
    """Run web.fetch v1 through the executor, switched on: proposed, then (when it gets
    that far) approved for the canonical arguments the validate stage produced (a fresh
    token each call, so a continuation from ``start_index`` is a proposal of its own)."""
    store = ConfirmationStore()
    executor = Executor(registry, confirmations=store)
    arguments: dict[str, object] = {"url": url}
    if start_index is not None:
        arguments["start_index"] = start_index
    policy = {"external_enabled": True}
    proposed = await executor.invoke(
        "web.fetch", 1, arguments, policy=policy, turn_state=TurnState()
    )
    if proposed.error_code is not ErrorCode.CONFIRMATION_REQUIRED:
        return proposed  # refused before any card
    token = store.issue("web.fetch", 1, proposed.arguments or {})
    return await executor.invoke(
        "web.fetch", 1, arguments, policy=policy,
        turn_state=TurnState(), confirmation_token=token,
    )
