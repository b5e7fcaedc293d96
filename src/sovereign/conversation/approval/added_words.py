"""Words the assistant added: a query's words the household never wrote are marked on the card.

Asked about "this year's" Christmas market, a small model searched for "… 2023"; it
adds places, names and products the same way. A web.search query may hold the
household's own words (its messages in this conversation, never the assistant's)
and the neutral search terms of the question's language (``search_terms.json``:
function words, words naming the kind of answer such as "opening hours"; and the
question words of :mod:`..voice.questions`). Every other word of an argument marked
``"x-household-words": true`` in its capability's schema is flagged on the card,
like a household identifier: the word's span, kind ``added_by_assistant`` and the
reason "is not in what you wrote: the assistant added it". The household sees it
before approving, and approves, edits or denies. Flagged rather than removed: measured by
``bench/query_words.py`` (docs/decisions/query-words.md).

A word counts as written (see :mod:`..voice.words` for the fold and the stem):

- its fold or its stem is that of a word, or a part of a word, the household wrote
  (``markets`` for "market", ``Cafe`` for "café", ``2023`` in full-width digits for "2023");
- it runs two written words together, or two of its neighbours run together make a
  written word (``weekend`` for "week-end", ``week end`` for "weekend");
- each part of a word joined by hyphens or apostrophes is written or neutral
  (``Bedford-Luton`` after "Bedford" and "Luton");
- in a script written without spaces (CJK, Thai), it occurs in what was written.

A look-alike spelling (``Harpenden`` with a Cyrillic U+0430 for its ``a``) is another
word, so added.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..voice.card import FLAG_REASONS
from ..voice.questions import question_words
from ..voice.words import Word, fold, joined, spaceless, stem, words

__all__ = [
    "KIND",
    "MARK",
    "REASON",
    "Reading",
    "added_spans",
    "added_word_flags",
    "marked_arguments",
    "take_out",
    "trimmed_arguments",
    "without_added",
]

KIND = "added_by_assistant"
"""The flag's fixed label (the audit log and the Console's flag list key on it)."""
REASON = FLAG_REASONS[KIND]
"""The flag's phrase, shown after the flagged words on the card."""
MARK = "x-household-words"
"""Schema annotation of a string argument whose words should be the household's."""
TERMS = Path(__file__).resolve().parent / "search_terms.json"


@dataclass
class Heard:
    """What the household wrote, indexed for :meth:`wrote`."""

    language: str
    folds: set[str] = field(default_factory=set)
    stems: set[str] = field(default_factory=set)
    text: str = ""

    @classmethod
    def of(cls, said: Iterable[str], language: str) -> Heard:
        """The index of ``said`` (the household's messages) in ``language``'s stems."""
        heard = cls(language)
        for message in said:
            found = words(message)
            heard.text += " " + " ".join(w.whole for w in found)
            for word in found:
                heard.add(word.whole, *word.written)
            for first, second in itertools.pairwise(found):
                heard.add(joined(first, second))
        return heard

    def add(self, *forms: str) -> None:
        """Index ``forms`` (words or parts the household wrote) by fold and by stem."""
        for form in forms:
            self.folds.add(fold(form))
            self.stems.add(stem(form, self.language))

    def wrote(self, form: str) -> bool:
        """Whether ``form`` (one word or part) is written, by fold or by stem."""
        return fold(form) in self.folds or stem(form, self.language) in self.stems


@dataclass(frozen=True)
class Neutral:
    """The neutral search terms of one language: question and function words by their
    fold alone (a stem of "come" would be that of the lake, "Como"), words naming the
    kind of answer by stem too ("prices" for "price"), and phrases as stems."""

    language: str
    folds: frozenset[str]
    stems: frozenset[str]
    phrases: tuple[tuple[str, ...], ...]

    def has(self, form: str) -> bool:
        """Whether ``form`` (one word or part) is a neutral term of one word."""
        return fold(form) in self.folds or stem(form, self.language) in self.stems


STEMMED_GROUPS = ("kind",)
"""The groups of ``search_terms.json`` whose words also match by stem."""


@functools.cache
def neutral_terms(language: str) -> Neutral:
    """The neutral terms of ``language`` (ISO 639-1; an unknown one has none)."""
    catalog = json.loads(TERMS.read_text(encoding="utf-8")).get(language, {})
    catalog["question"] = list(question_words(language)["asks"])
    folds, stems, phrases = set(), set(), []
    for group, entries in catalog.items():
        for entry in entries:
            parts = tuple(part for word in words(entry) for part in word.written)
            if len(parts) > 1:
                phrases.append(tuple(stem(part, language) for part in parts))
            elif parts:
                folds.add(fold(parts[0]))
                if group in STEMMED_GROUPS:
                    stems.add(stem(parts[0], language))
    return Neutral(language, frozenset(folds), frozenset(stems), tuple(phrases))


def added_spans(text: str, said: Iterable[str], language: str) -> list[tuple[int, int]]:
    """The spans of ``text`` (code points) holding words the household did not write.

    Args:
        text: an argument as it will leave (its canonical form).
        said: what the household wrote in this conversation (its messages only).
        language: the question's language (ISO 639-1), for stems and neutral terms.

    Returns:
        ``(start, end)`` spans in order; neighbouring added words separated only by
        spaces or punctuation form one span. Never raises.
    """
    return Reading.of(text, said, language).spans


