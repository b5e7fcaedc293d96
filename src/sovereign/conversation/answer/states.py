"""No household state without a reading: temperatures, locks, doors and switches.

The figure check (:mod:`.grounding`) cannot see a claim made in words. A small
model asked "Is the front door locked?" that ran ``system_health`` instead
answers "The front door is not locked."; asked how hot a device without a sensor
is, it says "It is at room temperature." Each :class:`StateKind` is a kind of
household state an answer may describe only when a result of the turn reads a
state of that kind (a temperature value, a lock's state, an open/closed or
on/off state); the person's own words do not count, as they are the question.

A sentence that says the state could not be read ("the temperature is unknown",
"I can't read your locks") is not a claim. The check is about the kind, not the
thing: a kitchen sensor's 21 °C lets an answer speak of temperatures; whether it
spoke of the right one is the model's part.
See docs/decisions/answers-from-what-ran.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_DEVICE = (
    r"(?:doors?|windows?|garage|gates?|blinds?|shutters?|curtains?|covers?|"
    r"lights?|lamps?|switch(?:es)?|plugs?|sockets?|heat(?:er|ing)|fans?|tv|thermostat)"
)


@dataclass(frozen=True)
class StateKind:
    """A kind of household state.

    Attributes:
        name: how a note to the model names it ("a temperature").
        claim: where an answer describes a state of this kind.
        reading: where a result (as JSON text) holds one.
    """

    name: str
    claim: re.Pattern[str]
    reading: re.Pattern[str]


KINDS = (
    StateKind(
        "a temperature",
        re.compile(
            r"\b(?:temperatures?|hot(?:ter)?|warm(?:er)?|cold(?:er)?|cool(?:er)?|chilly|"
            r"freezing|overheat\w*|degrees?)\b|[°℃℉]",
            re.IGNORECASE,
        ),
        re.compile(
            r'"[^"]*(?:temperature|celsius|fahrenheit)[^"]*":\s*-?\d'
            r"|\d\s*(?:[°℃℉]|degrees?\b)|\"unit_of_measurement\":\s*\"[°℃℉]",
            re.IGNORECASE,
        ),
    ),
    StateKind(
        "a lock's state",
        re.compile(r"\b(?:un)?lock(?:ed|s)?\b", re.IGNORECASE),
        re.compile(r"\block\.|\b(?:un)?lock(?:ed|ing)\b|\bjammed\b", re.IGNORECASE),
    ),
    StateKind(
        "whether a door, window, light or switch is open, closed, on or off",
        re.compile(
            rf"\b{_DEVICE}\b[^.!?\n]{{0,40}}?\b(?:open(?:ed)?|closed|shut|on|off)\b"
            rf"|\b(?:open(?:ed)?|closed|shut)\s+{_DEVICE}\b",
            re.IGNORECASE,
        ),
        re.compile(r"\b(?:open(?:ed|ing)?|closed|closing|shut|on|off)\b", re.IGNORECASE),
    ),
)

EVERY_KIND = frozenset(kind.name for kind in KINDS)
"""What a web source reads: its text may describe any state."""

_CLAUSE = re.compile(
    r"(?:[^.!?;:\n]|(?<=\d)[.:](?=\d))+?"  # a "." or ":" between digits is in a figure
    r"(?=[!?;\n]|[.:](?!\d)|(?<!\d)[.:]"
    r"|,?\s+(?:but|although|though|whereas|however|while|so|as|because|since)\b|$)",
    re.IGNORECASE,
)
UNREAD = re.compile(
    r"\b(?:unknown|not\s+known|(?:un|not\s+)available|no\s+(?:\w+\s+){0,2}sensors?"
    r"|(?:can't|cannot|can\s+not|couldn't|could\s+not|unable\s+to|not\s+able\s+to|don't|"
    r"do\s+not|doesn't|does\s+not|didn't|did\s+not|isn't\s+set\s+up|not\s+set\s+up)"
    r"(?:\s+\w+){0,3}?\s+(?:read|tell|see|check|know|find|get|say|report|expose|have|"
    r"access|show|give|look|set))\b",
    re.IGNORECASE,
)
"""Where a clause says a state could not be read ("the temperature is unknown")."""


def kinds_read(results: Iterable[Any]) -> frozenset[str]:
    """The names of the kinds of state that ``results`` (executed calls' results) read."""
    text = "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in results)
    return frozenset(kind.name for kind in KINDS if kind.reading.search(text))


def clauses(text: str) -> list[str]:
    """``text`` cut into clauses: at sentence ends, ``;`` and ``:`` (not inside a
    figure: ``1.6``, ``10:00``), and before "but", "so", "as", "because" … (a
    typographic apostrophe read as ``'``)."""
    return _CLAUSE.findall(text.replace("\u2019", "'"))


def unread_claims(answer: str, read: frozenset[str]) -> list[tuple[str, str]]:
    """The states ``answer`` describes of a kind no result read.

    Args:
        answer: the answer's text.
        read: :func:`kinds_read` of the turn's results.

    Returns:
        ``(words as written, kind name)`` for each claim, in order; a clause that
        says the state could not be read is not a claim (clauses end at sentence
        ends, ``;`` and ``:``, and before "but", "so", "as", "because" …: "The door is
        not locked, as there is no lock sensor" claims the door's state).
    """
    claims = []
    for clause in clauses(answer):
        if UNREAD.search(clause):
            continue
        for kind in KINDS:
            if kind.name not in read and (match := kind.claim.search(clause)):
                claims.append((match.group(0), kind.name))
    return claims
