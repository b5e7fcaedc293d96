"""Fixtures for the network tests: a socket guard and a loopback server."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator

import pytest

from .support import LoopbackServer, is_loopback


@pytest.fixture(autouse=True)
def no_traffic_off_this_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every socket connect to a non-loopback address fails the test (and is not made)."""
    refused: list[object] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def guard(address: object) -> None:
        host = address[0] if isinstance(address, tuple) else ""
        if not is_loopback(str(host)):
            refused.append(address)
            raise AssertionError(f"a test tried to connect to {address!r}")

    def connect(self: socket.socket, address: object) -> None:
        guard(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: object) -> int:
        guard(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    yield refused
    assert not refused, f"connections off this machine were attempted: {refused}"


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    """A loopback HTTP server; add handlers to ``server.routes``."""
    running = await LoopbackServer().start()
    yield running
    await running.stop()
