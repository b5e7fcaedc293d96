"""What the model is offered beyond a capability's own arguments, chosen from what exists.

Two product parameters, both removed again before the executor sees the call:

- ``facts``: for a capability that declares a :class:`~sovereign.executor.facts.FactSheet`
  with more than one topic, the topics the question asks about (an enum of the sheet's
  topic names, each explained), so the product states exactly those (DESIGN §4);
- an argument whose values the capability lists (:attr:`Capability.choices`, e.g. Home
  Assistant's allowlisted entities) becomes an enum of those values, each shown with
  the household's name for it, so the model picks one instead of guessing an id.

A capability argument called ``facts`` would be ambiguous: offering such a capability
raises (a naming mistake, caught before any model sees the list).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sovereign.executor import Capability

FACTS = "facts"
"""The product parameter naming the facts a question asks about."""


def with_choices(parameters: dict[str, Any], capability: Capability | None) -> dict[str, Any]:
    """``parameters`` (already narrowed for the round) with the product parameters of
    ``capability`` added (a new object when anything changes).

    Raises:
        ValueError: the capability has an argument of its own called ``facts``.
    """
    if capability is None:
        return parameters
    properties = dict(parameters.get("properties", {}))
    if FACTS in capability.arguments_schema.get("properties", {}):
        raise ValueError(f"{capability.name}: an argument may not be called {FACTS!r}")
    sheet = capability.facts
    if sheet is not None and len(sheet.topics) > 1:
        listed = "; ".join(f"{topic.name}: {topic.means}" for topic in sheet.topics)
        properties[FACTS] = {
            "type": "array",
            "items": {"enum": [topic.name for topic in sheet.topics]},
            "description": f"The facts the question asks about ({listed}). Empty for a "
            "general check.",
        }
    for argument, choices in _choices(capability).items():
        if argument in properties and choices:
            listed = ", ".join(f"{c.value} ({c.label})" for c in choices)
            properties[argument] = {
                "type": "string",
                "enum": [c.value for c in choices],
                "description": f"One of: {listed}.",
            }
    if properties == parameters.get("properties", {}):
        return parameters
    return {**parameters, "properties": properties}


def split_facts(
    capability: Capability | None, arguments: Mapping[str, Any] | None
) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """The call's own arguments and the topics it named (``facts`` taken out).

    Topics that are not the capability's are dropped; a ``facts`` that is not a list of
    names names none. Arguments of a capability without a fact sheet are left as they
    are (a ``facts`` there is the model's mistake, refused by validation)."""
    if arguments is None or capability is None or capability.facts is None:
        return (dict(arguments) if arguments is not None else None), ()
    own = {k: v for k, v in arguments.items() if k != FACTS}
    named = arguments.get(FACTS)
    known = {topic.name for topic in capability.facts.topics}
    topics = tuple(dict.fromkeys(t for t in named if t in known)) if isinstance(named, list) else ()
    return own, topics


def _choices(capability: Capability) -> Mapping[str, Any]:
    if capability.choices is None:
        return {}
    try:
        return capability.choices()
    except Exception:  # a settings file read failed: offer the plain argument
        return {}
