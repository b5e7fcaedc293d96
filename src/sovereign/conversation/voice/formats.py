"""Figures said in the household's language: numbers, units and durations by Babel (DESIGN §4).

Each :data:`~sovereign.executor.facts.Kind` of a result field has one formatter
here; none writes a separator, unit or plural of its own (Babel's CLDR data does).
A figure the product rounds to one decimal (gigabytes, °C, percent) is said with
exactly that decimal, also when it is 0 ("23.0 GB", "23,0 Go"): an optional decimal
made a figure's precision depend on its value, so two readings (23.0 and 23.1) read
as "23 GB" and "23,1 Go", as if the languages rounded differently.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable
from decimal import Decimal

from babel import Locale
from babel.lists import format_list
from babel.numbers import NumberPattern, format_decimal, format_percent
from babel.units import format_unit

from .catalogs import Voice

ONE_DECIMAL = "#,##0.0"
"""A figure to exactly one decimal, grouped as the language groups (Babel's pattern)."""


def count(value: float, voice: Voice) -> str:
    """A whole number: ``104756`` → "104,756" (en), "104.756" (de)."""
    return format_decimal(round(value), locale=voice.language)


def number(value: float, voice: Voice) -> str:
    """A decimal with up to two places: ``1.25`` → "1.25" (en), "1,25" (de)."""
    return format_decimal(value, format="#,##0.##", locale=voice.language)


def percent(value: float, voice: Voice) -> str:
    """A value given in percent, to exactly one decimal, in the language's own pattern:
    ``46.2`` → "46.2%" (en), "46,2 %" (de, fr); ``30`` → "30.0%"."""
    share = Decimal(str(round(value, 1))) / 100
    return format_percent(share, format=_percent_pattern(voice.language), locale=voice.language)


@functools.cache
def _percent_pattern(language: str) -> NumberPattern:
    """The language's percent pattern (CLDR: "#,##0 %" in German) with one decimal."""
    pattern = copy.copy(Locale.parse(language).percent_formats[None])
    pattern.frac_prec = (1, 1)
    return pattern


def gigabytes(value: float, voice: Voice) -> str:
    """Decimal gigabytes, to exactly one decimal: ``21.9`` → "21.9 GB" (en), "21,9 GB" (de);
    ``8`` → "8.0 GB"."""
    return format_unit(
        value, "digital-gigabyte", length="short", format=ONE_DECIMAL, locale=voice.language
    )


def celsius(value: float, voice: Voice) -> str:
    """Degrees Celsius, to exactly one decimal: ``47.25`` → "47.2°C" (en), "47,2 °C" (de);
    ``48`` → "48.0°C"."""
    return format_unit(
        value, "temperature-celsius", length="short", format=ONE_DECIMAL, locale=voice.language
    )


def hours(value: float, voice: Voice) -> str:
    """A duration given in hours, said in days and whole hours ("2 days and 5 hours"),
    in minutes below an hour."""
    if value < 1:
        minutes = max(1, round(value * 60))
        return format_unit(minutes, "duration-minute", length="long", locale=voice.language)
    days, rest = divmod(round(value), 24)
    parts = []
    if days:
        parts.append(format_unit(days, "duration-day", length="long", locale=voice.language))
    if rest or not days:
        parts.append(format_unit(rest, "duration-hour", length="long", locale=voice.language))
    return format_list(parts, locale=voice.language)


def measurement(value: float, unit: str | None, voice: Voice) -> str:
    """A reading with the unit its source gave: °C through Babel, any other unit as written
    after the number ("55 %", "1013 hPa")."""
    if unit in ("°C", "℃"):
        return celsius(value, voice)
    shown = format_decimal(value, format="#,##0.##", locale=voice.language)
    return f"{shown}\u00a0{unit}" if unit else shown


def is_finite_number(value: object) -> bool:
    """Whether ``value`` is a real, finite number (not a boolean, not NaN)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    )


FORMATTERS: dict[str, Callable[[float, Voice], str]] = {
    "count": count,
    "number": number,
    "percent": percent,
    "gigabytes": gigabytes,
    "celsius": celsius,
    "hours": hours,
}
"""The numeric kinds and how each is said (``state`` and ``name`` are words, not figures)."""
