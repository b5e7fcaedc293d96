"""The time span a question names, in any language the product speaks ("this weekend": 7 days),
and whether it names a time scope at all ("yesterday", "seit März").

The phrases are data (``time_spans.json``, per language): fixed spans ("today",
"dieses Wochenende", "ce week-end", "este fin de semana", "dit weekeinde", "questo
fine settimana") by their unit, and counted ones ("the last 3 days", "die letzten
zwei Wochen", "les 3 derniers jours"). A span holds today or lies behind it ("today",
"this month", "last week"), or may lie wholly ahead of today: the coming weekend,
"this weekend" said on a Wednesday (:attr:`TimeScope.ahead`). A phrase matches a run
of whole words of the question by its letters (:mod:`..voice.words`: case, accents
and what separates the words do not count), so "week-end", "week end" and "weekend"
are one spelling while "weekends", "weekender" and "Wochenendhaus" are other words.
Every language's phrases are read, whatever the question's language: the language of
a short question is often unsure, and a phrase of one language rarely occurs in
another.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from babel import Locale

from ..voice.words import PhraseIndex, Word, fold, letters, words

__all__ = ["UNIT_DAYS", "TimeScope", "named_span_days", "names_time_scope", "time_scope"]

CATALOG = Path(__file__).resolve().parent / "time_spans.json"
UNIT_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}
"""The length in days of each unit the catalog names."""
YEARS = ("19", "20")
"""The centuries of a year written in digits after an anchor ("since 2024")."""
NUMBER = "{n}"
UNIT = "{unit}"


class TimeScope(NamedTuple):
    """The time scope a question names (:func:`time_scope`).

    Attributes:
        named: the question names a time scope, with a span or without ("since Monday").
        days: the length in days of the first span it names, or ``None``.
        ahead: that span may lie wholly ahead of today ("this weekend" said on a
            Wednesday): pages about it are written before it, so a window counted back
            from now must reach further than its length to find them.
    """

    named: bool
    days: float | None
    ahead: bool = False


@dataclass(frozen=True)
class Spans:
    """The catalog compiled: phrases by their letters, counted phrases as slots."""

    fixed: PhraseIndex[TimeScope | None]
    """Each fixed span → the scope it names; each of ``not_spans`` → ``None`` (listed
    first, so a phrase in both is no span, and the longer "last week of" outranks "last
    week")."""
    counted: tuple[tuple[str, ...], ...]
    units: dict[str, float]
    numbers: dict[str, int]
    scopes: PhraseIndex[bool]
    counted_scopes: tuple[tuple[str, ...], ...]
    anchors: PhraseIndex[bool]
    weekdays: frozenset[str]
    """Folded weekday names of the six languages (Babel's CLDR data): each a scope."""
    months: frozenset[str]
    """Folded month names of the six languages: each a scope after an anchor."""


def _slots(template: str) -> tuple[str, ...]:
    """A counted phrase as its words' letters, with the two slots kept as they are."""
    return tuple(part if part in (NUMBER, UNIT) else letters(part) for part in template.split())


@functools.cache
def spans() -> Spans:
    """Every language's phrases from :data:`CATALOG`, compiled once."""
    catalog: dict[str, Any] = json.loads(CATALOG.read_text(encoding="utf-8"))
    codes = [code for code in catalog if not code.startswith("_")]
    entries = [catalog[code] for code in codes]
    not_spans = [(phrase, None) for entry in entries for phrase in entry["not_spans"]]
    fixed = [
        (phrase, TimeScope(True, UNIT_DAYS[unit], ahead))
        for entry in entries
        for key, ahead in (("spans", False), ("spans_ahead", True))
        for unit, phrases in entry[key].items()
        for phrase in phrases
    ]
    units, numbers = {}, {}
    for entry in entries:
        for unit, names in entry["units"].items():
            units.update((fold(name), UNIT_DAYS[unit]) for name in names)
        numbers.update((fold(name), value) for name, value in entry["numbers"].items())
    weekdays, months = _calendar_names(codes)
    return Spans(
        fixed=PhraseIndex.of([*not_spans, *fixed]),
        counted=_templates(entries, "counted"),
        units=units,
        numbers=numbers,
        scopes=PhraseIndex.of((p, True) for entry in entries for p in entry["scopes"]),
        counted_scopes=_templates(entries, "counted_scopes"),
        anchors=PhraseIndex.of((p, True) for entry in entries for p in entry["anchors"]),
        weekdays=weekdays,
        months=months,
    )


def _templates(entries: list[dict[str, Any]], key: str) -> tuple[tuple[str, ...], ...]:
    return tuple(dict.fromkeys(_slots(t) for entry in entries for t in entry[key]))


def _calendar_names(languages: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The folded wide weekday and month names of ``languages``, from Babel's CLDR data."""
    weekdays: set[str] = set()
    months: set[str] = set()
    for code in languages:
        locale = Locale.parse(code)
        for context in ("format", "stand-alone"):
            weekdays.update(fold(name) for name in locale.days[context]["wide"].values())
            months.update(fold(name) for name in locale.months[context]["wide"].values())
    return frozenset(weekdays), frozenset(months)


def names_time_scope(text: str) -> bool:
    """Whether ``text`` names a time scope, in any language of the catalog: a span
    (:func:`named_span_days`), a scope without a span ("yesterday", "morgen", "la
    semaine prochaine", "3 days ago", "hace dos semanas"), a weekday's name, or a
    month's name or a year after an anchor ("in March", "seit 2024", "depuis mai").

    "latest", "new", "current" and "now" name none: they ask for recent results, which
    a search ranks first anyway, not for a window that hides older ones. A month's name
    alone names none ("What may happen?"), nor does a number alone ("the 1000 best").
    """
    return time_scope(text)[0]


def time_scope(text: str) -> TimeScope:
    """:func:`names_time_scope` and :func:`named_span_days` of ``text``, and whether its
    span may lie ahead of today, its words read once."""
    found = words(text)
    catalog = spans()
    span = _span(found, catalog)
    if span is not None:
        return span
    return TimeScope(any(_scope_at(found, start, catalog) for start in range(len(found))), None)


def _scope_at(found: list[Word], start: int, catalog: Spans) -> bool:
    word = found[start].whole
    if catalog.scopes.longest_at(found, start)[1] > start or word in catalog.weekdays:
        return True
    if any(_counted(t, found[start : start + len(t)], catalog) for t in catalog.counted_scopes):
        return True
    end = catalog.anchors.longest_at(found, start)[1]
    if end == start or end >= len(found):
        return False
    after = found[end].whole
    return after in catalog.months or (len(after) == 4 and after.isdigit() and after[:2] in YEARS)


def _counted(template: tuple[str, ...], run: list[Word], catalog: Spans) -> bool:
    return _match(template, run, catalog) is not None


def named_span_days(text: str) -> float | None:
    """The length in days of the first time span ``text`` names, or ``None``.

    "today" 1, "this weekend" 7, "ce mois-ci" 30, "quest'anno" 365, "the past 3
    days" 3, "in den letzten 24 Stunden" 1. A scope without a length ("since
    Monday", "in March", "tomorrow") names none.
    """
    span = _span(words(text), spans())
    return None if span is None else span.days


def _span(found: list[Word], catalog: Spans) -> TimeScope | None:
    for start in range(len(found)):
        span = catalog.fixed.longest_at(found, start)[0]
        if span is None and (days := _counted_at(found, start, catalog)) is not None:
            # "the last 3 days", "die letzten zwei Wochen": counted back from now
            span = TimeScope(True, days)
        if span is not None:
            return span
    return None


def _counted_at(found: list[Word], start: int, catalog: Spans) -> float | None:
    for template in catalog.counted:
        days = _match(template, found[start : start + len(template)], catalog)
        if days is not None:
            return days
    return None


def _match(template: tuple[str, ...], run: list[Word], catalog: Spans) -> float | None:
    """Days (the count times the unit's) when ``run`` spells ``template``, else ``None``."""
    if len(run) < len(template):
        return None
    count, unit = None, None
    for slot, word in zip(template, run, strict=False):
        if slot == NUMBER:
            count = int(word.whole) if word.whole.isdigit() else catalog.numbers.get(word.whole)
        elif slot == UNIT:
            unit = catalog.units.get(word.whole)
        elif slot != word.whole:
            return None
    if count is None or unit is None:
        return None
    return count * unit
