"""The family a question names: no stand-in for a family it does not (DESIGN §4).

A small model picks the nearest choice it is shown, and "nearest" is read in English:
"Quelle est la charge du processeur ?" and device questions in Spanish and Dutch went
to the smart-home stand-in (described by a room's temperature) instead of the device's
read. Whether a question is about the device, the ad blocker or the home is stated by
its words, and those are data: each household family declares the words that name
what it reads, per language (:attr:`~sovereign.executor.facts.Phrases.subjects`, a
JSON file beside the capability).

The rule (:func:`named_families`, applied by the turn loop to every round): when the
question names the subjects of some household families, the stand-ins of the families
it does not name are not offered. What can run is always offered: taking a read away
as well ("the kitchen" offered no device read) moved three of 72 tuning decisions to
a worse choice and mended none (docs/decisions/offered-tools-and-arguments.md, "The
family a question names"). A question naming no subject, or the subjects of several
families, is offered every stand-in as before. A family may also declare places (Home
Assistant's rooms and cupboards, :attr:`~sovereign.executor.facts.Phrases.places`): a
place names its family only when no family's subject is named, since where the box
stands ("die Kiste im Flur") is not what is asked about it. A family may declare other
things that share its words (the household's phone or laptop for the device,
:attr:`~sovereign.executor.facts.Phrases.others`): a question naming one does not name
that family ("Mein Handy meldet Speicher voll"), nor does one naming many of the
family's things (:attr:`~sovereign.executor.facts.Phrases.plurals`, spelled, since
their stem is the thing's own: "how many devices are online", "unsere Geräte"),
unless it only says where the family's subject, named before it, stands: after a
word of place (``landmarks.json``: "das Kästchen neben dem Router", "het kastje bij de
tv"), or unless a sentence of it names the family's thing itself and no other thing
(:attr:`~sovereign.executor.facts.Phrases.names`: "… disk space on the server? I've
been backing my laptop up to it"). What a thing pointed at stands by is no family's
subject or other thing: "il coso sopra al frigo" asks about the thing, not the fridge.

The same families decide one thing the product does itself (:func:`named_read`): a
question naming exactly one family, which the model would answer without a call, is
read by that family's local read when it needs no argument (the device's health,
Pi-hole's totals; never Home Assistant's, whose entity would be a guess). And when the
model would rather search the web or say that nothing can be changed, the family's
local read (:func:`local_read`) comes first, filled by the model.

The facts a question asks about are named in words too: each fact sheet declares the
words of each topic (:attr:`~sovereign.executor.facts.FactSheet.asked_by`), and the
facts said for a call are read against them (:func:`asked_topics`,
:func:`topics_to_state`; a follow-up naming nothing goes on from the question before,
:func:`conversation_topics`).

A subject matches a word of the question when (see :mod:`..voice.words`):

- its letters are the word's, or one part's of a hyphenated word ("CPU-Last"), in any
  of the six languages;
- its Snowball stem is the word's stem in the question's language (plurals and other
  inflections: "lumières", "Lichter"), unless the word ends as a verb form does and the
  subject does not (``verb_endings.json``: "boxing" is no box, "cucinare" no kitchen),
  or unless it is an abbreviation, written in
  capitals in its list ("RAM", "CPU"), which matches its letters or its plural with
  "s" alone: French "rame" ("it lags") and Italian "rame" ("copper") stem as "ram";
- in German or Dutch, the question's language, the word is a compound of the
  family's own words (its subjects, places, other things and compound parts) joined
  as the language joins them, one of them from the list being matched (a family's
  parts count as its subjects here, "Werbe|filter"), possibly ending in an aspect
  ("Küche|n|licht", "Speicher|auslastung", "Festplatte|n|nutzung"; ``compounds.json``).
  A compound whose other part no family holds names nothing: "Briefkasten",
  "Herdplatte" and "Stromspeicher" are no box, disk or memory of the device's.

A phrase of one word from another language's list never matches a stop word of the
question's language ("door de pihole" is Dutch for "through the Pi-hole", "ad" is
Italian for "to"). A phrase of several words matches the same number of consecutive
words. The words of
a web address in the question never count ("bakewell-kitchen.example" is no kitchen).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sovereign.executor import Capability, Effect, FactSheet, Locality, Phrases

from ..backends.base import ToolDefinition
from ..voice.questions import question_parts
from ..voice.words import Word, fold, letters, stem, stop_words, words
from .catalog import ToolCatalog
from .choices import ALSO_ASKED, FACTS
from .guidance import addresses_in
from .time_spans import TimeScope, time_scope

__all__ = [
    "COMPOUNDS",
    "asked_topics",
    "asks_beyond",
    "asks_for_the_web",
    "conversation_scope",
    "conversation_topics",
    "family_of",
    "family_offered",
    "family_reads",
    "followed_families",
    "local_read",
    "named_families",
    "named_read",
    "names_subject",
    "reads_here",
    "topics_to_state",
]

WEB_REQUESTS = Path(__file__).resolve().parent / "web_requests.json"
"""The words with which a question asks for the web itself, per language."""
ADDRESSED = Path(__file__).resolve().parent / "addressed.json"
"""How a question speaks to the assistant, per language: the words that address it and
the requests in which an address asks it to do something else."""
POINTED_THINGS = Path(__file__).resolve().parent / "pointed_things.json"
"""The words for a thing the household points at without naming it, per language."""
LANDMARKS = Path(__file__).resolve().parent / "landmarks.json"
"""The words of place that make another thing named after them a landmark, per language."""
DESTINATIONS = Path(__file__).resolve().parent / "destinations.json"
"""The words that put the thing named after them as where something goes, per language."""
NEAR = 2
"""The most words, stop words aside, between an address to the assistant (or a thing
pointed at, ``pointed_things.json``) and a word of what a family reads, for the two to
ask about the device ("are you still running hot?", "tu as encore de la place ?", "al
trasto ese le queda RAM"; "can you tell me how warm the sea is" is a request, not such
a question)."""
VERB_ENDINGS = Path(__file__).resolve().parent / "verb_endings.json"
"""The endings of verb forms whose stem is a noun's, per language: "boxing" is no box."""
INDEFINITE_ARTICLES = Path(__file__).resolve().parent / "indefinite_articles.json"
"""The indefinite articles, after which a thing named is such a thing in general, per
language."""
DESCRIBED = 2
"""The most words that are no stop words between an indefinite article and the thing it
names ("a brand new laptop")."""
COMPOUNDS = Path(__file__).resolve().parent / "compounds.json"
"""How the languages that write compounds as one word join them: linking letters and
aspect words, per language."""
MIN_PART = 3
"""The fewest letters of a compound's part (a shorter word, such as "PC", would be
found inside too many words)."""


