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

The same quantities let the product work out the units of a calculation the model
chose (:func:`with_units`): a conversion the question asks for ("400 graden
Fahrenheit, hoeveel graden Celsius is dat?") is converted, temperatures included,
not left to the model's formula (``400 * 5 / 9``); a sum the model wrote of the
question's own quantities in different units of one kind ("128 GB … Fotos zu je 4
MB": ``128 / 4``) is worked out in those units. Temperatures are converted only:
the passage ranking compares the kinds of :data:`UNITS`.
"""

from __future__ import annotations

import ast
import functools
import itertools
import json
import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path

from babel import Locale
from babel.numbers import NumberFormatError, parse_decimal

from .backends.base import ModelReply
from .offer.arithmetic import CALCULATE, MAX_MAGNITUDE, Calculation, Conversion, calculation
from .voice.words import fold, stop_words, words

__all__ = [
    "Quantity",
    "asked_dimensions",
    "asked_quantities",
    "dimension_fit",
    "guessed_measure",
    "quantity_fit",
    "stated_quantities",
    "with_units",
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
TEMPERATURES: dict[str, tuple[Decimal, Decimal]] = {
    "temperature-celsius": (Decimal(1), Decimal("273.15")),
    "temperature-fahrenheit": (
        Decimal(5) / Decimal(9),
        Decimal("459.67") * Decimal(5) / Decimal(9),
    ),
}
"""Temperature scales (CLDR keys) → kelvins per degree and the kelvins of their zero:
converted (:func:`with_units`), never compared by the passage ranking."""
UNCERTAIN = frozenset({"B"})
"""Dimensions whose units a household counts two ways (a gigabyte of 1,000 or 1,024
megabytes): the model's own conversion stands ("¿cuántos megas son 2 gigas?" is
``2 * 1024``)."""
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
    dropped: set[str] = set()
    stops = stop_words(language) | stop_words("en")
    for code in dict.fromkeys(("en", language)):
        try:
            patterns = Locale.parse(code)._data["unit_patterns"]
        except (ValueError, KeyError):  # a language Babel does not know: the catalog alone
            patterns = {}
        for key in (*UNITS, *TEMPERATURES):
            for width in patterns.get(key, {}).values():
                for form, pattern in width.items():
                    if form == "per":
                        continue
                    name = fold(pattern.replace("{0}", "").strip())
                    if name and name not in stops:
                        units.setdefault(name, key)
        entry = catalog.get(code, {})
        for name, key in entry.get("units", {}).items():
            if key is None:  # a name CLDR gives a unit the language's households mean otherwise
                dropped.add(fold(name))
            else:
                units[fold(name)] = key
        numbers.update({fold(word): value for word, value in entry.get("numbers", {}).items()})
        if code == language:  # "lang" is long in German, "largo" wide in Italian
            measures.update({fold(word): key for word, key in entry.get("measures", {}).items()})
    units = {name: key for name, key in units.items() if name not in dropped}
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
        if key not in UNITS or first is None:
            continue
        second = _value(match.group(2), language) if match.group(2) else first
        dimension, factor = UNITS[key]
        low, high = sorted((first * factor, (second or first) * factor))
        found.append(Quantity(low, high, dimension))
    spoken = words(text)
    for before, after in itertools.pairwise(spoken):
        count = catalog.numbers.get(before.whole)
        key = catalog.units.get(after.whole)
        if count is not None and key in UNITS and text[before.end : after.start].isspace():
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
        if key in UNITS:
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


_WRITTEN = re.compile(rf"(?<![\w.,])([-\u2212]?{_NUMBER})|(°\s?[CFcf])(?![^\W\d_])|([^\W\d_]+)")
"""A number (perhaps negative), a degree sign before its scale's letter ("°F"), or a word."""


@dataclass(frozen=True)
class _Written:
    """What a question writes of quantities: each number with the unit (CLDR key) right
    after it, if any, and the units it names with no number."""

    numbers: list[tuple[Decimal, str | None]]
    alone: list[str]


