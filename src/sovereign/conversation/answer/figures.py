"""Figures as a text writes them, in any of the product's languages, and whether a source
rounds to one (DESIGN §4: "no number absent from the sources").

The separators are the language's own (CLDR data through Babel: "3.465" is 3465 in
German, "46,2" is 46.2 in French), and a figure written the English way in another
language is read that way too: a figure counts as supported when any of its readings
is, so a check never asks again because of a separator.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from babel.numbers import get_decimal_symbol, get_group_symbol

_SPACES = "\u00a0\u202f\u2009 "
_LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)]\s", re.MULTILINE)
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+", re.IGNORECASE)


@dataclass(frozen=True)
class Figure:
    """A number as written: the values it may mean (``readings``, most likely first), the
    ``decimals`` each shows, and its ``text``."""

    readings: tuple[tuple[float, int], ...]
    text: str


@functools.cache
def _pattern(group: str, point: str) -> re.Pattern[str]:
    groups = re.escape(group) + ("" if group in _SPACES else re.escape(_SPACES))
    return re.compile(
        rf"(?<![\w.,])(\d{{1,3}}(?:[{groups}]\d{{3}})+|\d+)({re.escape(point)}\d+)?(?![\w])"
    )


def _conventions(language: str) -> list[tuple[str, str]]:
    """(group, decimal) symbols of ``language``, then English's when they differ."""
    own = (get_group_symbol(language), get_decimal_symbol(language))
    english = (",", ".")
    return [own] if own == english else [own, english]


def figures_in(text: str, language: str = "en") -> list[Figure]:
    """The numbers written in ``text`` (web addresses and list markers left out).

    Each figure carries its reading in ``language``'s conventions and, where it
    differs, its English reading ("3.465" in German: 3465, or 3.465).
    """
    text = _URL.sub(" ", _LIST_MARKER.sub(" ", text))
    found: dict[tuple[int, int], list[tuple[float, int]]] = {}
    spans: dict[tuple[int, int], str] = {}
    for group, point in _conventions(language):
        for match in _pattern(group, point).finditer(text):
            whole, fraction = match.group(1), match.group(2) or ""
            digits = "".join(c for c in whole if c.isdigit())
            value = float(digits + ("." + fraction[len(point):] if fraction else ""))
            decimals = len(fraction) - len(point) if fraction else 0
            key = match.span()
            found.setdefault(key, []).append((value, decimals))
            spans[key] = match.group(0)
    return [
        Figure(tuple(dict.fromkeys(readings)), spans[key])
        for key, readings in sorted(found.items())
        if not _inside_another(key, found)
    ]


def _inside_another(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(o != span and o[0] <= span[0] and span[1] <= o[1] for o in spans)


def rounds_to(source: float, value: float, decimals: int) -> bool:
    """``source`` written with ``decimals`` decimals (rounded or cut) is ``value``, or, for
    a whole number ending in zeros (7,500), rounded to those tens, hundreds …"""
    scale = 10**decimals
    target = value * scale
    if abs(math.floor(abs(source) * scale + 0.5) - target) < 1e-6:
        return True
    if abs(math.trunc(abs(source) * scale) - target) < 1e-6:
        return True
    whole = int(value) if decimals == 0 else 0
    zeros = len(str(whole)) - len(str(whole).rstrip("0")) if whole else 0
    return any(abs(round(abs(source), -k) - whole) < 1e-6 for k in range(1, zeros + 1))


def supported(figure: Figure, sources: Iterable[float]) -> bool:
    """Whether any reading of ``figure`` is a source, rounded to the digits it shows."""
    values = list(sources)
    return any(rounds_to(s, v, d) for v, d in figure.readings for s in values)