@dataclass(frozen=True)
class _Compounding:
    """How one language joins words into one (``compounds.json``), folded."""

    links: tuple[str, ...]
    aspects: frozenset[str]  # each aspect's fold and its stem


@functools.cache
def _compounding(language: str) -> _Compounding | None:
    catalog = json.loads(COMPOUNDS.read_text(encoding="utf-8"))
    entry = catalog.get(language)
    if entry is None:
        return None
    aspects = {letters(aspect) for aspect in entry["aspects"]}
    return _Compounding(
        links=tuple(sorted({fold(link) for link in entry["links"]}, key=len)),
        aspects=frozenset(aspects | {stem(aspect, language) for aspect in aspects}),
    )


@dataclass(frozen=True)
class _Parts:
    """The words a compound of one family may be made of, in one language: folded
    single words of the family's lists (:func:`_parts_of`)."""

    joinable: frozenset[str]  # every list's words: the parts of a compound
    finals: frozenset[str]  # the same with their stems: a compound's last part


def _parts_of(catalogs: Iterable[Mapping[str, Iterable[str]]], language: str) -> _Parts:
    joinable = set()
    for catalog in catalogs:
        for phrase in catalog.get(language, ()):
            parts = _words_of(phrase)
            if len(parts) == 1 and len(parts[0].whole) >= MIN_PART:
                joinable.add(parts[0].whole)
    stems = {stem(word, language) for word in joinable}
    return _Parts(frozenset(joinable), frozenset(joinable | stems))


def _is_compound_of(whole: str, own: _Parts, family: _Parts, language: str) -> bool:
    """Whether ``whole`` (a folded word) is a compound of ``family``'s parts, joined by
    the language's linking letters and possibly ending in an aspect, one part of them
    ``own`` (the list being matched)."""
    compounding = _compounding(language)
    if compounding is None:
        return False

    def ends(rest: str, has_own: bool, joined: bool) -> bool:
        """Whether ``rest`` is a last part (after at least one, ``joined``), or parts."""
        if joined:
            finals = {rest, stem(rest, language)}
            if finals & own.finals:
                return True
            if has_own and finals & (family.finals | compounding.aspects):
                return True
        for part in family.joinable:
            if not rest.startswith(part) or len(rest) - len(part) < MIN_PART:
                continue
            after = rest[len(part) :]
            joins_own = has_own or part in own.joinable
            for link in compounding.links:
                remaining = after[len(link) :]
                if (
                    after.startswith(link)
                    and len(remaining) >= MIN_PART
                    and ends(remaining, joins_own, True)
                ):
                    return True
        return False

    return ends(whole, False, False)


@dataclass(frozen=True)
class _Token:
    """One word of the question as the matcher compares it."""

    letters: frozenset[str]  # the whole word and each part, folded
    stems: frozenset[str]  # the same, stemmed in the question's language
    whole: str
    parts: tuple[str, ...]  # its folded parts: "device's" is ("device", "s")


def _tokens(question: str, language: str) -> list[_Token]:
    found = []
    for word in words(question):
        spellings = {word.whole, *word.parts}
        stems = {stem("".join(word.written), language), *(stem(p, language) for p in word.written)}
        found.append(_Token(frozenset(spellings), frozenset(stems), word.whole, word.parts))
    return found


def _matches_word(
    token: _Token, subject: Word, subject_language: str, language: str, *, capitals: bool = False
) -> bool:
    if subject.whole in token.letters:
        return True
    if capitals:  # an abbreviation: its letters, or its plural ("SSDs"), never a stem
        return subject.whole + "s" in token.letters
    return (
        subject_language == language
        and stem("".join(subject.written), language) in token.stems
        and not _verb_of(token.whole, subject.whole, language)
    )


def _verb_of(word: str, subject: str, language: str) -> bool:
    """Whether ``word`` (folded) ends as a verb form of ``language`` does
    (``verb_endings.json``) and ``subject`` (folded) does not: "boxing" is no "box",
    "cucinare" no "cucina"; "blocking" stays "blocking"'s."""
    return any(
        word.endswith(ending) and not subject.endswith(ending) for ending in _verb_endings(language)
    )


@functools.cache
def _verb_endings(language: str) -> tuple[str, ...]:
    catalog = json.loads(VERB_ENDINGS.read_text(encoding="utf-8"))
    return tuple(fold(ending) for ending in catalog.get(language, ()))


@functools.lru_cache(maxsize=4096)
def _words_of(phrase: str) -> tuple[Word, ...]:
    return tuple(words(phrase))


