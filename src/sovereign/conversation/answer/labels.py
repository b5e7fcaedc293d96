"""A part's figure is not the whole: "made 3465 queries" when 3465 were the blocked ones.

The figure check (:mod:`.grounding`) accepts a number any result holds, whatever it
counts. A small model given ``queries_total: 7497`` and ``queries_blocked: 3465``
answers "The network made 3465 DNS queries": every figure sourced, the sentence
false. A result states a part beside its whole as sibling fields whose names differ
only in a qualifier (``queries_blocked`` / ``queries_total``; ``disk_used_gb`` /
``disk_free_gb`` / ``disk_total_gb``). A figure that only a part's field holds must
be said with that part's word in its clause ("blocked", "used", "free" or their
usual synonyms); a whole needs no word, since a bare count is read as the whole.
The lexicon is English. See docs/decisions/answers-from-what-ran.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .figures import figures_in, rounds_to
from .states import clauses

PARTS: dict[str, re.Pattern[str]] = {
    "blocked": re.compile(r"\b(?:block\w*|stopp\w*|filter\w*)", re.IGNORECASE),
    "used": re.compile(
        r"\b(?:us(?:ed|es|ing|age)|in\s+use|taken|occupied|full|consum\w*)\b", re.IGNORECASE
    ),
    "free": re.compile(
        r"\b(?:free|left|available|remaining|spare|unused|empty|room|space)\b", re.IGNORECASE
    ),
}
"""The qualifiers that name a part, and the words that say it in an answer."""
WHOLES = frozenset({"total"})
"""The qualifiers that name the whole a part is of."""
_QUALIFIERS = frozenset(PARTS) | WHOLES


@dataclass(frozen=True)
class Mislabel:
    """A figure said without the word of the part it is.

    Attributes:
        text: the figure as written ("3465").
        key: the result's field that holds it ("queries_blocked").
        part: the part's qualifier ("blocked").
    """

    text: str
    key: str
    part: str


def _fields(results: Iterable[Any]) -> list[tuple[str, float, str | None]]:
    """``(key, value, part qualifier or None)`` for each number at the top of a result
    that has siblings; a field without siblings is its own whole (``None``)."""
    found = []
    for result in results:
        if not isinstance(result, Mapping):
            continue
        numeric = {
            str(k): float(v)
            for k, v in result.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        stems: dict[tuple[str, ...], set[str]] = {}
        for key in numeric:
            words = key.split("_")
            for i, word in enumerate(words):
                if word in _QUALIFIERS:
                    stems.setdefault((*words[:i], "*", *words[i + 1 :]), set()).add(word)
        for key, value in numeric.items():
            words = key.split("_")
            part = None
            for i, word in enumerate(words):
                siblings = stems.get((*words[:i], "*", *words[i + 1 :]), set())
                if word in PARTS and len(siblings) > 1:
                    part = word
            found.append((key, value, part))
    return found


def mislabelled(answer: str, results: Iterable[Any]) -> list[Mislabel]:
    """The figures of ``answer`` that only a part's field of ``results`` (household
    results) holds, written in a clause without that part's word.

    Args:
        answer: the answer's text.
        results: the turn's executed household results.

    Returns:
        One :class:`Mislabel` per such figure, in order; a figure that a whole or a
        field without siblings also holds is never one.
    """
    fields = _fields(results)
    found = []
    for clause in clauses(answer):
        for figure in figures_in(clause):
            holders = [(key, part) for key, value, part in fields if rounds_to(value, figure)]
            if not holders or any(part is None for _, part in holders):
                continue
            if not any(PARTS[part].search(clause) for _, part in holders):
                key, part = holders[0]
                found.append(Mislabel(figure.text, key, part))
    return found


def mislabel_note(problems: list[Mislabel]) -> str:
    """The system note for asking once more after ``problems`` (may be empty: "")."""
    said = [f"{p.text} is the result's {p.key}, the part that was {p.part}" for p in problems]
    if not said:
        return ""
    return f"{'; '.join(dict.fromkeys(said))}: the answer must say so, not give it as a total."
