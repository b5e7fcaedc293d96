"""The quantities a question asks about and those a passage states (DESIGN §4).

A price list answers "what does the one-kilo panettone cost?" with its "1 kg" row, not
the "500 g" or "2 kg" rows that share every other word of the question; a tree of
"about 1.75 metres" is the one sold as "1.60-1.90 m". So the passage ranking
(:func:`.sources.candidates`) puts after the others a passage whose quantities in the
question's units all miss the quantities it asks about, and counts one that states
one of them as holding one more of the question's terms, as it does for days.

A quantity is a number, or a range of two joined by a dash, followed by a unit's name
("1,75 m", "1.60-1.90 m", "500 g", "4-Kilo-Gans"), or a small count's word followed by
one ("un chilo", "ein Kilo", "a litre"). Units' names come from Babel's CLDR data in
the text's language and English (long, short and narrow forms: "chilogrammi", "kg"),
and everyday names CLDR lacks ("Kilo", "chilo", "metre") with the count words are
data per language (``quantities.json``); a name that is a stop word of either
language ("in" for inches) is not one. Values are compared in one base unit per
dimension (grams, metres, litres, watts, bytes, watt-hours).

A question may ask for a kind of quantity without a number: by a unit's name standing
alone ("Quanti watt ha il microonde?") or by a noun or verb of its language that asks
for one ("capacidad", "Leistung", "poids", "weighs"; ``quantities.json``, no
adjectives, since "wie hoch ist die Miete" asks for no length). A passage stating a
quantity of that kind ("900 W") then holds one more of the question's terms.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from babel import Locale
from babel.numbers import NumberFormatError, parse_decimal

from .voice.words import fold, stop_words, words

__all__ = [
    "Quantity",
    "asked_dimensions",
    "asked_quantities",
    "dimension_fit",
    "quantity_fit",
    "stated_quantities",
]

CATALOG = Path(__file__).resolve().parent / "quantities.json"
UNITS: dict[str, tuple[str, Decimal]] = {
    "mass-milligram": ("g", Decimal("0.001")),
    "mass-gram": ("g", Decimal(1)),
    "mass-kilogram": ("g", Decimal(1000)),
    "mass-pound": ("g", Decimal("453.59237")),
    "mass-ounce": ("g", Decimal("28.349523125")),
    "length-millimeter": ("m", Decimal("0.001")),
    "length-centimeter": ("m", Decimal("0.01")),
    "length-meter": ("m", Decimal(1)),
    "length-kilometer": ("m", Decimal(1000)),
    "length-inch": ("m", Decimal("0.0254")),
    "length-foot": ("m", Decimal("0.3048")),
    "length-mile": ("m", Decimal("1609.344")),
    "volume-milliliter": ("l", Decimal("0.001")),
    "volume-centiliter": ("l", Decimal("0.01")),
    "volume-deciliter": ("l", Decimal("0.1")),
    "volume-liter": ("l", Decimal(1)),
    "power-watt": ("W", Decimal(1)),
    "power-kilowatt": ("W", Decimal(1000)),
    "digital-megabyte": ("B", Decimal(10) ** 6),
    "digital-gigabyte": ("B", Decimal(10) ** 9),
    "digital-terabyte": ("B", Decimal(10) ** 12),
    "energy-kilowatt-hour": ("Wh", Decimal(1000)),
}
"""The units compared (CLDR unit keys) → their dimension's base unit and how many of
it one is."""
_NUMBER = r"\d+(?:[.,]\d+)*"
_QUANTITY = re.compile(
    rf"(?<![\w.,])({_NUMBER})(?:\s*[-\u2010-\u2015]\s*({_NUMBER}))?[\s\u00a0\u202f-]*([^\W\d_]+)"
)
"""A number, perhaps a dash and a second one, then a word (the unit, if it is one)."""


@dataclass(frozen=True)
class Quantity:
    """An amount in its dimension's base unit: ``low`` to ``high`` (equal for one value)."""

    low: Decimal
    high: Decimal
    dimension: str

    def meets(self, other: Quantity) -> bool:
        """Whether the two share a dimension and their spans overlap."""
        return (
            self.dimension == other.dimension and self.low <= other.high and other.low <= self.high
        )


@dataclass(frozen=True)
class _Words:
    units: dict[str, str]  # a unit's folded name → its CLDR key
    numbers: dict[str, int]  # a count's folded word → its value
    measures: dict[str, str]  # a folded word asking for a kind of quantity → a CLDR key


