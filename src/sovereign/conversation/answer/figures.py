"""Figures as an answer writes them, and whether a source rounds to one.

Shared by the figure check (:mod:`.grounding`) and the part check (:mod:`.labels`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_SPACE_SEPARATORS = "\u00a0\u202f\u2009 "
_NUMBER = re.compile(
    r"(?<![\w.,])"
    r"(\d{1,3}(?:,\d{3})+|\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+|\d+)"
    r"(\.\d+)?"
    r"(?:st|nd|rd|th)?(?![\w])"
)
_LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)]\s", re.MULTILINE)


@dataclass(frozen=True)
class Figure:
    """A number as written in an answer: its ``value``, the ``decimals`` it shows, its ``text``."""

    value: float
    decimals: int
    text: str


def figures_in(text: str) -> list[Figure]:
    """The numbers written in ``text``.

    Thousands separators (``7,497``, ``7 497`` with a no-break or thin space) are
    read, ordinals (``22nd``) count, a list marker at a line start (``1.``) does not,
    and digits inside words (``IPv6``, ``4K``) do not.
    """
    text = _LIST_MARKER.sub(" ", text)
    found = []
    for match in _NUMBER.finditer(text):
        whole, fraction = match.group(1), match.group(2) or ""
        digits = whole.replace(",", "").translate({ord(c): None for c in _SPACE_SEPARATORS})
        value = float(digits + fraction)
        found.append(Figure(value, max(len(fraction) - 1, 0), match.group(0)))
    return found


def rounds_to(source: float, figure: Figure) -> bool:
    """``source`` written with ``figure.decimals`` decimals (rounded or cut) is ``figure``,
    or, for a whole number ending in zeros (7,500), rounded to those tens, hundreds …"""
    scale = 10**figure.decimals
    target = figure.value * scale
    if abs(math.floor(abs(source) * scale + 0.5) - target) < 1e-6:
        return True
    if abs(math.trunc(abs(source) * scale) - target) < 1e-6:
        return True
    value = int(figure.value) if figure.decimals == 0 else 0
    zeros = len(str(value)) - len(str(value).rstrip("0")) if value else 0
    return any(abs(round(abs(source), -k) - value) < 1e-6 for k in range(1, zeros + 1))
