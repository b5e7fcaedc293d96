"""Whether a value chosen from what exists is the thing the question asks about.

An argument the model cannot know is chosen from what exists (:mod:`.choices`: Home
Assistant's allowlisted entities, each shown with the household's name for it). A small
model always picks one of them, even when the question is about something none of them
is: "whats the chest freezer in the garage reading?" read the kitchen temperature, and
"quanta umidità c'è in cantina?" too. Offered "none of these" beside the values, in the
decision itself or in a request of its own, it chose an entity every time. Asked about
one pair at a time (this question, this entity: yes or no), it told them apart (the
figures are in docs/decisions/offered-tools-and-arguments.md).

So a chosen value is checked with one short decision of that shape, unless the question
already holds every word of the value's name or of its id (``lock.back_door`` asked
about as "is the back door locked?"): the check costs a second or so, and words the
household typed themselves need none. Before any check, a value gives way to another
whose name the question holds more words of, counted as :func:`named_in` reads them
("und das garagentor?" after the front door chose the back door). A value the check says
no to is read no further (a second choice after the no was tried and not kept:
docs/decisions/offered-tools-and-arguments.md). Comparing words is language-blind on
purpose (a household names its entities in its own language), but for the groups of
words a capability declares alike across languages: a household that named its entities
in English, or asks by their ids, asks in its own words ("la lampada sul pianerottolo"
for "Landing light"), and the check, asked about such a pair, said no as often as yes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sovereign.executor import Capability, Choice

from ..backends.base import Message, ModelReply, ToolDefinition
from .catalog import ToolCatalog
from .choices import offered_choices
from .subjects import Alike, alike_held, begun, family_of, folded_words

SAME_THING = "same_thing"
"""The decision's one tool: ``{"answer": "yes" | "no"}``."""

_SHORTEST = 3
"""Words shorter than this in a name ("of", "a") need not be in the question."""

_INSTRUCTIONS = (
    "You check one thing: whether a smart-home entity measures or controls exactly the "
    "thing a question asks about (the same object, the same room or place, the same "
    "quantity). A different room, object or quantity is not the same thing."
)


def same_thing_tool() -> ToolDefinition:
    """The tool the check's decision is forced to call (OpenAI ``tools`` entry)."""
    return {
        "type": "function",
        "function": {
            "name": SAME_THING,
            "description": "Say whether the entity answers the question.",
            "parameters": {
                "type": "object",
                "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
                "required": ["answer"],
            },
        },
    }


def named_in(question: str, value: str, label: str, alike: Alike = ()) -> bool:
    """Whether ``question`` holds every word (of three letters or more) of ``label`` (the
    household's name for the value) or of ``value``'s own words (``lock.back_door``: "back
    door"), each as a word or the start of one ("doors" holds "door"), case- and
    accent-blind; a word of a group of ``alike`` the question holds holds every word of
    its group ("pianerottolo" holds "landing", :attr:`~sovereign.executor.Phrases.alike`)."""
    return any(held == wanted > 0 for held, wanted in _held_words(question, value, label, alike))


def named_with(earlier: str, question: str, value: str, label: str, alike: Alike = ()) -> bool:
    """Whether a follow-up ``question`` names the value with the household's message
    before it (``earlier``): the question holds a word of ``label`` or of ``value``'s own
    words, and the two messages together hold every word of it, as :func:`named_in`
    reads them. "¿y en la calle?" after "¿cuántos grados marca la cocina?" names
    "Outside temperature" (the street is outside, degrees a temperature); "and in the
    fridge?" after the kitchen names no word of "Kitchen temperature", so the words
    before it do not count for it."""
    if not words_named(question, value, label, alike):
        return False
    return named_in(f"{earlier}\n{question}", value, label, alike)


def words_named(question: str, value: str, label: str, alike: Alike = ()) -> int:
    """How many distinct words (of three letters or more) of ``label``, of ``value``'s own
    words and of its kind (the domain of its id: ``light`` of ``light.attic``)
    ``question`` holds as :func:`named_in` reads them: "und das garagentor?" holds one
    of "Garage door" (the compound begins with "garage") and none of "Back door"; "la
    luz del desván" holds two of ``light.attic`` (a light, the attic) and one of
    "Landing light". A word the name and the id share, or a word and its own in another
    language (a group of ``alike``: "Küche" named ``sensor.kitchen_temperature``), counts
    once."""
    words = _question_words(question, alike)
    kind, _, own = value.partition(".")
    names = {w for name in (label, own.replace("_", " "), kind) for w in folded_words(name)}
    one = _one_thing(alike)
    held = {one.get(w, w) for w in names if len(w) >= _SHORTEST and begun(words, [w])}
    return len(held)


@functools.lru_cache(maxsize=16)
def _one_thing(alike: Alike) -> dict[str, str]:
    """Each word that is an entry of one word of a group of ``alike`` → the first word of
    the first such group: one thing, whichever language names it. Folded once for every
    value compared."""
    one: dict[str, str] = {}
    for group in alike:
        first = folded_words(group[0])[0]
        for entry in group:
            if len(folded := folded_words(entry)) == 1:
                one.setdefault(folded[0], first)
    return one


def _held_words(question: str, value: str, label: str, alike: Alike) -> list[tuple[int, int]]:
    """For ``label`` and ``value``'s own words: (the words ``question`` holds, the words
    to hold)."""
    words = _question_words(question, alike)
    counts = []
    for name in (label, value.split(".", 1)[-1].replace("_", " ")):
        wanted = [w for w in folded_words(name) if len(w) >= _SHORTEST]
        counts.append((sum(begun(words, [x]) for x in wanted), len(wanted)))
    return counts


