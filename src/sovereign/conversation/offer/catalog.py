"""The tools a turn offers, and capability names ↔ model-safe tool names (DESIGN §4).

Capabilities are named with dots (``web.search``); OpenAI-style tool names allow
only ``[a-zA-Z0-9_-]``. Every translation between the two goes through
:class:`ToolCatalog`; nothing else in the code rewrites a name.

A turn offers only what can run (:meth:`ToolCatalog.for_turn`): a capability
that is not available on this device (its settings file is missing or unusable)
or whose policy switch is off is withheld, and the turn says so in words instead
(:func:`~..voice.prompts.system_prompt`). A tool that cannot run is a tool a small
model picks anyway, and its refusal then replaces the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sovereign.executor import Capability, Registry

from ..backends.base import ToolDefinition, model_safe_name
from ..voice.catalogs import Voice
from ..voice.sentences import unavailable_sentence
from .choices import with_choices
from .guidance import ArgumentGuide, unguided


@dataclass(frozen=True)
class ToolTarget:
    """The capability a model-safe tool name stands for."""

    capability: str
    version: int


@dataclass(frozen=True)
class Withheld:
    """A capability the turn does not offer, and why.

    ``why`` is ``"unavailable"`` (not set up on this device: its ``available``
    check said no) or ``"switched_off"`` (its policy switch, ``policy_key``, is off).
    """

    capability: str
    why: Literal["unavailable", "switched_off"]
    policy_key: str | None = None


class ToolCatalog:
    """The tools offered to the model for one turn: latest version of each capability.

    Args:
        definitions: ``Registry.tool_definitions()`` entries (``name``,
            ``version``, ``description``, ``parameters``) of the offered capabilities.
        withheld: the capabilities not offered this turn (for the system prompt).

    Raises:
        ValueError: two capabilities map to the same model-safe name (a naming
            mistake in the registry, caught before any model sees the list).
    """

    def __init__(
        self,
        definitions: list[dict[str, Any]],
        withheld: tuple[Withheld, ...] = (),
        withheld_definitions: list[dict[str, Any]] | None = None,
        capabilities: Mapping[str, Capability] | None = None,
    ) -> None:
        self._by_safe: dict[str, ToolTarget] = {}
        self._tools: list[ToolDefinition] = []
        self.withheld = withheld
        self.capabilities = dict(capabilities or {})
        """The offered and withheld capabilities by name (what they declare beside them)."""
        for definition in [*definitions, *(withheld_definitions or [])]:
            safe = model_safe_name(definition["name"])
            if safe in self._by_safe:
                raise ValueError(f"{definition['name']} and another capability map to {safe}")
            self._by_safe[safe] = ToolTarget(definition["name"], definition["version"])
        self._tools = [_openai_tool(model_safe_name(d["name"]), d) for d in definitions]

    @classmethod
    def from_registry(cls, registry: Registry) -> ToolCatalog:
        """The catalog of everything ``registry`` holds (latest versions)."""
        definitions = registry.tool_definitions()
        return cls(definitions, capabilities=_capabilities(registry, definitions))

    @classmethod
    def for_turn(cls, registry: Registry, policy: Mapping[str, bool]) -> ToolCatalog:
        """The catalog of one turn: the latest version of each capability that is
        available (:meth:`Capability.is_available`) and allowed by ``policy``
        (no ``policy_key``, or ``policy[policy_key] is True``); the others are
        listed in :attr:`withheld`, unavailable ones before switched-off ones.

        A withheld capability is never shown to the model, but a name for it still
        resolves (a model may name a tool it saw earlier in the conversation), so the
        executor refuses it on its own terms (POLICY_DISABLED when switched off) and
        the audit log and receipts name it."""
        offered, withheld, held_back = [], [], []
        for definition in registry.tool_definitions():
            capability = registry.get(definition["name"], definition["version"])
            assert capability is not None  # tool_definitions lists registered capabilities
            key = capability.policy_key
            if not capability.is_available():
                withheld.append(Withheld(capability.name, "unavailable", key))
            elif key is not None and policy.get(key) is not True:
                withheld.append(Withheld(capability.name, "switched_off", key))
            else:
                offered.append(definition)
                continue
            held_back.append(definition)
        withheld.sort(key=lambda w: w.why != "unavailable")
        found = _capabilities(registry, registry.tool_definitions())
        return cls(offered, tuple(withheld), held_back, found)

    def unavailable_sentences(self, voice: Voice) -> list[str]:
        """What the assistant says about each withheld family, once per sentence, in
        :attr:`withheld` order and ``voice``'s language
        (:func:`~..voice.sentences.unavailable_sentence`)."""
        said = (
            unavailable_sentence(self.capabilities.get(w.capability), w.why, voice)
            for w in self.withheld
        )
        return list(dict.fromkeys(said))

    def tools(self, guide: ArgumentGuide | None = None) -> list[ToolDefinition]:
        """OpenAI tool definitions with model-safe names (a fresh list each call).

        With ``guide``, each tool's parameters are narrowed for this round
        (:meth:`ArgumentGuide.narrow`) and a tool it rules out is left out; without,
        every parameter is offered as a plain schema (:func:`~.guidance.unguided`).
        """
        tools = []
        for tool in self._tools:
            function = tool["function"]
            parameters = function["parameters"]
            narrowed = guide.narrow(parameters) if guide else unguided(parameters)
            if narrowed is not None:
                capability = self.capabilities.get(self.resolve_target(function["name"]))
                narrowed = with_choices(narrowed, capability)
                tools.append({"type": "function", "function": {**function, "parameters": narrowed}})
        return tools

    def resolve_target(self, tool_name: str) -> str:
        """The capability name behind a tool name ("" when it names none)."""
        target = self.resolve(tool_name)
        return target.capability if target else ""

    def offers(self, capability: str) -> bool:
        """Whether ``capability`` is among this turn's tools (not merely resolvable)."""
        return any(tool["function"]["name"] == model_safe_name(capability) for tool in self._tools)

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


def _capabilities(registry: Registry, definitions: list[dict[str, Any]]) -> dict[str, Capability]:
    found = {}
    for definition in definitions:
        capability = registry.get(definition["name"], definition["version"])
        if capability is not None:
            found[capability.name] = capability
    return found


def _openai_tool(safe: str, definition: dict[str, Any]) -> ToolDefinition:
    return {
        "type": "function",
        "function": {
            "name": safe,
            "description": definition["description"],
            "parameters": definition["parameters"],
        },
    }
