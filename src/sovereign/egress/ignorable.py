"""The Unicode ``Default_Ignorable_Code_Point`` property, as data (DESIGN §4).

Python's :mod:`unicodedata` exposes the general category but not this derived
property, so the ranges are carried here. Source: the Unicode Character Database,
``DerivedCoreProperties.txt``, property ``Default_Ignorable_Code_Point`` (27 ranges,
4,174 code points; unchanged from Unicode 14.0 through 16.0). Derivation (UAX #44):
``Other_Default_Ignorable_Code_Point + Cf + Variation_Selector - White_Space -
FFF9..FFFB - 13430..1343F - Prepended_Concatenation_Mark``. The test suite checks the
table against an independent copy of the property (the ``regex`` module's).

Every code point here renders as nothing (or is meant to, by a conforming font), so an
argument holding one shows the household something other than what is sent.
"""

from __future__ import annotations

import bisect

__all__ = ["DEFAULT_IGNORABLE_RANGES", "is_default_ignorable"]

DEFAULT_IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # Cf SOFT HYPHEN
    (0x034F, 0x034F),  # Mn COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # Cf ARABIC LETTER MARK
    (0x115F, 0x1160),  # Lo HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # Mn KHMER VOWEL INHERENT AQ..KHMER VOWEL INHERENT AA
    (0x180B, 0x180D),  # Mn MONGOLIAN FREE VARIATION SELECTOR ONE..THREE
    (0x180E, 0x180E),  # Cf MONGOLIAN VOWEL SEPARATOR
    (0x180F, 0x180F),  # Mn MONGOLIAN FREE VARIATION SELECTOR FOUR
    (0x200B, 0x200F),  # Cf ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),  # Cf LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x2064),  # Cf WORD JOINER..INVISIBLE PLUS
    (0x2065, 0x2065),  # Cn <reserved-2065>
    (0x2066, 0x206F),  # Cf LEFT-TO-RIGHT ISOLATE..NOMINAL DIGIT SHAPES
    (0x3164, 0x3164),  # Lo HANGUL FILLER
    (0xFE00, 0xFE0F),  # Mn VARIATION SELECTOR-1..VARIATION SELECTOR-16
    (0xFEFF, 0xFEFF),  # Cf ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # Lo HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # Cn <reserved-FFF0>..<reserved-FFF8>
    (0x1BCA0, 0x1BCA3),  # Cf SHORTHAND FORMAT LETTER OVERLAP..SHORTHAND FORMAT UP STEP
    (0x1D173, 0x1D17A),  # Cf MUSICAL SYMBOL BEGIN BEAM..MUSICAL SYMBOL END PHRASE
    (0xE0000, 0xE0000),  # Cn <reserved-E0000>
    (0xE0001, 0xE0001),  # Cf LANGUAGE TAG
    (0xE0002, 0xE001F),  # Cn <reserved-E0002>..<reserved-E001F>
    (0xE0020, 0xE007F),  # Cf TAG SPACE..CANCEL TAG
    (0xE0080, 0xE00FF),  # Cn <reserved-E0080>..<reserved-E00FF>
    (0xE0100, 0xE01EF),  # Mn VARIATION SELECTOR-17..VARIATION SELECTOR-256
    (0xE01F0, 0xE0FFF),  # Cn <reserved-E01F0>..<reserved-E0FFF>
)
"""Inclusive ``(first, last)`` code point ranges, sorted and disjoint."""

_STARTS = [first for first, _ in DEFAULT_IGNORABLE_RANGES]


def is_default_ignorable(code_point: int) -> bool:
    """True when ``code_point`` has the Default_Ignorable_Code_Point property."""
    index = bisect.bisect_right(_STARTS, code_point) - 1
    return index >= 0 and code_point <= DEFAULT_IGNORABLE_RANGES[index][1]
