"""Name resolution for the pinned transport: asked once per connection (DESIGN §3)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable, Mapping
from ipaddress import IPv4Address, IPv6Address, ip_address
from typing import Protocol

from .errors import FetchFailed

__all__ = ["Resolver", "StaticResolver", "SystemResolver"]


class Resolver(Protocol):
    """Answers one look-up: every address ``host`` has, in the order to try them."""

    async def resolve(self, host: str) -> list[IPv4Address | IPv6Address]:
        """Resolve ``host`` (an ASCII DNS name).

        Raises:
            FetchFailed: the name does not exist or has no address.
        """
        ...


class SystemResolver:
    """The operating system's resolver (``getaddrinfo``), TCP addresses only."""

    async def resolve(self, host: str) -> list[IPv4Address | IPv6Address]:
        """See :class:`Resolver`; a resolver error becomes FetchFailed with the host named."""
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise FetchFailed(f"the host name {host} could not be resolved") from exc
        addresses = _unique(ip_address(info[4][0]) for info in infos)
        if not addresses:
            raise FetchFailed(f"the host name {host} has no address")
        return addresses


class StaticResolver:
    """A fixed table of answers, e.g. ``{"example.test": ["127.0.0.1"]}``.

    Used by tests and benchmarks to reach a loopback server under a chosen name;
    it does not loosen the address policy (the answer is still classified).
    ``lookups`` counts the calls per name, so a test can show one look-up per fetch.
    """

    def __init__(self, table: Mapping[str, Iterable[str]]) -> None:
        self.table = {name: [ip_address(a) for a in answer] for name, answer in table.items()}
        self.lookups: dict[str, int] = {}

    async def resolve(self, host: str) -> list[IPv4Address | IPv6Address]:
        """See :class:`Resolver`; a name not in the table does not exist."""
        self.lookups[host] = self.lookups.get(host, 0) + 1
        addresses = self.table.get(host, [])
        if not addresses:
            raise FetchFailed(f"the host name {host} could not be resolved")
        return list(addresses)


def _unique(addresses: Iterable[IPv4Address | IPv6Address]) -> list[IPv4Address | IPv6Address]:
    return list(dict.fromkeys(addresses))
