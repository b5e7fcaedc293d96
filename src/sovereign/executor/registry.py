"""The registry of capabilities, keyed by ``(name, version)`` (DESIGN §2)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .capability import Capability
from .errors import CapabilityDefinitionError


class Registry:
    """Holds the capabilities a turn may use.

    ``add`` raises :class:`CapabilityDefinitionError` for a duplicate key; ``get``
    returns ``None`` for an unknown one (the executor turns that into
    UNKNOWN_CAPABILITY).
    """

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, int], Capability] = {}

    def add(self, capability: Capability) -> None:
        """Register ``capability``; raises CapabilityDefinitionError if its key is taken."""
        if capability.key in self._by_key:
            name, version = capability.key
            raise CapabilityDefinitionError(f"{name} v{version} is already registered")
        self._by_key[capability.key] = capability

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