def names_subject(question: str, subjects: Mapping[str, Iterable[str]], language: str) -> bool:
    """Whether ``question`` names one of ``subjects`` (language → phrases), matched as
    the module docstring says, a compound being made of these phrases' words alone;
    ``language`` is the question's (ISO 639-1)."""
    tokens = _question_tokens(question, language)
    return bool(_named_at(tokens, subjects, language, _joinable([subjects], language)))


def _question_tokens(question: str, language: str) -> list[_Token]:
    for address in addresses_in(question):  # a host's words name no part of the home
        question = question.replace(address, " ")
    return _tokens(question, language)


def _joinable(family: Iterable[Mapping[str, Iterable[str]]], language: str) -> _Parts | None:
    """The words a compound of ``family`` (every list of it) may join in ``language``;
    ``None`` where the language writes no compounds as one word."""
    return _parts_of(family, language) if _compounding(language) is not None else None


def _family_joinable(phrases: Phrases, language: str) -> _Parts | None:
    """:func:`_joinable` over every list of a family's ``phrases``: its subjects, places,
    other things and compound parts."""
    return _joinable([phrases.subjects, phrases.places, phrases.others, phrases.parts], language)


def _named_at(
    tokens: list[_Token],
    subjects: Mapping[str, Iterable[str]],
    language: str,
    joinable: _Parts | None,
    compound_parts: Mapping[str, Iterable[str]] | None = None,
) -> set[int]:
    """The indices of ``tokens`` that name one of ``subjects``; ``joinable``: the words
    of the subjects' family a compound may join (:func:`_joinable`); ``compound_parts``:
    words that count as ``subjects`` inside a compound only
    (:attr:`~sovereign.executor.facts.Phrases.parts`)."""
    found = set()
    for subject_language, phrases in subjects.items():
        found |= _spans(tokens, phrases, subject_language, language)
    if joinable is None or language not in subjects:
        return found
    own = _parts_of([subjects, compound_parts or {}], language)
    found.update(
        index
        for index, token in enumerate(tokens)
        if _is_compound_of(token.whole, own, joinable, language)
    )
    return found


@dataclass(frozen=True)
class _Address:
    """How one language speaks to the assistant (``addressed.json``)."""

    forms: tuple[str, ...]
    requests: tuple[str, ...]


@functools.cache
def _address(language: str) -> _Address | None:
    entry = json.loads(ADDRESSED.read_text(encoding="utf-8")).get(language)
    if entry is None:
        return None
    return _Address(tuple(entry["forms"]), tuple(entry["requests"]))


def _spans(
    tokens: list[_Token], phrases: Iterable[str], phrase_language: str, language: str
) -> set[int]:
    """The indices of ``tokens`` (a question in ``language``) covered by any of
    ``phrases`` (words of ``phrase_language``), each word matched as
    :func:`_matches_word` says."""
    covered = set()
    for start, end in _phrase_spans(tokens, phrases, phrase_language, language):
        covered.update(range(start, end))
    return covered


def _phrase_spans(
    tokens: list[_Token], phrases: Iterable[str], phrase_language: str, language: str
) -> list[tuple[int, int]]:
    """Where ``phrases`` occur in ``tokens``: (first index, index after the last). A
    phrase of one word of another language never matches a stop word of the
    question's ``language``: Dutch "door" is "through", Italian "ad" is "to"."""
    found = []
    stops = stop_words(language) if phrase_language != language else frozenset()
    for phrase in phrases:
        parts = _words_of(phrase)
        capitals = phrase.isupper()  # "RAM", "CPU": French "rame" stems as "ram"
        for start in range(len(tokens) - len(parts) + 1):
            if len(parts) == 1 and tokens[start].whole in stops:
                continue
            if parts and all(
                _matches_word(tokens[start + i], part, phrase_language, language, capitals=capitals)
                for i, part in enumerate(parts)
            ):
                found.append((start, start + len(parts)))
    return found


def _spelled_at(
    tokens: list[_Token], phrases: Mapping[str, Iterable[str]], language: str
) -> set[int]:
    """The indices of ``tokens`` (a question in ``language``) covered by one of
    ``phrases`` (language → phrases, any language) spelled as written, word by word,
    parts and all, an elided article of the question's language before it aside
    ("d'appareils", "l'apparecchio"): "devices" is no "device's", and "Geräte" is no
    "Geräte-Temperatur"."""
    stops = stop_words(language)

    def spelled_as(token: _Token, parts: tuple[str, ...]) -> bool:
        if token.parts == parts:
            return True
        elided, *rest = token.parts
        return tuple(rest) == parts and elided in stops

    covered = set()
    for phrase in (phrase for listed in phrases.values() for phrase in listed):
        spelled = [word.parts for word in _words_of(phrase)]
        for start in range(len(tokens) - len(spelled) + 1):
            if all(spelled_as(tokens[start + i], parts) for i, parts in enumerate(spelled)):
                covered.update(range(start, start + len(spelled)))
    return covered


def _others_at(
    tokens: list[_Token], phrases: Phrases, language: str, joinable: _Parts | None
) -> set[int]:
    """The indices of ``tokens`` that name one of the family's other things: one of its
    :attr:`~sovereign.executor.facts.Phrases.others`, matched as subjects are, or many
    of its own things (:attr:`~sovereign.executor.facts.Phrases.plurals`, spelled)."""
    return _named_at(tokens, phrases.others, language, joinable) | _spelled_at(
        tokens, phrases.plurals, language
    )