@dataclass(frozen=True)
class Reading:
    """The words of one text: which the assistant added, which are the household's own.

    Attributes:
        found: every word of the text.
        added: indices of the words the household did not write (neutral terms aside).
        own: indices of the words the household wrote that are not neutral terms.
    """

    found: list[Word]
    added: list[int]
    own: list[int]

    @classmethod
    def of(cls, text: str, said: Iterable[str], language: str) -> Reading:
        """Read ``text`` against ``said`` in ``language`` (see :func:`added_spans`)."""
        found = words(text)
        heard, neutral = Heard.of(said, language), neutral_terms(language)
        kept = _joined_pairs(found, heard)
        neutral_run = _neutral_runs(found, neutral)
        added, own = [], []
        for index, word in enumerate(found):
            if index in neutral_run or neutral.has(word.whole):
                continue
            if index in kept or _written(word, heard, neutral):
                own.append(index)
            else:
                added.append(index)
        return cls(found, added, own)

    @property
    def spans(self) -> list[tuple[int, int]]:
        """The added words' spans, neighbours merged (see :func:`added_spans`)."""
        return _merged(self.found, self.added)

    @property
    def household_led(self) -> bool:
        """Whether the household's own words are at least as many as the added ones."""
        return bool(self.own) and len(self.own) >= len(self.added)


def without_added(text: str, said: Iterable[str], language: str) -> str | None:
    """``text`` with the added words taken out (:func:`take_out`); ``None`` when it has
    none, or when the household's own words (beyond neutral terms) are fewer than the
    added ones: then the text is mostly the assistant's (a follow-up question whose
    subject came from the assistant's answer) and taking its words out would leave a
    query that asks for something else. Such a text is flagged instead.
    """
    reading = Reading.of(text, said, language)
    if not reading.added or not reading.household_led:
        return None
    return take_out(text, reading.spans)


def take_out(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` without ``spans``, the rest kept character for character.

    Each span goes with the spaces after it, or, when punctuation or the end follows
    it, with the spaces before it (``"market 2023"`` → ``"market"``).
    """
    for start, end in reversed(spans):
        if end < len(text) and text[end] == " ":
            while end < len(text) and text[end] == " ":
                end += 1
        else:
            while start > 0 and text[start - 1] == " ":
                start -= 1
        text = text[:start] + text[end:]
    return text


def _written(word: Word, heard: Heard, neutral: Neutral) -> bool:
    if spaceless(word.whole):
        return word.whole in heard.text
    if heard.wrote(word.whole):
        return True
    if len(word.written) > 1 and heard.wrote("".join(word.written)):
        return True
    parts = word.written
    return (
        len(parts) > 1
        and all(heard.wrote(part) or neutral.has(part) for part in parts)
        and any(heard.wrote(part) for part in parts)
    )


def _joined_pairs(found: Sequence[Word], heard: Heard) -> set[int]:
    """Indices of neighbours that, run together, make a written word."""
    kept: set[int] = set()
    for index in range(len(found) - 1):
        if heard.wrote(joined(found[index], found[index + 1])):
            kept |= {index, index + 1}
    return kept


def _neutral_runs(found: Sequence[Word], neutral: Neutral) -> set[int]:
    """Indices of words that form a neutral phrase of several words, in order."""
    stems = [stem(word.whole, neutral.language) for word in found]
    kept: set[int] = set()
    for phrase in neutral.phrases:
        for start in range(len(found) - len(phrase) + 1):
            if tuple(stems[start : start + len(phrase)]) == phrase:
                kept |= set(range(start, start + len(phrase)))
    return kept


def _merged(found: Sequence[Word], added: list[int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    previous = None
    for index in added:
        word = found[index]
        if spans and previous == index - 1:
            spans[-1] = (spans[-1][0], word.end)
        else:
            spans.append((word.start, word.end))
        previous = index
    return spans


def marked_arguments(schema: Mapping[str, Any]) -> list[str]:
    """The argument names whose schema carries :data:`MARK` (web.search's ``query``)."""
    properties = schema.get("properties", {})
    return [name for name, prop in properties.items() if isinstance(prop, dict) and prop.get(MARK)]


def trimmed_arguments(
    arguments: Mapping[str, Any], names: Iterable[str], said: Iterable[str], language: str
) -> dict[str, Any]:
    """A copy of ``arguments`` whose string arguments called ``names`` have the added
    words taken out (:func:`without_added`); one left as it was, because none of the
    household's words would remain, is flagged on the card (:func:`added_word_flags`).

    Args:
        arguments: the model's proposal (before validation).
        names, said, language: as for :func:`added_word_flags`.
    """
    said = list(said)
    trimmed = dict(arguments)
    for name in names:
        value = arguments.get(name)
        if isinstance(value, str) and (kept := without_added(value, said, language)):
            trimmed[name] = kept
    return trimmed


def added_word_flags(
    arguments: Mapping[str, Any], names: Iterable[str], said: Iterable[str], language: str
) -> list[dict[str, Any]]:
    """Flags for the added words of the string arguments called ``names``.

    Args:
        arguments: the canonical arguments the card shows.
        names: which arguments are checked (:func:`marked_arguments`).
        said: the household's messages in this conversation.
        language: the question's language (ISO 639-1).

    Returns:
        ``{"kind", "argument", "start", "end", "reason"}`` per span, ``start``/``end``
        in code points of the argument's value, in argument then text order.
    """
    said = list(said)
    flags = []
    for name in names:
        value = arguments.get(name)
        if not isinstance(value, str):
            continue
        for start, end in added_spans(value, said, language):
            flags.append(
                {"kind": KIND, "argument": name, "start": start, "end": end, "reason": REASON}
            )
    return flags
