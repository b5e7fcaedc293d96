"""The registry of capabilities, keyed by ``(name, version)`` (DESIGN §2)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from .capability import Capability
from .errors import CapabilityDefinitionError

logger = logging.getLogger(__name__)

Closer = Callable[[], Awaitable[None]]
"""Releases what a capability family holds (a session with a device); never raises."""


class Registry:
    """Holds the capabilities a turn may use.

    ``add`` raises :class:`CapabilityDefinitionError` for a duplicate key; ``get``
    returns ``None`` for an unknown one (the executor turns that into
    UNKNOWN_CAPABILITY). A family that holds something open between invocations (a
    login session on a device) hands :meth:`on_close` the way to release it; whoever
    runs the registry calls :meth:`close` when it stops (the service's shutdown).
    """

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, int], Capability] = {}
        self._closers: list[Closer] = []

    def add(self, capability: Capability) -> None:
        """Register ``capability``; raises CapabilityDefinitionError if its key is taken."""
        if capability.key in self._by_key:
            name, version = capability.key
            raise CapabilityDefinitionError(f"{name} v{version} is already registered")
        self._by_key[capability.key] = capability

    def on_close(self, closer: Closer) -> None:
        """Run ``closer`` (a coroutine function) when the registry is closed."""
        self._closers.append(closer)

    async def close(self) -> None:
        """Run every :meth:`on_close` hook once, the last registered first. A hook that
        raises is logged and the others still run; closing twice runs nothing again."""
        closers, self._closers = self._closers, []
        for closer in reversed(closers):
            try:
                await closer()
            except Exception:
                logger.exception("a capability family failed to release what it holds")

    def remove(self, name: str, version: int) -> None:
        """Unregister ``(name, version)``; raises KeyError when absent."""
        del self._by_key[(name, version)]

    def get(self, name: str, version: int) -> Capability | None:
        """The capability at ``(name, version)``, or ``None``."""
        return self._by_key.get((name, version))

    def latest(self, name: str) -> Capability | None:
        """The highest registered version of ``name``, or ``None``."""
        versions = [cap for (n, _), cap in self._by_key.items() if n == name]
        return max(versions, key=lambda cap: cap.version, default=None)

    def __iter__(self) -> Iterator[Capability]:
        return iter(sorted(self._by_key.values(), key=lambda cap: cap.key))

    def __len__(self) -> int:
        return len(self._by_key)

    def tool_definitions(self) -> list[dict[str, Any]]:
        """One entry per capability, latest version only, for a model's tool list.

        Returns:
            ``[{"name": dotted name, "version": int, "description": str,
            "parameters": arguments JSON Schema}]``. Mapping names to a model's
            alphabet is the conversation layer's job.
        """
        latest: dict[str, Capability] = {}
        for cap in self:
            latest[cap.name] = cap
        return [
            {
                "name": cap.name,
                "version": cap.version,
                "description": cap.description,
                "parameters": dict(cap.arguments_schema),
            }
            for cap in latest.values()
        ]