def _landmarks(
    tokens: list[_Token], others: set[int], subjects: set[int], language: str
) -> set[int]:
    """The indices among ``others`` (another thing of the household's) that only say
    where a subject named before them stands: right after a word of place
    (``landmarks.json``; stop words between them aside) that comes after one of
    ``subjects`` ("das Kästchen neben dem Router", "het kastje bij de tv")."""
    places = _places(language)
    if not others or not subjects or not places:
        return set()
    ends = {end: start for start, end in _phrase_spans(tokens, places, language, language)}
    stops = stop_words(language)
    landmarks = set()
    for index in sorted(others):
        if index - 1 in others:
            if index - 1 in landmarks:
                landmarks.add(index)  # the rest of the same thing
            continue
        end = index
        while end not in ends and end > 0 and tokens[end - 1].whole in stops:
            end -= 1
        if end in ends and min(subjects) < ends[end]:
            landmarks.add(index)
    return landmarks


def _beside_pointed(tokens: list[_Token], language: str) -> set[int]:
    """The indices of ``tokens`` that only say where a thing pointed at stands: a word
    of place and the words after it (``landmarks.json``; stop words between them aside)
    that follows a thing pointed at right after a stop word (``pointed_things.json``;
    at most :data:`NEAR` words between them, stop words aside), up to the next stop
    word or :data:`NEAR` words on, all in the question's ``language``: "frigo" in "il
    coso appoggiato sopra al frigo", "Router" in "das Ding neben dem Router". The thing
    is asked about, not what it stands by."""
    stops = stop_words(language)
    pointed = _pointed_at(tokens, language)
    if not pointed:
        return set()
    beside = set()
    for start, end in _phrase_spans(tokens, _places(language), language, language):
        before, between = start, 0
        while before > 0 and before - 1 not in pointed and between <= NEAR:
            between += tokens[before - 1].whole not in stops
            before -= 1
        if before - 1 not in pointed or between > NEAR:
            continue
        beside.update(range(start, end))
        while end < len(tokens) and tokens[end].whole in stops:
            end += 1
        landmark = end
        while end < min(len(tokens), landmark + NEAR) and tokens[end].whole not in stops:
            beside.add(end)
            end += 1
    return beside


def _named_as_destination(
    tokens: list[_Token], names: Mapping[str, Iterable[str]], others: set[int], language: str
) -> bool:
    """Whether one of ``names`` (the family's own thing), outside the words of another
    thing (``others``: "boîte" of "boîte aux lettres"), stands right after a word of
    ``destinations.json`` in ``language``, stop words between them aside, that ends no
    word of place (``landmarks.json``: "to" of "next to"): "onto the server", "auf die
    Kiste", "sul server"."""
    destinations = _destinations(language)
    if not destinations:
        return False
    between = stop_words(language) | destinations
    placing = {end - 1 for _, end in _phrase_spans(tokens, _places(language), language, language)}
    for phrase_language, phrases in names.items():
        for start, end in _phrase_spans(tokens, phrases, phrase_language, language):
            if others.intersection(range(start, end)):
                continue
            before = start
            while before > 0 and tokens[before - 1].whole in between:
                if tokens[before - 1].whole in destinations and before - 1 not in placing:
                    return True
                before -= 1
    return False


@functools.cache
def _destinations(language: str) -> frozenset[str]:
    catalog = json.loads(DESTINATIONS.read_text(encoding="utf-8"))
    return frozenset(fold(word) for word in catalog.get(language, ()))


@functools.cache
def _places(language: str) -> tuple[str, ...]:
    return tuple(json.loads(LANDMARKS.read_text(encoding="utf-8")).get(language, ()))


@functools.cache
def _pointed_things(language: str) -> tuple[str, ...]:
    return tuple(json.loads(POINTED_THINGS.read_text(encoding="utf-8")).get(language, ()))


def _pointed_at(tokens: list[_Token], language: str) -> set[int]:
    """The indices of ``tokens`` that name a thing the household points at without
    naming it, right after an article, a demonstrative or a possessive (a stop word of
    ``language``; ``pointed_things.json``): "the thing", "ese trasto", "la bécane";
    "a good thing" is none."""
    stops = stop_words(language)
    return {
        index
        for index in _spans(tokens, _pointed_things(language), language, language)
        if index > 0 and tokens[index - 1].whole in stops
    }


def _asks_itself(tokens: list[_Token], itself: Mapping[str, Iterable[str]], language: str) -> bool:
    """Whether ``tokens`` ask the assistant about itself in words of ``itself``
    (:attr:`~sovereign.executor.facts.Phrases.itself`): one of them stands within
    :data:`NEAR` words (stop words aside) of an address to the assistant that is not
    part of a request ("can you tell me …"), or of a thing the household points at
    without naming it, right after an article, a demonstrative or a possessive
    (``pointed_things.json``: "dat ding onder de trap", "ese trasto"; "a good thing"
    is none; where it stands is not counted, :func:`_beside_pointed`), all in the
    question's ``language``."""
    address = _address(language)
    if address is None or language not in itself:
        return False
    addressed = _spans(tokens, address.forms, language, language) - _spans(
        tokens, address.requests, language, language
    )
    stops = stop_words(language)
    addressed |= _pointed_at(tokens, language)
    if not addressed:
        return False
    where = _beside_pointed(tokens, language)  # "il coso [sopra al frigo] si scalda"
    asked = sorted(_spans(tokens, itself[language], language, language) - addressed)
    for index in addressed:
        for other in asked:
            low, high = sorted((index, other))
            between = [
                t
                for i, t in enumerate(tokens[low + 1 : high], low + 1)
                if t.whole not in stops and i not in where
            ]
            if len(between) <= NEAR:
                return True
    return False


def family_of(capability: Capability | None) -> str | None:
    """The household family ``capability`` belongs to (its phrases' catalog domain,
    shared by Home Assistant's two reads), or ``None`` when it declares no subjects."""
    if capability is None or capability.phrases is None or not capability.phrases.subjects:
        return None
    return capability.phrases.domain


