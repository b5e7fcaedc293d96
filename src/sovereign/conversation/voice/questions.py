"""The questions one message holds (DESIGN §4): by their question marks, and by the
words that begin another question where a mark is left out.

A household writes two questions in one message, and often leaves the second mark
out ("wie warm isses in der küche? und wer hat eigentlich den faust geschrieben",
"how much memory is free and who wrote faust"). A question ends at "?" (a run counts
once; one inside a web address or before a closing quote ends the question too); and
inside what one mark ends, or after the last, another begins where a run of
**openers** ("and", "und übrigens", "e poi") is followed by a question word
(**asks**: "who", "wie viele", "qu'est-ce que"). Both lists are data, per language
(``questions.json``), and only the question's own language is read: Dutch "wie" is
"who", German "wie" is "how", and French "en" is no Dutch "and".

A piece counts as a question when it ends with its mark, begins with a question word
(after openers), or was split from the piece after it: "sag mir die Temperatur und
wer hat den Faust geschrieben" asks two things. A piece that is neither ("danke",
"Guten Morgen") is no question.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from pathlib import Path

from .words import PhraseIndex, Word, words

__all__ = ["question_parts"]

CATALOG = Path(__file__).with_name("questions.json")
_QUESTION_END = re.compile(r"[?\uff1f]+(?:[\"'\u00bb\u201d\u2019)]*)(?=\s|$)")
"""A run of question marks (ASCII or full-width) and the closing quotes or brackets
right after it, followed by a space or the end: "?" inside ``http://x/?q=1`` ends
nothing."""


@functools.cache
def question_words(language: str) -> dict[str, tuple[str, ...]]:
    """The catalog's lists for ``language`` (ISO 639-1): ``asks`` and ``openers``, each
    a tuple of phrases as written; empty tuples for a language it does not hold."""
    entry = json.loads(CATALOG.read_text(encoding="utf-8")).get(language, {})
    return {group: tuple(entry.get(group, ())) for group in ("asks", "openers")}


@functools.cache
def _indexes(language: str) -> tuple[PhraseIndex[bool], PhraseIndex[bool]]:
    lists = question_words(language)
    return (
        PhraseIndex.of((phrase, True) for phrase in lists["asks"]),
        PhraseIndex.of((phrase, True) for phrase in lists["openers"]),
    )


def _after_openers(found: list[Word], start: int, openers: PhraseIndex[bool]) -> int:
    """The index of the first word after the run of openers that begins at ``start``
    (``start`` itself when none does)."""
    while True:
        _, end = openers.longest_at(found, start)
        if end == start:
            return start
        start = end


def _asks_at(found: list[Word], start: int, language: str, *, opened: bool) -> bool:
    """Whether a question word begins at ``found[start]``, after a run of openers; with
    ``opened``, only when that run is not empty."""
    asks, openers = _indexes(language)
    first = _after_openers(found, start, openers)
    if opened and first == start:
        return False
    return asks.longest_at(found, first)[1] > first


def _begins_asking(part: str, language: str) -> bool:
    found = words(part)
    return bool(found) and _asks_at(found, 0, language, opened=False)


def _split(piece: str, language: str) -> list[str]:
    """``piece`` cut before every run of openers followed by a question word, but for
    the run it begins with."""
    found, openers = words(piece), _indexes(language)[1]
    cuts, index = [], max(1, _after_openers(found, 0, openers))
    while index < len(found):
        if _asks_at(found, index, language, opened=True):
            cuts.append(found[index].start)
            index = _after_openers(found, index, openers)
        index += 1
    bounds = [0, *cuts, len(piece)]
    return [piece[a:b].strip() for a, b in itertools.pairwise(bounds)]


def question_parts(text: str, language: str) -> list[str]:
    """The questions ``text`` holds, in order, each as written (stripped): see the
    module docstring. ``language`` is the message's (ISO 639-1); for one the catalog
    does not hold, only question marks count. ``[]`` for a message asking nothing."""
    parts: list[str] = []
    start = 0
    ends = [m.end() for m in _QUESTION_END.finditer(text)]
    for end in [*ends, len(text)]:
        piece = text[start:end].strip()
        start = end
        if not piece:
            continue
        pieces = [p for p in _split(piece, language) if p]
        marked = end in ends
        for index, part in enumerate(pieces):
            if index < len(pieces) - 1 or marked or _begins_asking(part, language):
                parts.append(part)
    return parts
