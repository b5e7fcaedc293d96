"""Questions in two parts: each part named, so that the second call is not forgotten.

A small model asked "How hot is the device, and how many queries did Pi-hole block
today?" reads Pi-hole and answers both parts from that one result ("the device is
at room temperature"). A decision makes one call per round, so the second part
needs a second round, which the model rarely takes on its own.

:func:`question_parts` cuts a question where a new question or request begins
(", and how …", "; ", "? ", ", then search …"), and :func:`part_family` reads which
capability family a part's words belong to (an explicit lexicon, English, checked
in a fixed order: the web, Pi-hole, Home Assistant, this device). When two parts
belong to different families, each decision is told to decide for one part only
(the first, then the next one no call of the turn served yet), in a system message
placed last, after the results, where a small model reads it (the same words in
the system prompt were not followed on the benchmark's two-part questions). This is
a hint, never a bypass: the choice stays the model's, among what it is offered. See
docs/decisions/offered-tools-and-arguments.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_STARTS = (
    r"(?:how|what|what's|whats|which|is|are|was|were|when|where|who|does|do|did|has|have|"
    r"can|could|check|tell|show|give|search|look|find|list|also)\b"
)
_SPLIT = re.compile(
    rf",?\s+(?:and\s+then|and|then|plus)\s+(?={_STARTS})|,\s+(?={_STARTS})|[;?]\s+",
    re.IGNORECASE,
)
FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("web", re.compile(r"\b(?:search|look\s+up|google|the\s+web|online|internet)\b", re.I)),
    (
        "pihole",
        re.compile(
            r"\b(?:pi-?hole|ad[-\s]?block\w*|ads|adverts?|dns|quer(?:y|ies)|blocklist)\b", re.I
        ),
    ),
    (
        "home_assistant",
        re.compile(
            r"\b(?:kitchen|living\s+room|bedroom|bathroom|hallway|attic|garden|front\s+door|"
            r"back\s+door|doors?|windows?|lights?|lamps?|locks?|locked|thermostat|heating|"
            r"humidity|room\s+temperature)\b",
            re.I,
        ),
    ),
    (
        "system",
        re.compile(
            r"\b(?:device|box|cpu|processor|load|memory|ram|disk|storage|uptime|running|"
            r"reboot(?:ed)?|hot)\b",
            re.I,
        ),
    ),
)
"""Capability family and the words of a part that belong to it, in the order read."""


def question_parts(question: str) -> list[str]:
    """The parts of ``question`` where a new question or request begins, trimmed.

    E.g. "How hot is the device, and how many queries did Pi-hole block today?" →
    ["How hot is the device", "how many queries did Pi-hole block today"].
    """
    parts = (p.strip(" ,.?!") for p in _SPLIT.split(question))
    return [p for p in parts if p]


def part_family(part: str) -> str | None:
    """The capability family whose words ``part`` uses first in :data:`FAMILIES`' order
    (``"web"``, ``"pihole"``, ``"home_assistant"``, ``"system"``), or ``None``."""
    return next((family for family, words in FAMILIES if words.search(part)), None)


@dataclass(frozen=True)
class Part:
    """One part of a question and the offered tool that reads what it asks."""

    text: str
    family: str
    tool: str


def household_parts(question: str, tools: Sequence[Mapping[str, Any]]) -> list[Part]:
    """The parts of ``question`` that belong to two or more different families, each
    with the offered tool of its family; empty for a question in one part or of one
    family (a part of no family, "what's the capital of France", is the model's own).

    Args:
        question: the person's latest message.
        tools: the round's offered tools (OpenAI definitions, model-safe names).
    """
    found = []
    for text in question_parts(question):
        family = part_family(text)
        tool = _tool_of(family, tools) if family else None
        if family and tool:
            found.append(Part(text, family, tool))
    return found if len({p.family for p in found}) > 1 else []


def parts_hint(parts: Sequence[Part], called: Iterable[str]) -> str | None:
    """The sentence for a decision about the parts of a two-part question, or ``None``.

    Args:
        parts: :func:`household_parts` of the question.
        called: the model-safe names of the tools this turn has called so far.

    Before any call: "This question has 2 parts. Decide now only for its first part,
    “…” (system_health reads that); the other parts come next." After one: "A part of
    this question has been looked up. Decide now only for the next part, “…”
    (pihole_summary reads that)." ``None`` when every part was served.
    """
    called_families = {_family_of(name) for name in called}
    open_parts = [p for p in parts if p.family not in called_families]
    if not open_parts:
        return None
    part = open_parts[0]
    if len(open_parts) == len(parts):
        return (
            f"This question has {len(parts)} parts. Decide now only for its first part, "
            f"“{part.text}” ({part.tool} reads that); the other parts come next."
        )
    return (
        f"A part of this question has been looked up. Decide now only for the next part, "
        f"“{part.text}” ({part.tool} reads that)."
    )


def _tool_of(family: str, tools: Sequence[Mapping[str, Any]]) -> str | None:
    prefix = "web_search" if family == "web" else f"{family}_"
    names = [str(t.get("function", {}).get("name", "")) for t in tools]
    return " or ".join(n for n in names if n.startswith(prefix)) or None


def _family_of(tool_name: str) -> str | None:
    return next((family for family, _ in FAMILIES if tool_name.startswith(f"{family}_")), None)