def named_families(
    question: str, capabilities: Iterable[Capability], language: str
) -> frozenset[str]:
    """The families (:func:`family_of`) among ``capabilities`` whose subjects
    ``question`` names, unless it names one of the family's other things ("mein Handy"
    for the device's) other than as a landmark (:func:`_landmarks`); or, when it names
    no family's subject, those whose places it
    names ("how warm is the hallway?"); empty when it names neither. The question's
    words are read once, and each family is checked once (Home Assistant's two reads
    share one)."""
    tokens = _question_tokens(question, language)
    named = set()
    itself = set()
    placed = set()
    subjected = False
    for family, phrases, joinable, subjects, elsewhere in _readings(
        question, tokens, capabilities, language
    ):
        subjected = subjected or bool(subjects)
        if elsewhere:
            continue  # another thing of the household's ("mein Handy"), not this family's
        if subjects:
            named.add(family)
        elif phrases.itself and _asks_itself(tokens, phrases.itself, language):
            itself.add(family)
        elif phrases.places and _named_at(tokens, phrases.places, language, joinable):
            placed.add(family)
    # The assistant asked about itself names its device when no family's subject is
    # named; a place names its family only when neither is, another thing's subject
    # included: where the box stands ("im Flur", "dans ton placard") is not what is
    # asked about it, and "room left on the drive" of his phone's videos is no room.
    return frozenset(named or itself or (set() if subjected else placed))


def _another_thing(
    question: str,
    tokens: list[_Token],
    subjects: set[int],
    phrases: Phrases,
    language: str,
    joinable: _Parts | None,
    pointed_at: set[int],
) -> set[int]:
    """The indices of ``tokens`` (``question``'s words, the family's ``subjects`` found
    at their indices) that name one of the family's other things other than as a
    landmark (after one of ``subjects`` or, at ``pointed_at``, after a thing pointed
    at); empty when a sentence of it names the family's thing alone
    (:func:`_named_alone`)."""
    if not phrases.others and not phrases.plurals:
        return set()
    others = _others_at(tokens, phrases, language, joinable) - pointed_at
    others -= _landmarks(tokens, others, subjects, language)
    if not others or _named_alone(question, phrases, language, joinable):
        return set()
    return others


@functools.cache
def _indefinite_articles(language: str) -> frozenset[str]:
    found = json.loads(INDEFINITE_ARTICLES.read_text(encoding="utf-8")).get(language, ())
    return frozenset(fold(word) for word in found)


def _in_general(tokens: list[_Token], index: int, others: set[int], language: str) -> bool:
    """Whether the thing named at ``index`` of ``tokens`` (one of ``others``, the indices
    of every word of the other things named) stands after an indefinite article of
    ``language`` (``indefinite_articles.json``, also the last part of an elided word:
    "d'une télé"), with at most :data:`DESCRIBED` words between that are no stop words
    ("a new laptop", "ein externe Festplatte"): such a thing in general. "my new laptop"
    is the household's own."""
    start = index
    while start - 1 in others:  # the first word of the thing: "a [mobile phone]"
        start -= 1
    articles, stops = _indefinite_articles(language), stop_words(language)
    for before in reversed(tokens[max(0, start - DESCRIBED - 1) : start]):
        if before.whole in articles or (before.parts and before.parts[-1] in articles):
            return True
        if before.whole in stops:
            return False
    return False


def names_other_things(
    question: str, capabilities: Iterable[Capability], language: str, *, owned_only: bool = False
) -> frozenset[str]:
    """The families (:func:`family_of`) among ``capabilities`` whose other things
    ``question`` names ("m'n pc", "mein Handy" beside the device's memory or disk)
    rather than the family's own, as :func:`named_families` reads them: a fact of the
    family it asks about is that thing's. With ``owned_only``, only those of which one
    such thing is named as the household's own, not only right after an indefinite
    article (:func:`_in_general`: "how many watts does a TV use?" asks of TVs in
    general, "did the kids switch the tv off?" of the household's). The question's
    words are read once, and each family is checked once."""
    tokens = _question_tokens(question, language)
    return frozenset(
        family
        for family, *_, others in _readings(question, tokens, capabilities, language)
        if any(not (owned_only and _in_general(tokens, i, others, language)) for i in others)
    )


def _readings(
    question: str, tokens: list[_Token], capabilities: Iterable[Capability], language: str
) -> Iterator[tuple[str, Phrases, _Parts | None, set[int], set[int]]]:
    """How ``question`` (read as ``tokens``) meets each household family among
    ``capabilities``, as :func:`named_families` and :func:`names_other_things` read it:
    ``(family, its phrases, the words its compounds may join, the indices of its
    subjects, the indices of its other things named instead)``, each family once
    (Home Assistant's two reads share one). What stands where a thing pointed at
    stands (:func:`_beside_pointed`) is no family's subject or other thing."""
    pointed_at = _beside_pointed(tokens, language)
    for family, capability in _families(capabilities).items():
        phrases = capability.phrases
        assert phrases is not None  # family_of said it has subjects
        joinable = _family_joinable(phrases, language)  # once per family, for every list
        subjects = _named_at(tokens, phrases.subjects, language, joinable, phrases.parts)
        subjects -= pointed_at  # where a thing pointed at stands: "il coso sopra al frigo"
        elsewhere = _another_thing(
            question, tokens, subjects, phrases, language, joinable, pointed_at
        )
        yield family, phrases, joinable, subjects, elsewhere


def names_the_thing(
    question: str, capabilities: Iterable[Capability], language: str
) -> frozenset[str]:
    """The families (:func:`family_of`) among ``capabilities`` whose thing itself
    ``question`` names: by a name of its own ("the server", "das Kästchen") or by asking
    the assistant about itself, in a sentence naming none of the family's other things
    (:func:`_named_alone`). "¿cuántos megas son 2 gigas de ram?" names the device's
    memory, a part of any computer, and not the device."""
    found = set()
    for family, capability in _families(capabilities).items():
        phrases = capability.phrases
        assert phrases is not None  # family_of said it has subjects
        if _named_alone(question, phrases, language, _family_joinable(phrases, language)):
            found.add(family)
    return frozenset(found)


