"""What a capability says, declared beside it: its facts and its sentences (DESIGN §4).

A small local model chooses well and restates badly. So a capability whose result
is a household fact declares, beside itself, how each fact is said: a
:class:`FactSheet` of topics the model may name ("memory", "blocked"), each with the
:class:`Statement` sentences that state it from the result's fields, and every
capability declares the sentences said about it when it did not run
(:class:`Phrases`). The conversation layer renders those sentences from the result
in the household's language; it names no capability's fields and holds none of
their words.

All text here is English source text. Its translations live in gettext catalogs
(``<catalog>/<language>/LC_MESSAGES/<domain>.po``) beside the capability, looked
up with the English text as the message id and a context (``msgctxt``) saying
where it is used. Placeholders are ``{name}``; each is filled with a result field
formatted by its :data:`Kind` for the language (numbers, units and durations by
Babel). Imports nothing of ours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Kind = Literal[
    "count", "number", "percent", "gigabytes", "celsius", "hours", "reading", "state", "name"
]
"""How a field's value is said: ``count`` a whole number (1,234), ``number`` a decimal
(1.25), ``percent`` a value in percent (46.2 → 46.2 %), ``gigabytes`` decimal GB,
``celsius`` °C, ``hours`` a duration in hours (said in days and hours), ``reading`` a
number with the unit another field gives (:attr:`FactSheet.units`), ``state`` a word
looked up in the catalog under the context the statement names (``locked``,
``enabled``), ``name`` text shown as it is (a friendly name)."""

ABSENT = None
"""A field whose value is ``null`` (or missing) matches ``when={field: ABSENT}``."""


class _Number:
    """Matches a field holding a finite number, or text that reads as one ("21.4")."""

    def __repr__(self) -> str:
        return "NUMBER"


NUMBER: Any = _Number()
"""``when={field: NUMBER}``: the field holds a number (a Home Assistant reading)."""


@dataclass(frozen=True, kw_only=True)
class Statement:
    """One sentence the product says from a result.

    Attributes:
        text: the English sentence with ``{placeholders}`` (the gettext message id).
        values: placeholder → result field path (``"memory_available_gb"``, dotted
            for nested objects: ``"entity.state"``); each is formatted by its kind.
        when: conditions on result fields, all of which must hold for the sentence
            to be said: field path → the value it must equal (``ABSENT``: null or
            missing; a tuple: any of its values). Empty: always said.
        unless: conditions of the same form, none of which may hold.
        states: for ``state`` fields, the catalog context their words are looked
            up under (``"lock"`` → the word for ``locked`` in a lock's sense); a
            ``{field}`` in it is replaced by that field's value
            (``"binary_sensor:{entity.attributes.device_class}"``).
        plural: the English plural of ``text``, chosen by the language's plural rule
            for the value of the placeholder ``count`` names (``None``: no plural).
        count: the placeholder whose number picks singular or plural.
        each: a field holding a list: the sentence is said once per item, and every
            other field path is read inside the item (``None``: said once).
        kinds: placeholder → the :data:`Kind` its field is said as here, where it
            differs from the sheet's (a Home Assistant state said as a ``reading``).
    """

    text: str
    values: Mapping[str, str] = field(default_factory=dict)
    when: Mapping[str, Any] = field(default_factory=dict)
    unless: Mapping[str, Any] = field(default_factory=dict)
    states: str = "state"
    plural: str | None = None
    count: str | None = None
    each: str | None = None
    kinds: Mapping[str, Kind] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Topic:
    """One fact a question may ask about.

    Attributes:
        name: the value the model may name in its decision, e.g. ``"memory"``.
        means: what it covers, for the model's instructions (English), e.g. "free
            and used memory (RAM)".
        statements: the sentences that state it, in order; those whose conditions
            hold are said.
    """

    name: str
    means: str
    statements: tuple[Statement, ...]


@dataclass(frozen=True, kw_only=True)
class FactSheet:
    """How a capability's result is said (DESIGN §4, "the product states").

    Attributes:
        kinds: result field path → its :data:`Kind` (every field a statement uses).
        topics: the facts a question may ask about, in the order they are said.
        summary: the topics said when the decision names none (a "how is it?" question).
        catalog: the directory holding ``<language>/LC_MESSAGES/<domain>.po``.
        domain: the gettext domain of this capability's sentences.
        units: for each ``reading`` field, the field holding its unit.
        words: for each ``state`` context, each value → its English words
            (``{"lock": {"locked": "locked"}, "load_verdict": {"light": "lightly
            loaded"}}``), translated through the catalog under that context; a value
            without words is shown as it is.
        asked_by: for each topic, the words per language (ISO 639-1 → phrases) that
            name it in a question ("schijf", "liste noire"): the facts a question names
            in them are said even when the model chose others
            (:func:`sovereign.conversation.offer.subjects.asked_topics`). Read from a JSON
            file beside the capability by :func:`read_topic_words`; empty: the model's
            choice alone.
    """

    kinds: Mapping[str, Kind]
    topics: tuple[Topic, ...]
    summary: tuple[str, ...]
    catalog: Path
    domain: str
    units: Mapping[str, str] = field(default_factory=dict)
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    asked_by: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [topic.name for topic in self.topics]
        if len(set(names)) != len(names) or not set(self.summary) <= set(names):
            raise ValueError("topics must be unique and the summary must name topics")
        if not set(self.asked_by) <= set(names):
            raise ValueError(f"words for unknown topics {sorted(set(self.asked_by) - set(names))}")
        for topic in self.topics:
            for statement in topic.statements:
                declared = {p for p, path in statement.values.items() if path in self.kinds}
                unknown = set(statement.values) - declared - set(statement.kinds)
                if unknown:
                    raise ValueError(f"{topic.name}: no kind declared for {sorted(unknown)}")

    def topic(self, name: str) -> Topic | None:
        """The topic called ``name``, or ``None``."""
        return next((topic for topic in self.topics if topic.name == name), None)


@dataclass(frozen=True, kw_only=True)
class Phrases:
    """The sentences said about a capability when it did not run or cannot (English;
    translated through ``catalog``/``domain`` like a :class:`FactSheet`).

    Attributes:
        denied: said when the household declined the call ("You declined the web
            search, so I didn't look it up.").
        expired: the approval request expired unanswered.
        failed: the call ran and failed.
        not_asked: never asked after an earlier denial in the same reply.
        unavailable: the capability is not set up on this device (``None``: it always is).
        switched_off: its policy switch is off (``None``: it has none).
        stands_for: the questions a stand-in for it serves when it is withheld, for
            the model's instructions ("asks about ad blocking …"); ``None``: no stand-in.
        stand_in: what the stand-in's name calls the family, in words a model reads
            as what is missing (``smart_home`` → ``smart_home_not_set_up``); ``None``:
            :attr:`domain`.
        ask: what the assistant says while a card for it waits for approval ("Before I
            go on, I need your approval to search the web."); ``None``: a generic one.
        failures: what is said instead of ``failed`` for a failure the capability names
            (its :class:`~.errors.CapabilityError` ``reason`` → the sentence, saying
            plainly what to do), e.g. Pi-hole with no free API session.
        subjects: the words per language (ISO 639-1 → phrases) that name what the
            family reads ("CPU", "Festplatte", "cuisine"): a question that names only
            other families' subjects is not offered this family's stand-in
            (:mod:`sovereign.conversation.offer.subjects`); empty: always offered.
            Read from a JSON file beside the capability by :func:`read_subjects`.
        places: words per language that name where the family's things are (a
            room, a cupboard): they name the family only when the question names no
            other family's :attr:`subjects` ("the box in the hallway" is about the
            device). Read as :attr:`subjects` are.
        others: words per language that name other things sharing the family's
            words (the household's phone or laptop for the device's): a question
            naming one does not name the family by its :attr:`subjects` ("Mein Handy
            meldet Speicher voll"). Read as :attr:`subjects` are.
        names: the words among :attr:`subjects` that name the family's thing itself,
            not one of its parts or figures ("the server", "das Kästchen"): a sentence
            naming one and none of :attr:`others` names the family even when another
            sentence names another thing. Read as :attr:`subjects` are.
        plurals: words per language naming many of the family's things ("the
            devices", "unsere Geräte", "les appareils"): the household's things, not
            this one, so they count as :attr:`others`. Matched by their spelling alone,
            a whole word each, since Snowball stems them as the thing's own name
            ("devices" and "device" share "devic"); a compound's linking form
            ("Geräte-Temperatur", "Gerätetemperatur") is no plural. Read as
            :attr:`subjects` are.
        parts: words per language that name the family only inside a compound of
            its words, in the languages that write compounds as one word ("Filter"
            in "Werbefilter", not in "Kaffeefilter"; "Werbe", how "Werbung" begins
            one). Read as :attr:`subjects` are.
        itself: words per language for what the family reads as a household asks the
            assistant about itself ("are you running *hot*?", "hast du noch *Platz*?"):
            the assistant runs on the device, so such a question names the device's
            family. They name it only beside an address to the assistant
            (:mod:`sovereign.conversation.offer.subjects`), where no family's
            :attr:`subjects` are named. Read as :attr:`subjects` are.
        alike: groups of words, each naming one thing or place in all the languages
            (the landing: "landing", "Treppenabsatz", "palier", "descansillo",
            "overloop", "pianerottolo"): a question naming a thing in one language's
            words names it in the others, so an entity named in English is named by
            a question in Italian (:mod:`sovereign.conversation.offer.same_thing`).
            Read from a JSON file beside the capability by :func:`read_word_groups`.
        catalog, domain: where the translations are.
    """

    denied: str
    expired: str
    failed: str
    not_asked: str
    catalog: Path
    domain: str
    unavailable: str | None = None
    switched_off: str | None = None
    stands_for: str | None = None
    stand_in: str | None = None
    ask: str | None = None
    failures: Mapping[str, str] = field(default_factory=dict)
    subjects: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    places: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    others: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    plurals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    itself: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    alike: tuple[tuple[str, ...], ...] = ()


def read_word_groups(path: Path) -> tuple[tuple[str, ...], ...]:
    """The groups of a JSON file ``{"groups": [{"<language>": ["phrase", …]}, …],
    "_about": …}``, each as the phrases of all its languages, for :attr:`Phrases.alike`.

    Raises:
        OSError, ValueError: the file is missing or not such an object (a packaging
            mistake, caught when the capability module is imported).
    """
    catalog = json.loads(path.read_text(encoding="utf-8"))
    groups = catalog.get("groups") if isinstance(catalog, dict) else None
    if not isinstance(groups, list):
        raise ValueError(f"{path.name} must hold a list of groups")
    return tuple(
        tuple(
            phrase
            for phrases in _phrases_by_language(group, path.name).values()
            for phrase in phrases
        )
        for group in groups
    )


def read_subjects(path: Path) -> dict[str, tuple[str, ...]]:
    """The subject words of a JSON file ``{"<language>": ["phrase", …], "_about": …}``
    (keys starting with ``_`` are comments), for :attr:`Phrases.subjects`.

    Raises:
        OSError, ValueError: the file is missing or not such an object (a packaging
            mistake, caught when the capability module is imported).
    """
    return _phrases_by_language(json.loads(path.read_text(encoding="utf-8")), path.name)


def _phrases_by_language(catalog: Any, where: str) -> dict[str, tuple[str, ...]]:
    """``{"<language>": ["phrase", …]}`` (keys starting with ``_`` left out) as tuples.

    Raises:
        ValueError: ``catalog`` is not such an object (``where`` names it).
    """
    if not isinstance(catalog, dict):
        raise ValueError(f"{where} must map languages to phrases")
    subjects = {}
    for language, phrases in catalog.items():
        if language.startswith("_"):
            continue
        if not isinstance(phrases, list) or not all(isinstance(p, str) and p for p in phrases):
            raise ValueError(f"{where}: {language} must list phrases")
        subjects[language] = tuple(phrases)
    return subjects


def read_topic_words(path: Path) -> dict[str, dict[str, tuple[str, ...]]]:
    """The words naming each topic, from a JSON file ``{"<topic>": {"<language>":
    ["phrase", …]}, "_about": …}`` (keys starting with ``_`` are comments), for
    :attr:`FactSheet.asked_by`.

    Raises:
        OSError, ValueError: the file is missing or not such an object (a packaging
            mistake, caught when the capability module is imported).
    """
    catalog = json.loads(path.read_text(encoding="utf-8"))
    return {
        topic: _phrases_by_language(languages, f"{path.name}: {topic}")
        for topic, languages in catalog.items()
        if not topic.startswith("_")
    }


@dataclass(frozen=True, kw_only=True)
class Choice:
    """One value an argument may take, offered to the model as an enum member.

    Attributes:
        value: the argument's value (``"lock.back_door"``).
        label: what the household calls it ("Back door"), shown beside the value.
    """

    value: str
    label: str
