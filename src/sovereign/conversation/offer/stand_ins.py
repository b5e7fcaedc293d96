"""Stand-ins for what a turn withholds: a choice that leads to the truth, not to a neighbour.

A small model picks the nearest tool it is shown. With Home Assistant not set up,
"what's the kitchen temperature?" went to ``system_health`` (a CPU temperature);
with web search off, "the weather in Berlin tomorrow" went to ``pihole_summary``;
with Pi-hole not set up, its question went to a web search. Withholding the tool
(docs/decisions/offered-tools-and-arguments.md) removed the wrong call but not the
pull towards some call.

So each family a turn withholds is offered as one stand-in: a tool without
parameters, named for what is missing (``home_assistant_not_set_up``,
``web_switched_off``, ``pihole_not_set_up``) and described by the questions it would
have served. Choosing it runs nothing and reaches no executor: the turn answers with
the sentence that says what is missing and how to change it
(:func:`..voice.sentences.unavailable_sentence`). No capability that cannot run is offered,
and a question that needs one gets a true answer instead of a neighbour's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..backends.base import ModelReply, ToolDefinition
from ..voice.sentences import unavailable_sentence, withheld_subject
from .catalog import ToolCatalog


@dataclass(frozen=True)
class StandIn:
    """One withheld family as a decision option.

    Attributes:
        name: its model-safe tool name, e.g. ``web_switched_off``.
        sentence: what the assistant says when it is chosen (the withheld family's
            :func:`~..voice.sentences.unavailable_sentence`).
        subject: what a question it stands for does, e.g. "asks about ad blocking …".
    """

    name: str
    sentence: str
    subject: str

    def tool(self) -> ToolDefinition:
        """An OpenAI tool definition without parameters."""
        state = self.sentence.split(", so ", 1)[0].rstrip(".")
        description = f"Only for a question that {self.subject}. {state}."
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            },
        }


def stand_ins(catalog: ToolCatalog) -> tuple[StandIn, ...]:
    """One :class:`StandIn` per family ``catalog`` withholds.

    Listed in the reverse of :attr:`ToolCatalog.withheld` (switched-off families,
    web search among them, before those not set up): a 1.5B model leans towards the
    first of two stand-ins, and measured on the household questions this order sent
    more of them to the right one (docs/decisions/offered-tools-and-arguments.md).
    A name that collides with an offered tool or a capability is skipped: a
    stand-in must never be mistaken for something that runs.
    """
    found: dict[str, StandIn] = {}
    for withheld in catalog.withheld:
        facts = (withheld.capability, withheld.why, withheld.policy_key)
        name, subject = withheld_subject(*facts)
        if name not in found and catalog.resolve(name) is None:
            found[name] = StandIn(name, unavailable_sentence(*facts), subject)
    return tuple(reversed(found.values()))


def chosen_stand_ins(reply: ModelReply, offered: Iterable[StandIn]) -> list[StandIn]:
    """The stand-ins ``reply`` calls, in its order (empty when it calls none)."""
    by_name = {stand_in.name: stand_in for stand_in in offered}
    return [by_name[call.name] for call in reply.tool_calls if call.name in by_name]