def _families(capabilities: Iterable[Capability]) -> dict[str, Capability]:
    """Each household family among ``capabilities`` (:func:`family_of`) with the first
    capability of it: Home Assistant's two reads share one, read once."""
    families: dict[str, Capability] = {}
    for capability in capabilities:
        family = family_of(capability)
        if family is not None:
            families.setdefault(family, capability)
    return families


SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[-\u2013\u2014]\s+")
"""Where one sentence of a question ends and the next begins: its closing punctuation
and the space after it, or a line break ("1.5 GB" and "e.g." followed by no space are
not ends)."""


def _named_alone(question: str, phrases: Phrases, language: str, joinable: _Parts | None) -> bool:
    """Whether a sentence of ``question`` names the family's thing itself and none of
    its other things: by a name of its own
    (:attr:`~sovereign.executor.facts.Phrases.names`: "the server"), or by asking the
    assistant about itself (:func:`_asks_itself`). "are we running out of disk space on
    the server? I've been backing my laptop up to it" asks about the device, though it
    names a laptop; so does "Ben jij toen ook uitgegaan?" after a sentence about the
    TV. A part or figure ("memory") named beside another thing anywhere in the question
    stays that thing's: "My laptop is slow. Is the memory the problem?"; and so does a
    name in the same sentence as another thing ("My phone says the device storage is
    almost full")."""
    if not phrases.names and not phrases.itself:
        return False
    for sentence in SENTENCE_END.split(question):
        tokens = _question_tokens(sentence, language)
        others = _others_at(tokens, phrases, language, joinable)
        if others := others - _beside_pointed(tokens, language):  # "das Ding neben dem Router"
            if phrases.names and _named_as_destination(tokens, phrases.names, others, language):
                return True  # "… off his phone onto the server": where it goes is asked
            continue
        if phrases.names and _named_at(tokens, phrases.names, language, joinable):
            return True
        if phrases.itself and _asks_itself(tokens, phrases.itself, language):
            return True
    return False


def family_offered(named: frozenset[str], family: str | None) -> bool:
    """Whether a stand-in of ``family`` is offered when the question names the families
    ``named``: always when it names none or the stand-in stands for no family."""
    return not named or family is None or family in named


def named_read(
    named: frozenset[str], tools: Iterable[ToolDefinition], catalog: ToolCatalog
) -> ToolDefinition | None:
    """The offered tool that reads the one household family a question names that can be
    read here, when the product may run it without the model having chosen it; else
    ``None``.

    That is :func:`local_read`'s tool when it needs no argument of its own in this round
    (the product parameters ``facts`` and ``also_asked`` aside). Home Assistant's reads
    need an entity, and Pi-hole's needs its period when the question names a span, so
    those are never read this way.
    """
    found = local_read(named, tools, catalog)
    return found[0] if found is not None and not found[1] else None


def local_read(
    named: frozenset[str], tools: Iterable[ToolDefinition], catalog: ToolCatalog
) -> tuple[ToolDefinition, tuple[str, ...]] | None:
    """The offered tool that reads the one household family among those a question
    names that can be read here, when that family has one such tool
    (:func:`family_reads`), and the arguments of its own it requires; else ``None``.

    Returns:
        ``(tool, required)``: ``required`` holds the names of the parameters the tool
        requires in this round besides ``facts`` and ``also_asked`` (empty when the
        product can fill the call alone).
    """
    found = family_reads(named, tools, catalog)
    if len(found) != 1:
        return None
    (tool,) = found
    required = tool["function"].get("parameters", {}).get("required", [])
    return tool, tuple(name for name in required if name not in (FACTS, ALSO_ASKED))


def reads_here(capability: Capability, *, local_only: bool = True) -> bool:
    """Whether ``capability`` reads its family here, so the product may read it in
    place of a call that would leave the device: it only reads, on this device or its
    network (:attr:`Locality.LOCAL`; with ``local_only`` false, also the household's
    own service elsewhere, Home Assistant), and declares facts the product states."""
    return (
        capability.effect is Effect.READ_ONLY
        and (capability.locality is Locality.LOCAL or not local_only)
        and capability.facts is not None
    )


def family_reads(
    named: frozenset[str],
    tools: Iterable[ToolDefinition],
    catalog: ToolCatalog,
    *,
    local_only: bool = True,
) -> tuple[ToolDefinition, ...]:
    """The offered tools that read the one household family among those a question
    names that can be read here, on this device or its network; empty when none or
    several such families are named.

    A family can be read here when an offered tool (``tools``, OpenAI definitions named
    as ``catalog`` names them) reads it: a capability of that family that only reads,
    locally (:attr:`Locality.LOCAL`; with ``local_only`` false, also the household's
    own service elsewhere, Home Assistant, whose reads are approved first: a family is
    never the web), and declares facts the product states (Home Assistant has two: one
    entity's state, and every allowed entity's). Of the families ``named``
    (:func:`named_families`), exactly one must be: "is the little box under the TV
    coping ok? its light has been blinking" names the device and the home's lights, and
    with Home Assistant not set up only the device can be read; a question naming two
    families that can both be read ("is ad blocking on, and how long has the device
    been running?") is the model's to fill.
    """
    readable: dict[str, list[ToolDefinition]] = {}
    for tool in tools:
        target = catalog.resolve(tool["function"]["name"])
        capability = target and catalog.capabilities.get(target.capability)
        family = family_of(capability)
        if capability is None or family not in named:
            continue
        if reads_here(capability, local_only=local_only):
            readable.setdefault(family, []).append(tool)
    if len(readable) != 1:
        return ()
    (found,) = readable.values()
    return tuple(found)


