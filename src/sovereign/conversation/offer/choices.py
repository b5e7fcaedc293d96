"""What the model is offered beyond a capability's own arguments, chosen from what exists.

Product parameters, removed again before the executor sees the call:

- ``facts``: for a capability that declares a :class:`~sovereign.executor.facts.FactSheet`
  with more than one topic, the topics the question asks about (an enum of the sheet's
  topic names, each explained), so the product states exactly those (DESIGN §4);
- ``also_asked``: for every capability with a fact sheet, whether the question asks
  anything this call does not read. ``nothing_else`` lets the turn end with the facts the
  product states, with no second request to the model (a household read is one decision);
  ``something_else`` asks the model again for the rest;
- an argument whose values the capability lists (:attr:`Capability.choices`, e.g. Home
  Assistant's allowlisted entities) becomes an enum of those values, each shown with
  the household's name for it, so the model picks one instead of guessing an id.

A capability argument called ``facts`` or ``also_asked`` would be ambiguous: offering
such a capability raises (a naming mistake, caught before any model sees the list).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sovereign.executor import Capability

from ..backends.base import ToolDefinition

FACTS = "facts"
"""The product parameter naming the facts a question asks about."""
ALSO_ASKED = "also_asked"
"""The product parameter saying whether the question asks more than the call reads."""
NOTHING_ELSE, SOMETHING_ELSE = "nothing_else", "something_else"


def with_choices(parameters: dict[str, Any], capability: Capability | None) -> dict[str, Any]:
    """``parameters`` (already narrowed for the round) with the product parameters of
    ``capability`` added (a new object when anything changes).

    Raises:
        ValueError: the capability has an argument of its own called ``facts`` or
            ``also_asked``.
    """
    if capability is None:
        return parameters
    properties = dict(parameters.get("properties", {}))
    required = list(parameters.get("required", []))
    for name in (FACTS, ALSO_ASKED):
        if name in capability.arguments_schema.get("properties", {}):
            raise ValueError(f"{capability.name}: an argument may not be called {name!r}")
    sheet = capability.facts
    if sheet is not None and len(sheet.topics) > 1:
        listed = "; ".join(f"{topic.name}: {topic.means}" for topic in sheet.topics)
        properties[FACTS] = {
            "type": "array",
            "items": {"enum": [topic.name for topic in sheet.topics]},
            "description": f"The facts the question asks about ({listed}). Empty for a "
            "general check.",
        }
        required.append(FACTS)  # chosen first: the grammar writes required keys in order
    if sheet is not None:
        properties[ALSO_ASKED] = {
            "type": "string",
            "enum": [NOTHING_ELSE, SOMETHING_ELSE],
            "description": f"{NOTHING_ELSE}: this call answers the whole question; "
            f"{SOMETHING_ELSE}: the question also asks something this call does not read.",
        }
        required.append(ALSO_ASKED)
    for argument, choices in offered_choices(capability).items():
        if argument in properties and choices:
            listed = ", ".join(f"{c.value} ({c.label})" for c in choices)
            properties[argument] = {
                "type": "string",
                "enum": [c.value for c in choices],
                "description": f"One of: {listed}.",
            }
    if properties == parameters.get("properties", {}):
        return parameters
    return {**parameters, "properties": properties, "required": required}


@dataclass(frozen=True)
class Chosen:
    """What a call's product parameters said, taken out of its arguments.

    Attributes:
        arguments: the capability's own arguments (None: they were not a JSON object).
        topics: the facts named (``facts``), in order, the capability's only.
        rest_asked: whether the question asks more than this call reads (True unless
            the decision said ``nothing_else``: asking again is the safe side).
    """

    arguments: dict[str, Any] | None
    topics: tuple[str, ...] = ()
    rest_asked: bool = True


def split_product_parameters(
    capability: Capability | None, arguments: Mapping[str, Any] | None
) -> Chosen:
    """The call's own arguments, with ``facts`` and ``also_asked`` taken out.

    Topics that are not the capability's are dropped; a ``facts`` that is not a list of
    names names none. Arguments of a capability without a fact sheet are left as they
    are (a ``facts`` there is the model's mistake, refused by validation)."""
    if arguments is None or capability is None or capability.facts is None:
        return Chosen(dict(arguments) if arguments is not None else None)
    own = {k: v for k, v in arguments.items() if k not in (FACTS, ALSO_ASKED)}
    named = arguments.get(FACTS)
    known = {topic.name for topic in capability.facts.topics}
    topics = tuple(dict.fromkeys(t for t in named if t in known)) if isinstance(named, list) else ()
    return Chosen(own, topics, arguments.get(ALSO_ASKED) != NOTHING_ELSE)


def offered_choices(capability: Capability) -> Mapping[str, Any]:
    """``capability``'s arguments chosen from what exists (``{argument: [Choice, ...]}``,
    :attr:`~sovereign.executor.Capability.choices`); ``{}`` when it has none or they
    cannot be listed right now."""
    if capability.choices is None:
        return {}
    try:
        return capability.choices()
    except Exception:  # a settings file read failed: offer the plain argument
        return {}


def general_check(tool: ToolDefinition) -> dict[str, Any]:
    """The product parameters of a general check with the offered ``tool``, proposed by
    the product rather than the model: no topic named (all key facts, briefly) and
    something else asked, so the model is asked for the rest after the facts (it chose
    to answer in words, and the question may ask more than the read says); ``{}`` for a
    tool that takes neither."""
    properties = tool["function"].get("parameters", {}).get("properties", {})
    check = {FACTS: [], ALSO_ASKED: SOMETHING_ELSE}
    return {key: value for key, value in check.items() if key in properties}
