"""Capability names ↔ model-safe tool names, in one place (DESIGN §4, issue 5).

Capabilities are named with dots (``web.search``); OpenAI-style tool names allow
only ``[a-zA-Z0-9_-]``. Every translation between the two goes through
:class:`ToolCatalog`; nothing else in the code rewrites a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sovereign.executor import Registry

from .backends.base import ToolDefinition

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def model_safe_name(capability: str) -> str:
    """``web.search`` → ``web_search``: every character outside ``[a-zA-Z0-9_-]`` becomes ``_``."""
    return _UNSAFE.sub("_", capability)


@dataclass(frozen=True)
class ToolTarget:
    """The capability a model-safe tool name stands for."""

    capability: str
    version: int


class ToolCatalog:
    """The tools offered to the model for one turn: latest version of each capability.

    Args:
        definitions: ``Registry.tool_definitions()`` entries (``name``,
            ``version``, ``description``, ``parameters``).

    Raises:
        ValueError: two capabilities map to the same model-safe name (a naming
            mistake in the registry, caught before any model sees the list).
    """

    def __init__(self, definitions: list[dict[str, Any]]) -> None:
        self._by_safe: dict[str, ToolTarget] = {}
        self._tools: list[ToolDefinition] = []
        for definition in definitions:
            safe = model_safe_name(definition["name"])
            if safe in self._by_safe:
                raise ValueError(f"{definition['name']} and another capability map to {safe}")
            self._by_safe[safe] = ToolTarget(definition["name"], definition["version"])
            self._tools.append(_openai_tool(safe, definition))

    @classmethod
    def from_registry(cls, registry: Registry) -> ToolCatalog:
        """The catalog of everything ``registry`` holds (latest versions)."""
        return cls(registry.tool_definitions())

    def tools(self) -> list[ToolDefinition]:
        """OpenAI tool definitions with model-safe names (a fresh list each call)."""
        return [dict(tool) for tool in self._tools]

    def resolve(self, tool_name: str) -> ToolTarget | None:
        """The capability behind a name the model used, or ``None`` if it names none.

        The model-safe name is the expected form; the dotted capability name is
        accepted too, since small models sometimes write it.
        """
        target = self._by_safe.get(tool_name)
        if target is None:
            target = next((t for t in self._by_safe.values() if t.capability == tool_name), None)
        return target

    def tool_name(self, capability: str) -> str:
        """The model-safe name for ``capability`` (for history the model will read)."""
        return model_safe_name(capability)


def _openai_tool(safe: str, definition: dict[str, Any]) -> ToolDefinition:
    return {
        "type": "function",
        "function": {
            "name": safe,
            "description": definition["description"],
            "parameters": definition["parameters"],
        },
    }