@functools.cache
def _web_requests() -> dict[str, tuple[str, ...]]:
    catalog = json.loads(WEB_REQUESTS.read_text(encoding="utf-8"))
    return {language: tuple(words) for language, words in catalog.items() if language != "_about"}


def asks_for_the_web(question: str, language: str) -> bool:
    """Whether ``question`` asks for the web itself ("Search the web for …", "such im
    Internet", "cerca online"): a word of ``web_requests.json`` in any of the six
    languages, matched as family words are; ``language`` is the question's (ISO 639-1).
    Such a question asked for what leaves the device, so its read does not come first."""
    return names_subject(question, _web_requests(), language)


def questions_in(text: str, language: str) -> int:
    """How many questions ``text`` holds (:func:`~..voice.questions.question_parts`:
    its question marks, and a question word after "and" where a mark is left out);
    ``language`` is the text's (ISO 639-1)."""
    return len(question_parts(text, language))


def unread_questions(
    question: str, read: Iterable[Capability], capabilities: Iterable[Capability], language: str
) -> list[str]:
    """The questions of a message of several (:func:`questions_in`) that name no family
    of the capabilities ``read`` (:func:`named_families` among ``capabilities``): what is
    left to answer after the product stated their facts ("Ist die Haustür abgeschlossen?
    Und wer hat „Die Verwandlung" geschrieben?" after the lock: the second). Empty for a
    message of one question, or when every question names a family read, or none does
    (nothing tells which one the facts answer)."""
    parts = question_parts(question, language)
    if len(parts) < 2:
        return []
    capabilities = list(capabilities)
    families = {family_of(c) for c in read} - {None}
    rest = [p for p in parts if not named_families(p, capabilities, language) & families]
    return rest if 0 < len(rest) < len(parts) else []


def asks_beyond(
    question: str, called: Iterable[Capability], catalog: ToolCatalog, language: str
) -> bool:
    """Whether ``question`` (in ``language``, ISO 639-1) asks more than the
    capabilities ``called`` read, in what the product can see: it holds more questions
    than there are calls (:func:`questions_in`: "Ist die Haustür abgeschlossen? Und wer
    hat „Die Verwandlung" geschrieben?" read the lock, its decision saying nothing else
    was asked, and the book was never answered), it names a household
    family (:func:`named_families`) that the turn offers and none of them reads ("How
    hot is the device, and how many queries did Pi-hole block today?" read the device
    alone, its decision saying nothing else was asked), or it asks for the web in words
    (:func:`asks_for_the_web`) and none of them is a web read (a capability of no family
    that crosses the device boundary). A message whose every question names a family
    read asks nothing more, however many questions it holds ("Joh, … word je niet te
    heet? Hoe warm is je processor?" read the device once for both, and was asked
    again: the prose restated the load and claimed "ik ben niet te heet")."""
    called = list(called)
    offered = [c for name, c in catalog.capabilities.items() if catalog.offers(name)]
    read = {family_of(c) for c in called}
    parts = question_parts(question, language)
    each_read = all(named_families(p, offered, language) & (read - {None}) for p in parts)
    if len(parts) > len(called) and not each_read:
        return True
    if named_families(question, offered, language) - read:
        return True
    web = any(c.locality is Locality.EXTERNAL and family_of(c) is None for c in called)
    return not web and asks_for_the_web(question, language)


def asked_topics(question: str, sheet: FactSheet, language: str) -> tuple[str, ...]:
    """The topics of ``sheet`` that ``question`` names in their words
    (:attr:`~sovereign.executor.facts.FactSheet.asked_by`, matched as subjects are),
    in the sheet's order; ``language`` is the question's (ISO 639-1)."""
    words = sheet.asked_by
    tokens = _question_tokens(question, language)  # read once for every topic
    return tuple(
        topic.name
        for topic in sheet.topics
        if topic.name in words
        and (
            _named_at(tokens, words[topic.name], language, _joinable([words[topic.name]], language))
            or _names_inflected(tokens, words[topic.name], language)
        )
    )


INFLECTION_LETTERS = 1
"""Most letters by which two Snowball stems of one word's forms may differ at the end
("bloqueó" stems as "bloque", "bloqueadas" as "bloqu"); two join another word ("ad
blocker", "blocker", named the blocked queries by "blocked", "block")."""
MIN_INFLECTED_STEM = 5
"""Fewest letters of the shorter of two such stems: shorter ones are other words."""


def _names_inflected(
    tokens: list[_Token], subjects: Mapping[str, Iterable[str]], language: str
) -> bool:
    """Whether a word of a question (read as ``tokens``) is another form of a one-word
    phrase of ``subjects`` in ``language``: one stem begins with the other, both of at
    least :data:`MIN_INFLECTED_STEM` letters, and they differ by at most
    :data:`INFLECTION_LETTERS` at the end. A catalog lists a verb's participles
    ("bloqueado", "bloqueadas"); its other tenses ("¿y cuántas bloqueó?") stem apart."""
    own = {
        stem(phrase, language)
        for phrase in subjects.get(language, ())
        if len(_words_of(phrase)) == 1 and not phrase.isupper()
    }
    own = {word for word in own if len(word) >= MIN_INFLECTED_STEM}
    if not own:
        return False
    for token in tokens:
        for found in token.stems:
            for word in own:
                short, long = sorted((found, word), key=len)
                if (
                    len(short) >= MIN_INFLECTED_STEM
                    and long.startswith(short)
                    and len(long) - len(short) <= INFLECTION_LETTERS
                ):
                    return True
    return False