def _written(question: str, language: str) -> _Written:
    """A unit is the word right after a number, a degree sign and letter ("400°F",
    "400 °F"), or two words of one unit's long name ("400 graden Fahrenheit", "gradi
    Celsius"); a unit's name of one letter stands only after a number."""
    catalog = _words(language)
    tokens = [(m.group(1), fold(m.group(0).replace(" ", ""))) for m in _WRITTEN.finditer(question)]
    numbers: list[tuple[Decimal, str | None]] = []
    alone: list[str] = []
    index = 0
    while index < len(tokens):
        number, name = tokens[index]
        if number is not None:
            unit, used = _unit_at(_names(tokens, index + 1), catalog)
            negative = number[0] in "-\u2212"
            if (value := _value(number.lstrip("-\u2212"), language)) is not None:
                value = -value if negative else value
                numbers.append((value, unit))
            index += 1 + used
            continue
        unit, used = _unit_at(_names(tokens, index), catalog)
        if unit is not None and len(name) >= 2:
            alone.append(unit)
        index += max(used, 1)
    return _Written(numbers, alone)


def _names(tokens: list[tuple[str | None, str]], start: int) -> list[str]:
    """The folded words from ``start``, at most two, up to the next number."""
    names = []
    for number, name in tokens[start : start + 2]:
        if number is not None:
            break
        names.append(name)
    return names


def _unit_at(names: list[str], catalog: _Words) -> tuple[str | None, int]:
    """The unit the first one or two of ``names`` spell, and how many it takes."""
    if len(names) >= 2 and (key := catalog.units.get(f"{names[0]} {names[1]}")) is not None:
        return key, 2
    if names and (key := catalog.units.get(names[0])) is not None:
        return key, 1
    return None, 0


def _dimension(key: str) -> str:
    return "K" if key in TEMPERATURES else UNITS[key][0]


def _in_base(value: Decimal, key: str) -> Decimal:
    if key in TEMPERATURES:
        factor, zero = TEMPERATURES[key]
        return value * factor + zero
    return value * UNITS[key][1]


def _from_base(value: Decimal, key: str) -> Decimal:
    if key in TEMPERATURES:
        factor, zero = TEMPERATURES[key]
        return (value - zero) / factor
    return value / UNITS[key][1]


def with_units(reply: ModelReply, question: str, language: str) -> Calculation | Conversion | None:
    """The calculation ``reply`` chose (:data:`~.offer.arithmetic.CALCULATE`), worked out
    in the units ``question`` writes (``language``, ISO 639-1), or ``None`` when no
    calculation was chosen or none can be worked out.

    - The question holds one number, with its unit, and names one other unit of that
      kind: the product converts it, whatever the model wrote ("400 graden
      Fahrenheit … hoeveel graden Celsius" is 204.44 °C, not ``400 * 5 / 9``), unless
      households count that kind two ways (:data:`UNCERTAIN`).
    - Every number of the model's expression is one of the question's and two of them
      carry different units of one kind: the sum is worked out in those units ("128 GB
      … Fotos zu je 4 MB", ``128 / 4``, is 32,000). Its result is in the unit of that
      kind the question names alone, else the first one written.
    - Otherwise the model's expression as it is (:func:`~.offer.arithmetic.calculation`).
    """
    if not any(call.name == CALCULATE for call in reply.tool_calls):
        return None
    written = _written(question, language)
    converted = _conversion(written)
    if converted is not None:
        return converted
    worked = calculation(reply)
    return _in_units(worked, written) if worked is not None else None