@functools.cache
def _words(language: str) -> _Words:
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    units: dict[str, str] = {}
    numbers: dict[str, int] = {}
    measures: dict[str, str] = {}
    stops = stop_words(language) | stop_words("en")
    for code in dict.fromkeys(("en", language)):
        try:
            patterns = Locale.parse(code)._data["unit_patterns"]
        except (ValueError, KeyError):  # a language Babel does not know: the catalog alone
            patterns = {}
        for key in UNITS:
            for width in patterns.get(key, {}).values():
                for form, pattern in width.items():
                    if form == "per":
                        continue
                    name = fold(pattern.replace("{0}", "").strip())
                    if name and name not in stops:
                        units.setdefault(name, key)
        entry = catalog.get(code, {})
        units.update({fold(name): key for name, key in entry.get("units", {}).items()})
        numbers.update({fold(word): value for word, value in entry.get("numbers", {}).items()})
        if code == language:  # "lang" is long in German, "largo" wide in Italian
            measures.update({fold(word): key for word, key in entry.get("measures", {}).items()})
    return _Words(units, numbers, measures)


def _value(number: str, language: str) -> Decimal | None:
    # One separator before one or two digits is a decimal mark in every locale; else
    # the language's own grouping and decimal marks decide (Babel).
    if re.fullmatch(r"\d+[.,]\d{1,2}", number):
        return Decimal(number.replace(",", "."))
    try:
        return parse_decimal(number, locale=language, strict=False)
    except (NumberFormatError, InvalidOperation, ValueError):
        return None


def stated_quantities(text: str, language: str) -> list[Quantity]:
    """The quantities ``text`` states in ``language`` (ISO 639-1), in base units."""
    catalog = _words(language)
    found = []
    for match in _QUANTITY.finditer(text):
        key = catalog.units.get(fold(match.group(3)))
        first = _value(match.group(1), language)
        if key is None or first is None:
            continue
        second = _value(match.group(2), language) if match.group(2) else first
        dimension, factor = UNITS[key]
        low, high = sorted((first * factor, (second or first) * factor))
        found.append(Quantity(low, high, dimension))
    spoken = words(text)
    for before, after in itertools.pairwise(spoken):
        count = catalog.numbers.get(before.whole)
        key = catalog.units.get(after.whole)
        if count is not None and key is not None and text[before.end : after.start].isspace():
            dimension, factor = UNITS[key]
            found.append(Quantity(count * factor, count * factor, dimension))
    return found


def asked_quantities(question: str, language: str) -> list[Quantity]:
    """The quantities ``question`` names (:func:`stated_quantities`)."""
    return stated_quantities(question, language)


def asked_dimensions(question: str, language: str) -> frozenset[str]:
    """The dimensions (base units, :data:`UNITS`) ``question`` asks a quantity of with
    no number: a unit's name of two letters or more standing alone ("Quanti watt ha il
    microonde?", "how many litres") or a word of ``measures`` in ``language``
    ("capacidad", "Leistung", "poids")."""
    catalog = _words(language)
    found = words(question)
    dimensions = set()
    for index, word in enumerate(found):
        counted = index > 0 and (
            found[index - 1].whole.isdigit() or found[index - 1].whole in catalog.numbers
        )
        key = catalog.measures.get(word.whole)
        if key is None and len(word.whole) >= 2 and not counted:
            key = catalog.units.get(word.whole)
        if key is not None:
            dimensions.add(UNITS[key][0])
    return frozenset(dimensions)


def dimension_fit(
    passage: str, heading: str, dimensions: frozenset[str], language: str
) -> bool | None:
    """Whether a passage states a quantity in one of ``dimensions`` (by its own
    quantities, else its heading's): ``True`` when it does, else ``None`` (a passage
    that states none may still answer in words)."""
    if not dimensions:
        return None
    for text in (passage, heading):
        stated = stated_quantities(text, language)
        if stated:
            return True if any(q.dimension in dimensions for q in stated) else None
    return None


def quantity_fit(passage: str, heading: str, asked: list[Quantity], language: str) -> bool | None:
    """How the quantities a passage states meet those the question asks about, in the
    asked dimensions, by its own, else its heading's: ``True`` when one meets one
    asked, ``False`` when all miss, ``None`` when nothing is asked or stated."""
    if not asked:
        return None
    dimensions = {q.dimension for q in asked}
    for text in (passage, heading):
        stated = [q for q in stated_quantities(text, language) if q.dimension in dimensions]
        if stated:
            return any(s.meets(a) for s in stated for a in asked)
    return None
