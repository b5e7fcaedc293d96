"""Stand-ins: a choice that leads to the truth, not to a neighbour (DESIGN §4).

A small model picks the nearest tool it is shown. With Home Assistant not set up,
"what's the kitchen temperature?" went to ``system_health`` (a CPU temperature);
with web search off, "the weather in Berlin tomorrow" went to ``pihole_summary``;
asked to switch off a light, it read the light and said it was on.

So the decision offers stand-ins: tools without parameters that run nothing and
reach no executor. One per family the turn withholds, named for what is missing
(``smart_home_not_set_up``, ``web_switched_off``, ``pihole_not_set_up``) and
described by the questions it would have served (the family's
:attr:`~sovereign.executor.facts.Phrases.stands_for`); and, while anything that
reads the home or the device is offered, ``change_something``, for a request to
switch, lock or set something, which nothing here can do. Choosing one answers with
the sentence that says so, in the household's language (:mod:`..voice.sentences`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sovereign.executor import Effect, Locality

from ..backends.base import ModelReply, ToolDefinition
from ..voice.catalogs import Voice
from ..voice.sentences import own, stand_in_subject, unavailable_sentence
from .catalog import ToolCatalog
from .subjects import family_of

CHANGE = "change_something"
CHANGE_SUBJECT = (
    "asks to switch, turn on or off, open, close, lock, unlock, set or change something "
    "in the home or on this device"
)
OTHER_DEVICES = "other_device_unreadable"
OTHER_DEVICES_SUBJECT = (
    "asks how one of the household's other devices or things is right now (a phone, a "
    "laptop, a tablet, the TV, a console, the car): whether it is on, charging or "
    "connected, its battery, or how many are online; not one asking for advice about them"
)


@dataclass(frozen=True)
class StandIn:
    """One decision option that runs nothing.

    Attributes:
        name: its model-safe tool name, e.g. ``web_switched_off``.
        sentence: what the assistant says when it is chosen, in the household's language.
        subject: what a question it stands for does (English, for the model).
        family: the household family it stands for (:func:`~.subjects.family_of`), or
            ``None`` (it stands for no family that declares subjects).
    """

    name: str
    sentence: str
    subject: str
    family: str | None = None

    def tool(self) -> ToolDefinition:
        """An OpenAI tool definition without parameters."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": f"Only for a question that {self.subject}.",
                "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            },
        }


def stand_ins(catalog: ToolCatalog, voice: Voice) -> tuple[StandIn, ...]:
    """The stand-ins of a turn: one per family ``catalog`` withholds that declares one,
    then :data:`CHANGE` while a read of the home or the device is offered.

    Listed in the reverse of :attr:`ToolCatalog.withheld` (switched-off families, web
    search among them, before those not set up): a 1.5B model leans towards the first of
    two stand-ins, and measured on the household questions this order sent more of them
    to the right one (docs/decisions/offered-tools-and-arguments.md). A name that collides
    with an offered tool or a capability is skipped: a stand-in must never be mistaken for
    something that runs.
    """
    found: dict[str, StandIn] = {}
    for withheld in catalog.withheld:
        capability = catalog.capabilities.get(withheld.capability)
        named = stand_in_subject(capability, withheld.why) if capability else None
        if named is None or named[0] in found or catalog.resolve(named[0]) is not None:
            continue
        sentence = unavailable_sentence(capability, withheld.why, voice)
        found[named[0]] = StandIn(named[0], sentence, named[1], family_of(capability))
    listed = list(reversed(found.values()))
    if _reads_the_home(catalog) and catalog.resolve(CHANGE) is None:
        listed.append(StandIn(CHANGE, own("cannot_change", voice), CHANGE_SUBJECT))
    return tuple(listed)


def other_devices_stand_in(voice: Voice) -> StandIn:
    """:data:`OTHER_DEVICES`: offered for a question naming another of the household's
    things (a phone, a laptop, "how many devices are online") that no family reads. A
    question about how such a thing is right now was answered in prose from nothing ("The
    current number of devices online at home is 15."); choosing this says, in the
    household's language, that only this device can be read. Advice about such a thing
    ("my phone storage is full, what should I delete?") is still answered in prose."""
    return StandIn(OTHER_DEVICES, own("other_devices", voice), OTHER_DEVICES_SUBJECT)


def _reads_the_home(catalog: ToolCatalog) -> bool:
    """Whether an offered capability only reads the home or the device (not the web)."""
    return any(
        c.effect is Effect.READ_ONLY and (c.facts is not None or c.locality is Locality.LOCAL)
        for name, c in catalog.capabilities.items()
        if catalog.offers(name)
    )


def chosen_stand_ins(reply: ModelReply, offered: Iterable[StandIn]) -> list[StandIn]:
    """The stand-ins ``reply`` calls, in its order (empty when it calls none)."""
    by_name = {stand_in.name: stand_in for stand_in in offered}
    return [by_name[call.name] for call in reply.tool_calls if call.name in by_name]