def guessed_measure(worked: Calculation, question: str, language: str) -> bool:
    """Whether ``worked``, the calculation the model chose, answers in a unit ``question``
    names alone (``language``, ISO 639-1) of a kind none of its numbers is written in,
    with a factor of the model's own: "combien de grammes font 2 cups de farine ?" was
    worked out as ``2 * 28.35``, the ounce's grams for a cup of flour. A cup, a spoon or
    a millilitre of milk in grams needs a measure or a density the product does not
    know, so the factor is a guess; it is not stated as the device's working. False
    when the question gives a quantity of the kind asked for (a conversion,
    :func:`with_units`), or when every number of the expression is the question's."""
    written = _written(question, language)
    given = {_dimension(unit) for _, unit in written.numbers if unit is not None}
    if not {_dimension(key) for key in written.alone} - given:
        return False
    own = {value for value, _ in written.numbers}
    return any(value not in own for value in worked.operands)


def _conversion(written: _Written) -> Conversion | None:
    if len(written.numbers) != 1 or written.numbers[0][1] is None:
        return None
    amount, source = written.numbers[0]
    assert source is not None
    kind = _dimension(source)
    targets = {key for key in written.alone if _dimension(key) == kind and key != source}
    if len(targets) != 1 or kind in UNCERTAIN:
        return None
    target = targets.pop()
    value = _from_base(_in_base(amount, source), target)
    if abs(value) > MAX_MAGNITUDE:
        return None
    return Conversion(amount, source, value, target)


def _in_units(worked: Calculation, written: _Written) -> Calculation:
    units: dict[Decimal, str | None] = {}
    for value, unit in written.numbers:
        if units.setdefault(value, unit) != unit:
            return worked  # one figure written with two units: which one the model meant is unknown
    operands = worked.operands
    if any(value not in units for value in operands):
        return worked  # the model brought a figure of its own (a factor): its sum stands
    keys = {units[value] for value in operands} - {None}
    if any(key in TEMPERATURES for key in keys):
        return worked
    kinds = [_dimension(key) for key in keys if key is not None]
    if len(kinds) == len(set(kinds)):
        return worked  # no kind in two units: nothing to convert
    try:
        value, kind = _dimensioned(worked.tree, units)
    except (ValueError, ArithmeticError):
        return worked
    shown = tuple((v, k) for v, k in units.items() if k is not None and v in operands)
    target = None
    if kind:
        if len(kind) != 1 or next(iter(kind.values())) != 1:
            return worked
        (base,) = kind
        named = {key for key in written.alone if _dimension(key) == base}
        first = next(key for _, key in written.numbers if key and _dimension(key) == base)
        target = named.pop() if len(named) == 1 else first
        value = _from_base(value, target)
    if abs(value) > MAX_MAGNITUDE:  # a figure the product cannot say
        return worked
    return replace(worked, value=value, units=shown, unit=target)


def _dimensioned(
    node: ast.expr, units: dict[Decimal, str | None]
) -> tuple[Decimal, dict[str, int]]:
    """``node``'s value in base units and its dimension (base unit → power)."""
    if isinstance(node, ast.Constant):
        number = Decimal(str(node.value))
        key = units.get(number)
        return (number, {}) if key is None else (_in_base(number, key), {_dimension(key): 1})
    if isinstance(node, ast.UnaryOp):
        value, kind = _dimensioned(node.operand, units)
        return (-value if isinstance(node.op, ast.USub) else value), kind
    if not isinstance(node, ast.BinOp):
        raise ValueError("not worked out")
    left, left_kind = _dimensioned(node.left, units)
    right, right_kind = _dimensioned(node.right, units)
    if isinstance(node.op, ast.Add | ast.Sub):
        if left_kind != right_kind:
            raise ValueError("a sum of two kinds")
        return (left + right if isinstance(node.op, ast.Add) else left - right), left_kind
    sign = 1 if isinstance(node.op, ast.Mult) else -1
    kind = dict(left_kind)
    for base, power in right_kind.items():
        kind[base] = kind.get(base, 0) + sign * power
    kind = {base: power for base, power in kind.items() if power}
    return (left * right if sign == 1 else left / right), kind