def conversation_topics(
    questions: list[str],
    sheet: FactSheet,
    capabilities: Iterable[Capability],
    language: str,
    chosen: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """The topics of ``sheet`` the last of ``questions`` (the user's messages, in
    order) names (:func:`asked_topics`); when it names none and no household family
    either ("en deze week?", "¿y en el último mes?"), it goes on from the one before,
    whose topics are taken, and so on back. Not when it names no time either and the
    model ``chosen`` topics none of which the one before named: it asks something of
    its own in words the sheet does not hold ("ok. und wie lang läuft er schon am
    Stück?" after the CPU's temperature asks the uptime, and was told the temperature
    and the load as well), so ``()``: the model's choice stands."""
    capabilities = list(capabilities)
    for back, question in enumerate(reversed(questions)):
        asked = asked_topics(question, sheet, language)
        if asked or named_families(question, capabilities, language):
            if back and chosen and not set(chosen) & set(asked):
                return asked if time_scope(questions[-1]).named else ()
            return asked
    return ()


def conversation_scope(
    questions: list[str], capabilities: Iterable[Capability], language: str
) -> TimeScope | None:
    """The time scope an earlier question named that the last of ``questions`` (the
    user's messages, in order) goes on from, when the last names none: the nearest
    earlier question naming one, provided every household family named since (the last
    question included) is one it named too ("hoeveel procent is dat van alles" after
    "hoeveel heeft pihole deze week geblokkeerd?": this week; "how hot is the device?"
    in between: none). ``None`` when the last names a scope of its own or none is
    found."""
    if not questions or time_scope(questions[-1]).named:
        return None
    capabilities = list(capabilities)
    seen = set(named_families(questions[-1], capabilities, language))
    for question in reversed(questions[:-1]):
        families = named_families(question, capabilities, language)
        scope = time_scope(question)
        if scope.named:
            return scope if seen <= families else None
        seen |= families
    return None


Alike = tuple[tuple[str, ...], ...]
"""Groups of words that each name one thing or place in all the languages
(:attr:`~sovereign.executor.Phrases.alike`)."""
_WORD = re.compile(r"\w+")


def folded_words(text: str) -> list[str]:
    """The words of ``text`` (runs of word characters), folded
    (:func:`~..voice.words.fold`)."""
    return [fold(word) for word in _WORD.findall(text)]


def begun(words: Sequence[str], wanted: Sequence[str]) -> bool:
    """Whether each of ``wanted`` begins one of ``words`` ("garagentor" holds "garage")."""
    return all(any(word.startswith(x) for word in words) for x in wanted)


def alike_held(question: str, alike: Alike) -> list[tuple[str, ...]]:
    """The groups of ``alike`` that ``question`` names: it holds each word of one of a
    group's entries (:func:`begun`, folded)."""
    found = folded_words(question)
    return [group for group in alike if any(begun(found, folded_words(e)) for e in group)]


def followed_families(
    questions: list[str], capabilities: Iterable[Capability], language: str
) -> frozenset[str]:
    """The household families a follow-up goes on from: when the last of ``questions``
    (the user's messages, in order) names no family, those named by the nearest earlier
    question that names any, of which the last names a fact in that family's words
    (:func:`asked_topics`: "e in percentuale sul totale?" after a Pi-hole question, "Und
    die Temperatur?" after one about the device) or a thing in its words alike across
    languages (:func:`alike_held`: "¿y en la calle?" after the kitchen's temperature);
    else none. A question naming neither ("what is the capital of France?") goes on
    from nothing."""
    capabilities = list(capabilities)
    if not questions or named_families(questions[-1], capabilities, language):
        return frozenset()
    for question in reversed(questions[:-1]):
        if earlier := named_families(question, capabilities, language):
            return frozenset(
                family_of(c)
                for c in capabilities
                if family_of(c) in earlier
                and (
                    (c.facts is not None and asked_topics(questions[-1], c.facts, language))
                    or (c.phrases is not None and alike_held(questions[-1], c.phrases.alike))
                )
            )
    return frozenset()


def topics_to_state(
    chosen: tuple[str, ...], asked: tuple[str, ...], sheet: FactSheet
) -> tuple[str, ...]:
    """The facts said for a call: of the topics the model ``chosen``, those the question
    names (``asked``, :func:`asked_topics`); when it chose none of them, the named ones
    beside its own, in the sheet's order ("hoeveel gb heb je nog vrij op je schijf?" was
    given the free memory alone; "ok and the disk?" after a memory question, the memory
    again). A question naming none leaves the model's choice, an empty one included
    (a general check). A topic whose fields another topic said states too is left to
    that one: Pi-hole's blocked queries are said "3,465 of 7,497 DNS queries", which
    holds the total, so "quante richieste ha fatto fuori?" (the requests, and those
    blocked) is answered by the blocked alone, whichever of the two the model chose."""
    if not asked:
        return _uncovered(chosen, sheet)
    asked = _uncovered(asked, sheet)
    kept = tuple(name for name in chosen if name in asked)
    if kept:
        return _uncovered(kept, sheet)
    said = tuple(t.name for t in sheet.topics if t.name in asked or t.name in chosen)
    return _uncovered(said, sheet)


def _uncovered(topics: tuple[str, ...], sheet: FactSheet) -> tuple[str, ...]:
    """``topics`` without those whose statements' fields another of them states too
    (each topic's fields: the result fields its statements' values name)."""
    fields = {
        t.name: {path for s in t.statements for path in s.values.values()} for t in sheet.topics
    }
    return tuple(
        name
        for name in topics
        if not any(
            other != name and fields.get(name) and fields[name] < fields.get(other, set())
            for other in topics
        )
    )