@functools.lru_cache(maxsize=256)
def _question_words(question: str, alike: Alike) -> tuple[str, ...]:
    """The folded words of ``question`` and of every group of ``alike`` it names: read
    once for a question, though every value's name is compared with them."""
    words = folded_words(question)
    for group in alike_held(question, alike):
        words += [word for entry in group for word in folded_words(entry)]
    return tuple(words)


def better_named(question: str, chosen: Chosen, alike: Alike = ()) -> str | None:
    """The value among ``chosen.others`` whose name ``question`` holds more words of than
    any other and than the value chosen (:func:`words_named`, with ``alike``), or
    ``None``: a follow-up names its thing in its own words, and a small model often
    chooses the thing before again ("und das garagentor?" after the front door chose the
    back door)."""
    held = words_named(question, chosen.value, chosen.label, alike)
    return best_named(question, chosen.others, alike, more_than=held)


def best_named(
    question: str, choices: Iterable[Choice], alike: Alike = (), more_than: int = 0
) -> str | None:
    """The value among ``choices`` whose name ``question`` holds more words of
    (:func:`words_named`) than any other's and than ``more_than``, or ``None`` (none
    named, or two named as much)."""
    scores = [(words_named(question, c.value, c.label, alike), c.value) for c in choices]
    best = max((score for score, _ in scores), default=0)
    leaders = [value for score, value in scores if score == best]
    return leaders[0] if best > more_than and len(leaders) == 1 else None


def check_messages(question: str, label: str) -> list[Message]:
    """The check's whole prompt: the instructions, then the question and the value's name.
    The question before it is left out: with it, the model said yes to a fridge after
    the kitchen and no to "vale, ¿y en la calle? mira el sensor de fuera" after the
    kitchen's temperature, more often than with the question alone."""
    return [
        {"role": "system", "content": _INSTRUCTIONS},
        {
            "role": "user",
            "content": f"Question: {question}\nEntity: {label}\n"
            "Does this entity answer the question?",
        },
    ]


def said_no(reply: ModelReply) -> bool:
    """Whether the check's ``reply`` says the entity is not the thing asked about. A reply
    without the call (a backend that does not force tools) says nothing: the choice stands."""
    for call in reply.tool_calls:
        if call.name == SAME_THING and isinstance(call.arguments, dict):
            answer: Any = call.arguments.get("answer")
            return answer == "no"
    return False


@dataclass(frozen=True)
class Chosen:
    """A value a call chose from what exists.

    Attributes:
        argument: the argument's name (``"entity_id"``).
        value: the value chosen (``"sensor.kitchen_temperature"``).
        label: the household's name for it ("Kitchen temperature").
        others: the argument's other choices, in the order offered.
    """

    argument: str
    value: str
    label: str
    others: tuple[Choice, ...]

    def instead(self, value: str) -> Chosen:
        """The same argument with ``value``, one of :attr:`others`, chosen in its place."""
        every = (Choice(value=self.value, label=self.label), *self.others)
        label = next(c.label for c in every if c.value == value)
        return Chosen(self.argument, value, label, tuple(c for c in every if c.value != value))


def chosen_values(capability: Capability, arguments: Mapping[str, Any]) -> list[Chosen]:
    """Each argument of ``arguments`` that ``capability`` offers as a choice among what
    exists and the call filled with one of them (a value not among them is left to
    validation, which refuses it)."""
    named = []
    for argument, choices in offered_choices(capability).items():
        value = arguments.get(argument)
        label = next((c.label for c in choices if c.value == value), None)
        if isinstance(value, str) and label:
            others = tuple(c for c in choices if c.value != value)
            named.append(Chosen(argument, value, label, others))
    return named


def choosing_read(
    capability: Capability, tools: Iterable[ToolDefinition], catalog: ToolCatalog
) -> tuple[ToolDefinition, Capability] | None:
    """For a ``capability`` that chooses nothing from what exists (Home Assistant's list
    of the entities it may read), the offered tool of its family that does (its read of
    one entity) with that tool's capability, or ``None``."""
    if offered_choices(capability):
        return None
    return _family_read(capability, tools, catalog, chooses=True)


def listing_read(
    capability: Capability, tools: Iterable[ToolDefinition], catalog: ToolCatalog
) -> ToolDefinition | None:
    """The offered tool that reads ``capability``'s family with nothing chosen from what
    exists (Home Assistant's list of the entities it may read, beside its read of one),
    or ``None``."""
    found = _family_read(capability, tools, catalog, chooses=False)
    return found[0] if found else None


def _family_read(
    capability: Capability, tools: Iterable[ToolDefinition], catalog: ToolCatalog, *, chooses: bool
) -> tuple[ToolDefinition, Capability] | None:
    """The first offered tool, other than ``capability``'s own, that reads its family
    and chooses something from what exists (``chooses``) or nothing, with its
    capability; ``None`` for a capability of no family or when no such tool is offered."""
    family = family_of(capability)
    if family is None:
        return None
    for tool in tools:
        other = catalog.capabilities.get(catalog.resolve_target(tool["function"]["name"]))
        if (
            other is not None
            and other.name != capability.name
            and family_of(other) == family
            and bool(offered_choices(other)) == chooses
        ):
            return tool, other
    return None
