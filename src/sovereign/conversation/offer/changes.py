"""Whether a message asks for a change: to switch, lock, open, set or restart something.

Nothing here can change anything: every capability reads. Asked to switch off a light,
a small model reads the light, and the product states its state ("Landing light is
on."), which answers a question nobody asked and leaves the request unanswered. So
where a household read ran for a message that asks for a change, the answer says after
the facts that the assistant can only read (the turn loop, with the ``cannot_change``
sentence the change stand-in says, :mod:`.stand_ins`).

The words are data, per language (``change_requests.json``), matched as whole words as
written, case aside, never by stem and never without their accents, so that a state's
word is no request ("apagada", "ausgeschaltet"; "fermé" and "réglé" are not "ferme" and
"règle"):

- ``anywhere``: forms that ask wherever they stand, imperatives and infinitives
  distinct from the words of a state ("apágame", "ausschalten", "éteins", "spegni");
- ``at_start``: forms that ask only at the start of a sentence or a clause, or after a word of
  ``before`` ("please", "can you"): the English imperative is the base form, so "Turn
  off the landing light" asks and "did I turn off the landing light?" does not;
- ``pairs``: a verb and its particle, both in one sentence ("mach das Licht aus",
  "zet de verwarming lager").

Every language's words are looked for in every message: the language a short message
is read in can be wrong.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from ..voice.words import PhraseIndex, Word, words

CHANGE_REQUESTS = Path(__file__).resolve().parent / "change_requests.json"
_CLAUSE_MARKS = frozenset(".!?;:,\n¿¡")
"""What ends or opens a sentence or a clause ("the landing light is on, turn it off")."""


@dataclass(frozen=True)
class _Catalog:
    anywhere: PhraseIndex[bool]
    at_start: PhraseIndex[bool]
    before: PhraseIndex[bool]
    pairs: tuple[tuple[str, str], ...]


@functools.cache
def _catalog() -> _Catalog:
    """Every language's words of ``change_requests.json``, merged."""
    data = json.loads(CHANGE_REQUESTS.read_text(encoding="utf-8"))
    lists = [entry for language, entry in data.items() if language != "_about"]

    def index(key: str) -> PhraseIndex[bool]:
        phrases = [_written(words(phrase)) for entry in lists for phrase in entry[key]]
        keys = {"".join(w.whole for w in phrase): True for phrase in phrases}
        return PhraseIndex(keys, max((len(phrase) for phrase in phrases), default=1))

    pairs = tuple(
        (_written(words(verb))[0].whole, _written(words(particle))[0].whole)
        for entry in lists
        for verb, particle in entry["pairs"]
    )
    return _Catalog(index("anywhere"), index("at_start"), index("before"), pairs)


def _written(found: Iterable[Word]) -> list[Word]:
    """``found`` compared as written (case folded, accents kept), not folded."""
    return [replace(word, parts=word.written) for word in found]


def asks_for_a_change(message: str) -> bool:
    """Whether ``message`` asks to switch, lock, open, set or restart something: a word
    of ``change_requests.json`` (any language) standing where it asks (module
    docstring)."""
    catalog = _catalog()
    for sentence in _sentences(message):
        if any(catalog.anywhere.longest_at(sentence, i)[1] > i for i in range(len(sentence))):
            return True
        start = 0
        while (after := catalog.before.longest_at(sentence, start)[1]) > start:
            start = after  # "please", "can you" before the verb
        if start < len(sentence) and catalog.at_start.longest_at(sentence, start)[1] > start:
            return True
        held = {word.whole for word in sentence}
        if any(verb in held and particle in held for verb, particle in catalog.pairs):
            return True
    return False


def _sentences(text: str) -> list[list[Word]]:
    """The words of ``text``, in runs between the marks that end or open a sentence or
    a clause (:data:`_CLAUSE_MARKS`)."""
    found: list[list[Word]] = [[]]
    end = 0
    for word in _written(words(text)):
        if found[-1] and any(mark in _CLAUSE_MARKS for mark in text[end : word.start]):
            found.append([])
        found[-1].append(word)
        end = word.end
    return [sentence for sentence in found if sentence]
