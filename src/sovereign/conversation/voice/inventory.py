"""Every sentence the product can say, as catalog entries (for translators and the tests).

Lists the English source text of the conversation's own sentences and of everything
the given capabilities declare (their fact sheets' statements and state words, their
phrases), each with the catalog it belongs in and its context, so that a test can
check every catalog translates every sentence with the same placeholders, and a
translator can start a new language from the list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path

from sovereign.executor import Capability, FactSheet, Phrases

from .activity import PLURALS as ACTIVITY_PLURALS
from .activity import REPAIRS as ACTIVITY_REPAIRS
from .activity import SENTENCES as ACTIVITY_SENTENCES
from .around import ALL_SENTENCES
from .card import (
    CARD_SENTENCES,
    EDIT_DETAIL_COUNTS,
    EDIT_DETAILS,
    EDIT_REFUSALS,
    EDIT_REFUSED,
    SPACES,
)
from .catalogs import OWN_CATALOGS, OWN_DOMAIN
from .receipts import CAPABILITY_NAMES, RECEIPT_SENTENCES, REFUSAL_REASONS
from .sentences import _BY_CODE, _GENERIC, CONTEXT, OWN_SENTENCES, REASON


@dataclass(frozen=True)
class Entry:
    """One message of a catalog.

    Attributes:
        directory, domain: the catalog (``<directory>/<language>/LC_MESSAGES/<domain>.po``).
        context: its ``msgctxt``.
        text: the English source text (the ``msgid``).
        plural: the English plural (``msgid_plural``), or ``None``.
    """

    directory: Path
    domain: str
    context: str
    text: str
    plural: str | None = None


def own_entries() -> Iterator[Entry]:
    """The conversation's own sentences, the receipt's and those around an answer among
    them (:mod:`.around`)."""
    for text in [*_BY_CODE.values(), *_GENERIC.values(), REASON]:
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, CONTEXT, text)
    for key, text in [
        *OWN_SENTENCES.items(),
        *RECEIPT_SENTENCES.items(),
        *ALL_SENTENCES.items(),
        *CARD_SENTENCES.items(),
    ]:
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, key, text)
    for code, text in REFUSAL_REASONS.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, f"receipt_refusal:{code}", text)
    for name, text in CAPABILITY_NAMES.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, f"capability_name:{name}", text)
    yield Entry(OWN_CATALOGS, OWN_DOMAIN, "card_mark_spaces", *SPACES)
    for key, text in ACTIVITY_SENTENCES.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, key, text)
    for key, (one, many) in ACTIVITY_PLURALS.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, key, one, many)
    for reason, text in ACTIVITY_REPAIRS.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, f"activity_repair:{reason}", text)
    for key, text in EDIT_REFUSED.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, key, text)
    for code, text in EDIT_REFUSALS.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, f"edit_refused:{code}", text)
    for code, text in EDIT_DETAILS.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, f"edit_detail:{code}", text)
    for code, (one, many) in EDIT_DETAIL_COUNTS.items():
        yield Entry(OWN_CATALOGS, OWN_DOMAIN, f"edit_detail:{code}", one, many)


def capability_entries(capabilities: Iterable[Capability]) -> Iterator[Entry]:
    """What ``capabilities`` declare: fact-sheet statements (context: the topic), state
    words (context: their state context) and phrases (context: the phrase's name)."""
    for capability in capabilities:
        if capability.facts is not None:
            yield from _sheet_entries(capability.facts)
        if capability.phrases is not None:
            yield from _phrase_entries(capability.phrases)


def _sheet_entries(sheet: FactSheet) -> Iterator[Entry]:
    for topic in sheet.topics:
        for statement in topic.statements:
            yield Entry(sheet.catalog, sheet.domain, topic.name, statement.text, statement.plural)
    for context, words in sheet.words.items():
        for text in words.values():
            yield Entry(sheet.catalog, sheet.domain, context, text)


_NOT_SAID = (
    "catalog",
    "domain",
    "stands_for",
    "stand_in",
    "failures",
    "subjects",
    "places",
    "others",
    "names",
    "plurals",
    "parts",
    "itself",
    "alike",
)
"""Fields of :class:`Phrases` that are not sentences: where the translations are,
words for the model in English (``stands_for``, ``stand_in``), ``failures`` (listed
below) and the subject, place, other-thing, name, plural, compound-part,
asked-about-itself and alike words, which are per language already."""


def _phrase_entries(phrases: Phrases) -> Iterator[Entry]:
    for spec in fields(Phrases):
        text = getattr(phrases, spec.name)
        if spec.name in _NOT_SAID or text is None:
            continue
        yield Entry(phrases.catalog, phrases.domain, spec.name, text)
    for failure, text in phrases.failures.items():
        yield Entry(phrases.catalog, phrases.domain, f"failed:{failure}", text)


def all_entries(capabilities: Iterable[Capability]) -> list[Entry]:
    """Every entry, once, in a stable order."""
    return list(dict.fromkeys([*own_entries(), *capability_entries(capabilities)]))
