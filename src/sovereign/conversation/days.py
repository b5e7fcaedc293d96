"""The days a question asks about and the days a passage is about (DESIGN §4).

A web page answers "are there works this weekend?" with the passage about this
weekend, not the one about the next ("13 and 14 December") that shares more of the
question's words. So the passage ranking (:func:`.sources.candidates`) puts after the
others a passage whose dates all fall outside the days the question names. Only
explicit dates count (a day's number beside its month's name, "Sunday 7 December",
"6./7. Dezember", "del 1 al 5 de diciembre", two joined as a range, "du 1er novembre
au 28 février"): a passage with none, or with one of the asked days, keeps its place;
one with no date that names only other weekdays ("Mo-Do", "ab Freitag") goes after.
Dates written in numbers count too, day first with a dot after the day and the month
("Sa 06.12.", "03.12.2025"), and so does a weekday with a day's number and no month
("Sam. 6", "Mer. 3 et jeu. 4"), as the nearby day it names. A passage with no date of
its own is dated by the heading it sits under, by the heading's days of the weekdays
it names when it names some ("- Jueves: lentejas" under "Semana del 1 al 5 de
diciembre" is the 4th, "- Lunes: cocido" the 1st).

The days a question names: a weekday ("on Sunday", "sonntags", by its Snowball stem,
or a word it begins with a part of the day, "Mittwochabend", "woensdagmiddag"; the next
one from today, today included; a week later after "next" or before "prochain", "que
viene"; the last one before today after "last" or before "dernier", "pasado"), the
weekend (the coming Saturday and Sunday, or the one under way; the one before after
"last"), a week with a word saying which ("this week", "nächste Woche", "la semana
pasada": its days from Monday to Sunday; "twice a week" names none), today, tomorrow,
and explicit dates. A weekday or weekend named with no word saying which ("this",
"next", "last") is the coming one and the one before it too: "Did Harrowgate win at
the weekend?" and "Com'è finita domenica?" ask about the last, "Was kostet die Eisbahn
am Samstag?" about the coming one, and only the other words tell them apart. Weekday
and month names come from Babel's CLDR data in the question's language and English;
the phrases for the weekend, the week, today and tomorrow, the words that say which
day or week, and the words that may stand between a day and its month, are data per
language (``days.json``).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from babel import Locale

from .voice.words import PhraseIndex, Word, fold, stem, words

CATALOG = Path(__file__).resolve().parent / "days.json"
MAX_RANGE_DAYS = 31
"""A span of more days than this between two numbers is two dates, not a range."""
NEAR_DAYS = 14
"""How far from today a weekday with a day's number and no month may fall ("Sam. 6")."""
_NUMERIC_DATE = re.compile(
    r"(?<![\d.,])(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?:(?P<year>\d{4}|\d{2})(?![\d.,]\d))?"
)
"""A date in numbers, day first, a dot after the day and after the month ("10.12.",
"03.12.2025")."""
_NOT_A_DAY = re.compile(r"\s*(?:[.,:]\d|[-\u2010-\u2015]\s*\d)")
"""What follows a number that is no day's: decimals, a time, a span of hours."""
MAX_SPAN_DAYS = 366
"""The longest range two joined dates make ("from 1 November to 28 February")."""
_DASHES = frozenset({"-", "\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "/"})
"""What stands between the two ends of a range written with no word: a hyphen or a
dash ("Mo-Fr"); "/" too ("Sa/So" is a weekend's two days, the whole range)."""
_YEAR = re.compile(r"(?<![\w,])(?:19|20)\d\d(?!\w)(?![.,]\d)")
"""A year: a number from 1900 to 2099 standing alone (not part of a longer number)."""
_DAY_NUMBER = re.compile(r"(\d{1,2})(?:st|nd|rd|th|er|e|o|a|º|ª)?")
_SATURDAY = 5
MIN_COMPOUND_REST = 4
"""Fewest letters after a weekday's name in a word that names the weekday with a part of
its day ("-middag", "-abend", "-avond"); shorter endings are inflections, which the
weekday's Snowball stem meets."""


@dataclass(frozen=True)
class DayWords:
    """The catalog of one language (and English), compiled: phrases by their letters."""

    phrases: PhraseIndex[str]
    """Each phrase → ``weekend``, ``week``, ``today``, ``tomorrow`` or ``workdays``."""
    next: frozenset[str]
    next_after: PhraseIndex[bool]
    """The phrases that move the day named before them a week on."""
    last: frozenset[str]
    last_after: PhraseIndex[bool]
    """The phrases that name the weekday or weekend before them as the one past."""
    this: frozenset[str]
    """The words that name the coming weekday or weekend ("this", "diesen", "ce")."""
    joins: frozenset[str]
    through: PhraseIndex[bool]
    """The phrases that make the days on either side a range ("bis", "t/m", "au")."""
    weekdays: dict[str, int]
    """A weekday name's Snowball stem → its number (Monday 0)."""
    weekday_names: dict[str, int]
    """A weekday's wide name, folded → its number (Monday 0): a word that begins with one
    and goes on for :data:`MIN_COMPOUND_REST` letters or more names that weekday too
    ("woensdagmiddag", "Sonntagabend")."""
    weekday_abbreviations: dict[str, int]
    """A weekday's abbreviated name, folded, no final dot → its number ("mo", "mer"):
    read only as one end of a range ("Mo-Fr", "lun.-ven."), since alone many are words
    ("so", "do", "mar")."""
    months: dict[str, int]
    """A month name's fold, wide or abbreviated (no final dot) → its number (January 1)."""
    month_names: dict[str, int]
    """A month's wide name, folded → its number (January 1)."""
    everyday: frozenset[str]
    """Month names that are everyday words too ("may", "march"): months only beside a
    number ("May 2026", "12 March")."""


def asked_days(question: str, language: str, today: date) -> frozenset[date]:
    """The days ``question`` names, in ``language`` (ISO 639-1), counted from ``today``;
    empty when it names none."""
    catalog = day_words(language)
    found = words(question)
    days: set[date] = set(stated_days(question, language, today))
    start = 0
    while start < len(found):
        kind, end = catalog.phrases.longest_at(found, start)
        end = max(end, start + 1)
        before = found[start - 1].whole if start > 0 else ""
        after = catalog.next_after.longest_at(found, end)[1]
        later = before in catalog.next or after > end
        past = catalog.last_after.longest_at(found, end)[1]
        earlier = not later and (before in catalog.last or past > end)
        named = {word.whole for word in found[max(start - 1, 0) : end]}
        either = not later and not earlier and not named & catalog.this  # "am Samstag"
        if kind == "today":
            days.add(today)
        elif kind == "tomorrow":
            days.add(today + timedelta(days=1))
        elif kind == "weekend":
            saturday = today + timedelta(days=(_SATURDAY - today.weekday()) % 7)
            if today.weekday() == 6:  # Sunday: the weekend under way
                saturday -= timedelta(days=7)
            saturday += timedelta(days=7 if later else -7 if earlier else 0)
            days.update({saturday, saturday + timedelta(days=1)})
            if either and saturday > today:  # and the one before ("Did they win at …")
                days.update({saturday - timedelta(days=7), saturday - timedelta(days=6)})
        elif kind == "week":
            monday = today - timedelta(days=today.weekday())
            monday += timedelta(days=7 if later else -7 if earlier else 0)
            if not either:  # "this week", "nächste Woche"; "once a week" names no days
                days.update(monday + timedelta(days=n) for n in range(7))
        elif (weekday := _weekday_of(found[start], catalog, language)) is not None:
            if earlier:  # the last such day before today
                days.add(today - timedelta(days=(today.weekday() - weekday) % 7 or 7))
            else:
                ahead = (weekday - today.weekday()) % 7 + (7 if later else 0)
                days.add(today + timedelta(days=ahead))
                if either and ahead:  # and the one before ("Com'è finita domenica?")
                    days.add(today + timedelta(days=ahead - 7))
        start = max(after, past) if kind or weekday is not None else end
    return frozenset(days)


def stated_days(text: str, language: str, today: date) -> frozenset[date]:
    """The explicit dates ``text`` states (a day number beside a month name in
    ``language`` or English; two numbers before one month a range, "13 and 14
    December", "1 al 5 de diciembre"), each in the year that puts it nearest ``today``;
    two dates joined by a word of ``through`` or a dash are a range, every day between
    them included ("du 1er novembre au 28 février")."""
    catalog = day_words(language)
    found = words(text)
    days: set[date] = set()
    dated: list[tuple[int, int, date]] = []  # (first word, last word, date) in order
    for index, word in enumerate(found):
        month = catalog.months.get(word.whole)
        if month is None:
            continue
        numbers = _numbers_before(found, index, catalog, language) or _numbers_after(found, index)
        if len(numbers) == 2 and 0 <= numbers[1] - numbers[0] <= MAX_RANGE_DAYS:
            numbers = list(range(numbers[0], numbers[1] + 1))
        for number in numbers:
            day = _nearest(today, month, number)
            if day is not None:
                days.add(day)
                dated.append((index - 1, index + 1, day))
    dated += _numeric_dates(text, found, today) + _weekday_dates(
        text, found, catalog, language, today
    )
    days.update(day for _, _, day in dated)
    dated.sort()
    for (_, end, first), (start, _, last) in itertools.pairwise(dated):
        last = _on_or_after(last, first)
        span = last - first if last is not None else None
        if (
            span is not None
            and span <= timedelta(days=MAX_SPAN_DAYS)
            and _ranged(text, found, end, start, catalog)
        ):
            days.update(first + timedelta(days=n) for n in range(span.days))
    return frozenset(days)


def _numeric_dates(text: str, found: list[Word], today: date) -> list[tuple[int, int, date]]:
    """The dates written as numbers, day first with a dot after each ("Mi 10.12.",
    "03.12.2025"), as ``(first word, after the last word, date)``: the year given, else
    the one nearest ``today``. A time ("8.30 Uhr") has no second dot."""
    dated = []
    for match in _NUMERIC_DATE.finditer(text):
        number, month, year = int(match["day"]), int(match["month"]), match["year"]
        if not 1 <= month <= 12:
            continue
        if year:
            try:
                day: date | None = date(int(year) + (2000 if len(year) == 2 else 0), month, number)
            except ValueError:
                day = None
        else:
            day = _nearest(today, month, number)
        inside = [i for i, w in enumerate(found) if match.start() <= w.start < match.end()]
        if day is not None and inside:
            dated.append((inside[0], inside[-1] + 1, day))
    return dated


def _weekday_dates(
    text: str, found: list[Word], catalog: DayWords, language: str, today: date
) -> list[tuple[int, int, date]]:
    """The days written as a weekday and a day's number with no month ("Sam. 6",
    "Mer. 3 et jeu. 4", "Sa 06.12."): the date within :data:`NEAR_DAYS` of ``today``
    on that weekday with that number, if there is one (a programme or a menu of these
    weeks). Only a space or a dot stands between them, and the number is followed by
    no decimals, time or span of hours ("Sonntag: 7,50 €", "Mo 8-18 Uhr" are none)."""
    dated = []
    for index, (word, after) in enumerate(itertools.pairwise(found)):
        weekday = _named_or_abbreviated(word, catalog, language)
        number = _day_number(after)
        if weekday is None or number is None:
            continue
        between, rest = text[word.end : after.start], text[after.end : after.end + 3]
        if between.strip(" .,") or _NOT_A_DAY.match(rest):
            continue  # "Sonntag: 7,50 €", "Mo 8-18 Uhr": a price, hours
        if index + 2 < len(found) and found[index + 2].whole in catalog.months:
            continue  # "Saturday 6 December": a date by its month
        for offset in range(-NEAR_DAYS, NEAR_DAYS + 1):
            day = today + timedelta(days=offset)
            if day.weekday() == weekday and day.day == number:
                dated.append((index, index + 2, day))
                break
    return dated


def _on_or_after(day: date, start: date) -> date | None:
    """``day``'s day and month in the first year that puts it on or after ``start``."""
    for year in (start.year, start.year + 1):
        try:
            moved = day.replace(year=year)
        except ValueError:
            continue
        if moved >= start:
            return moved
    return None


def stated_weekdays(text: str, language: str) -> frozenset[int]:
    """The weekdays ``text`` names (Monday 0), by their names in ``language`` or English
    ("Sábados", "sonntags"), and every day between two joined by a word of ``through``
    or a dash ("Freitag bis Sonntag", "Mo-Do", "lun.-ven.", "ma t/m vr"); an
    abbreviated name counts only as one end of such a range. A weekend's words name its
    Saturday and Sunday, and the working days' ("op werkdagen", "werktags", "en
    semaine") Monday to Friday."""
    catalog = day_words(language)
    found = words(text)
    named: set[int] = set()
    for index in range(len(found)):
        kind = catalog.phrases.longest_at(found, index)[0]
        if kind in _KINDS_OF_DAYS:
            named.update(_KINDS_OF_DAYS[kind])
    ends: list[tuple[int, int]] = []  # (index, weekday) of each name or abbreviation
    for index, word in enumerate(found):
        if len(word.parts) == 2:  # "Mo-Fr", "lun.-ven." as one word
            first, last = (_weekday_or_abbreviation(part, catalog, language) for part in word.parts)
            if first is not None and last is not None:
                named.update(_week_between(first, last))
                continue
        if (by_name := _weekday_of(word, catalog, language)) is not None:
            named.add(by_name)
        if (either := _named_or_abbreviated(word, catalog, language)) is not None:
            ends.append((index, either))
    for (start, first), (end, last) in itertools.pairwise(ends):
        if _ranged(text, found, start + 1, end, catalog):
            named.update(_week_between(first, last))
    return frozenset(named)


_KINDS_OF_DAYS = {"weekend": (5, 6), "workdays": (0, 1, 2, 3, 4)}
"""The weekdays (Monday 0) a kind of day names, as a passage states it."""


def _weekday_or_abbreviation(part: str, catalog: DayWords, language: str) -> int | None:
    """The weekday one part of a hyphenated word names ("mo" of "Mo-Fr"), by its name's
    stem or its abbreviation."""
    number = catalog.weekdays.get(stem(part, language))
    return number if number is not None else catalog.weekday_abbreviations.get(part)


def _named_or_abbreviated(word: Word, catalog: DayWords, language: str) -> int | None:
    """The weekday ``word`` names (:func:`_weekday_of`), else the one it abbreviates."""
    number = _weekday_of(word, catalog, language)
    return number if number is not None else catalog.weekday_abbreviations.get(word.whole)


def _week_between(first: int, last: int) -> list[int]:
    """The weekdays from ``first`` to ``last`` (Monday 0), around the week's end if
    needed ("Fr-Mo")."""
    return [(first + n) % 7 for n in range((last - first) % 7 + 1)]


def _ranged(text: str, found: list[Word], after: int, before: int, catalog: DayWords) -> bool:
    """Whether the words ``found[after:before]`` are one phrase of ``through``, or none
    stands there and the text between is a dash."""
    if after == before:
        between = text[found[after - 1].end : found[before].start] if after > 0 else ""
        return between.strip(" .,\u00a0") in _DASHES
    return catalog.through.longest_at(found, after)[1] == before


def day_fit(
    passage: str, heading: str, asked: frozenset[date], language: str, today: date
) -> bool | None:
    """How a passage meets the days the question asks about, by its own explicit dates,
    else its heading's (only those on the weekdays the passage names, if it names some;
    when none is, the heading's and those weekdays of the week each of its days begins:
    "Thursday" under "Week of 1 December" is the 4th):
    ``True`` when one of them is asked, ``False`` when all fall outside ``asked``. A
    passage and heading with no date are read by the weekdays they name
    (:func:`stated_weekdays`): ``False`` when none of them is an asked day's ("Mo-Do"
    for "am Samstag"), else ``None``, since a weekday alone may be any week's ("Giovedì"
    in a menu of another week). ``None`` too when ``asked`` is empty or nothing is
    stated."""
    if not asked:
        return None
    own = stated_days(passage, language, today)
    if own:
        return bool(own & asked)
    named = stated_weekdays(passage, language)
    under = stated_days(heading, language, today)
    # "- Jueves: lentejas" under "Semana del 1 al 5 de diciembre": the 4th; "bis
    # Donnerstag 8.30 Uhr" under "Mittwoch, 3. Dezember": the heading's own day, and
    # the Thursday of the week it begins; "Thursday: lentil soup" under "Week of 1
    # December": the Thursday of the week the heading's day begins
    week = (d + timedelta(n) for d in under for n in range(7))
    under = {d for d in under if d.weekday() in named} or under | {
        d for d in week if d.weekday() in named
    }
    if under:
        return bool(under & asked)
    named = named or stated_weekdays(heading, language)
    return False if named and not named & {day.weekday() for day in asked} else None


def named_months(text: str, language: str, today: date) -> frozenset[int]:
    """The months ``text`` names (January 1): by their wide names in ``language`` or
    English ("en février", "im Januar", "| February 2026 |"; an everyday word such as
    "may" only beside a number), and those of the dates it states."""
    catalog = day_words(language)
    found = words(text)
    months = {day.month for day in stated_days(text, language, today)}
    for index, word in enumerate(found):
        month = catalog.month_names.get(word.whole)
        if month is None:
            continue
        beside = found[max(index - 1, 0) : index + 2]
        if word.whole not in catalog.everyday or any(w.whole.isdigit() for w in beside):
            months.add(month)
    return frozenset(months)


def month_fit(
    passage: str, heading: str, asked: frozenset[int], language: str, today: date
) -> bool | None:
    """Whether a passage names a month the question names (``asked``, January 1), by its
    own words, else its heading's: ``True`` when it does; ``None`` when ``asked`` is
    empty or it names none of them (a passage about "March to mid-June" may hold April
    unnamed, so naming other months puts nothing after)."""
    if not asked:
        return None
    named = named_months(passage, language, today) or named_months(heading, language, today)
    return True if named & asked else None


def compound_weekday(word: Word, language: str) -> str | None:
    """The weekday's name (folded, in ``language`` or English) that ``word`` begins with
    when it goes on with a part of the day ("woensdagmiddag" → "woensdag",
    "Sonntagabend" → "sonntag"), else ``None``."""
    for name in day_words(language).weekday_names:
        if word.whole.startswith(name) and len(word.whole) - len(name) >= MIN_COMPOUND_REST:
            return name
    return None


def _weekday_of(word: Word, catalog: DayWords, language: str) -> int | None:
    """The weekday ``word`` names (Monday 0): by its Snowball stem ("sonntags"), or as a
    weekday's name followed by a part of the day ("Mittwochabend"); else ``None``."""
    number = catalog.weekdays.get(stem(word.whole, language))
    if number is not None:
        return number
    name = compound_weekday(word, language)
    return catalog.weekday_names[name] if name is not None else None


def year_fit(passage: str, heading: str, question: str, today: date) -> bool | None:
    """How the years a passage names meet the years the question asks about: the
    question's own ("… in 2024"), else this year and later (a household asks about what
    is or will be). By the passage's years, else its heading's: ``False`` when every
    one falls outside (last year's edition, "En 2024 el segundo plazo …"), ``True``
    when one is asked, ``None`` when none is named. A year is a standalone number from
    1900 to 2099, whatever the language."""
    named = stated_years(passage) or stated_years(heading)
    if not named:
        return None
    asked = stated_years(question)
    return any(year in asked if asked else year >= today.year for year in named)


def stated_years(text: str) -> frozenset[int]:
    """The years ``text`` names: standalone numbers from 1900 to 2099."""
    return frozenset(int(number) for number in _YEAR.findall(text))


@functools.cache
def day_words(language: str) -> DayWords:
    """The catalog for ``language`` with English's, and Babel's weekday and month names."""
    data = json.loads(CATALOG.read_text(encoding="utf-8"))
    languages = [code for code in dict.fromkeys([language, "en"]) if code in data]
    phrases = PhraseIndex.of(
        (phrase, kind)
        for code in languages
        for kind in ("weekend", "week", "today", "tomorrow", "workdays")
        for phrase in data[code][kind]
    )
    weekdays: dict[str, int] = {}
    weekday_names: dict[str, int] = {}
    abbreviations: dict[str, int] = {}
    months: dict[str, int] = {}
    month_names: dict[str, int] = {}
    for code in dict.fromkeys([language, "en"]):
        try:
            locale = Locale.parse(code)
        except (ValueError, TypeError):
            continue
        for context in ("format", "stand-alone"):
            for number, name in locale.days[context]["wide"].items():
                weekdays.setdefault(stem(fold(name), code), number)
                weekday_names.setdefault(fold(name), number)
            for number, name in locale.days[context]["abbreviated"].items():
                abbreviations.setdefault(fold(name).rstrip("."), number)
            for width in ("wide", "abbreviated"):
                for number, name in locale.months[context][width].items():
                    months.setdefault(fold(name).rstrip("."), number)
            for number, name in locale.months[context]["wide"].items():
                month_names.setdefault(fold(name), number)
    return DayWords(
        phrases=phrases,
        next=frozenset(fold(w) for code in languages for w in data[code]["next"]),
        next_after=PhraseIndex.of(
            (phrase, True) for code in languages for phrase in data[code]["next_after"]
        ),
        last=frozenset(fold(w) for code in languages for w in data[code]["last"]),
        this=frozenset(fold(w) for code in languages for w in data[code]["this"]),
        last_after=PhraseIndex.of(
            (phrase, True) for code in languages for phrase in data[code]["last_after"]
        ),
        joins=frozenset(fold(w) for code in languages for w in data[code]["joins"]),
        through=PhraseIndex.of(
            (phrase, True) for code in languages for phrase in data[code]["through"]
        ),
        weekdays=weekdays,
        weekday_names=weekday_names,
        weekday_abbreviations=abbreviations,
        months=months,
        month_names=month_names,
        everyday=frozenset(fold(w) for code in languages for w in data[code].get("everyday", [])),
    )


def _day_number(word: Word) -> int | None:
    match = _DAY_NUMBER.fullmatch(word.whole)
    number = int(match.group(1)) if match else 0
    return number if 1 <= number <= 31 else None


def _numbers_before(found: list[Word], index: int, catalog: DayWords, language: str) -> list[int]:
    """The day numbers (at most two) just before the month at ``index``, read back over
    the joining words and weekday names ("13 and 14", "1 al 5 de", "6 e domenica 7")."""
    numbers: list[int] = []
    position = index - 1
    while position >= 0 and len(numbers) < 2:
        word = found[position]
        number = _day_number(word)
        if number is not None:
            numbers.insert(0, number)
        elif word.whole not in catalog.joins and stem(word.whole, language) not in catalog.weekdays:
            break
        position -= 1
    return numbers


def _numbers_after(found: list[Word], index: int) -> list[int]:
    """The day number right after the month at ``index`` ("December 13")."""
    if index + 1 < len(found):
        number = _day_number(found[index + 1])
        if number is not None:
            return [number]
    return []


def _nearest(today: date, month: int, day: int) -> date | None:
    """``day``/``month`` in the year (this, last or next) nearest ``today``; ``None``
    for a day the month lacks in all three."""
    found = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            found.append(date(year, month, day))
        except ValueError:
            continue
    return min(found, key=lambda d: abs(d - today)) if found else None
