"""The visible-character rule: every refused class, its sentence, and what stays allowed."""

from __future__ import annotations

import itertools
import sys
import unicodedata

import pytest

from sovereign.egress import (
    BLANK_GLYPHS,
    DEFAULT_IGNORABLE_RANGES,
    find_invisible,
    is_default_ignorable,
    require_visible,
    visible_text,
)

REFUSED_CLASSES = {"Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"}


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("what is\u200b up", "The query contains an invisible character "
         "(U+200B ZERO WIDTH SPACE) at position 8."),
        ("report\u202egnp.exe", "The query contains an invisible text-direction control "
         "(U+202E RIGHT-TO-LEFT OVERRIDE) at position 7."),
        ("a\u2066b", "The query contains an invisible text-direction control "
         "(U+2066 LEFT-TO-RIGHT ISOLATE) at position 2."),
        ("tag\U000E0041", "The query contains an invisible character "
         "(U+E0041 TAG LATIN CAPITAL LETTER A) at position 4."),
        ("two\nlines", "The query contains a line break (U+000A LINE FEED) at position 4."),
        ("tab\there", "The query contains a tab (U+0009 CHARACTER TABULATION) at position 4."),
        ("no\u00a0break", "The query contains a space other than the plain space "
         "(U+00A0 NO-BREAK SPACE) at position 3."),
        ("ideo\u3000space", "The query contains a space other than the plain space "
         "(U+3000 IDEOGRAPHIC SPACE) at position 5."),
        ("x\u2028y", "The query contains a line or paragraph separator "
         "(U+2028 LINE SEPARATOR) at position 2."),
        ("x\u2029y", "The query contains a line or paragraph separator "
         "(U+2029 PARAGRAPH SEPARATOR) at position 2."),
        ("\ue000", "The query contains a private-use character (U+E000 <private use>) "
         "at position 1."),
        ("\U0010fffd", "The query contains a private-use character (U+10FFFD <private use>) "
         "at position 1."),
        ("\ud800", "The query contains a surrogate code point (U+D800 <surrogate>) "
         "at position 1."),
        ("\x1b[31m", "The query contains a control character (U+001B ESCAPE) at position 1."),
        ("\u3164", "The query contains an invisible character (U+3164 HANGUL FILLER) "
         "at position 1."),
        ("e\u034f", "The query contains an invisible character "
         "(U+034F COMBINING GRAPHEME JOINER) at position 2."),
        ("\u2764\ufe0f", "The query contains an invisible character "
         "(U+FE0F VARIATION SELECTOR-16) at position 2."),
        ("\U0001F468\u200d\U0001F469", "The query contains an invisible character "
         "(U+200D ZERO WIDTH JOINER) at position 2."),
        ("soft\u00adhyphen", "The query contains an invisible character (U+00AD SOFT HYPHEN) "
         "at position 5."),
        ("\ufeffbom", "The query contains an invisible character "
         "(U+FEFF ZERO WIDTH NO-BREAK SPACE) at position 1."),
        ("weather\u2800berlin", "The query contains a blank character "
         "(U+2800 BRAILLE PATTERN BLANK) at position 8."),
        ("\U0001d159", "The query contains a blank character "
         "(U+1D159 MUSICAL SYMBOL NULL NOTEHEAD) at position 1."),
    ],
)
def test_each_refused_class_is_named_with_its_code_point_name_and_position(text, sentence):
    with pytest.raises(ValueError) as refused:
        require_visible(text, "query")
    assert str(refused.value) == sentence


def test_an_unassigned_code_point_names_the_unicode_version_of_this_device():
    unassigned = next(
        chr(c) for c in range(0x0370, 0x10000) if unicodedata.category(chr(c)) == "Cn"
    )
    found = find_invisible(f"ab{unassigned}")
    assert found is not None and found.position == 3
    assert f"unassigned in Unicode {unicodedata.unidata_version}" in found.sentence("query")


@pytest.mark.parametrize("code", [*range(0xE0000, 0xE0080), *range(0x200B, 0x2010),
                                  *range(0x202A, 0x202F), *range(0x2060, 0x2070),
                                  *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0, 17)])
def test_tags_zero_widths_bidi_controls_and_variation_selectors_are_refused(code):
    assert find_invisible(f"a{chr(code)}b") is not None


def test_every_code_point_is_judged_by_its_class():
    """The whole code space: refused exactly when its class is one the card cannot show."""
    wrong = []
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        expected = (
            unicodedata.category(character) in REFUSED_CLASSES
            or is_default_ignorable(code)
            or (character.isspace() and character != " ")
            or code in BLANK_GLYPHS
        )
        if (find_invisible(character) is not None) != expected:
            wrong.append(hex(code))
    assert wrong == []


def test_no_character_named_blank_null_filler_or_space_passes_unless_it_draws_a_mark():
    """Neighbours of the blank glyphs: what Unicode names blank, null, filler or space
    passes only when its glyph has ink (a picture *of* a space, a gap mark)."""
    inked = {
        0x2400, 0x2408, 0x2420, 0x2422, 0x2423,  # control pictures: a visible symbol
        0x1361, 0x303F, 0xA8F9, 0x10AF6, 0x1144E, 0x11945, 0x11C44, 0x11C45,  # marks
    }
    words = ("BLANK", "NULL", "FILLER", "ZERO WIDTH", "INVISIBLE", "SPACE")
    passing = {
        code
        for code in range(sys.maxunicode + 1)
        if any(w in unicodedata.name(chr(code), "") for w in words)
        and "MATHEMATICAL" not in unicodedata.name(chr(code))
        and find_invisible(chr(code)) is None
    }
    assert passing - {0x20} <= inked, sorted(hex(c) for c in passing - inked - {0x20})


def test_every_whitespace_but_the_plain_space_is_refused():
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert len(spaces) > 20
    assert [s for s in spaces if find_invisible(s) is None] == [" "]


def test_the_default_ignorable_table_matches_an_independent_copy_of_the_property():
    regex = pytest.importorskip("regex")
    pattern = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    independent = {c for c in range(sys.maxunicode + 1) if pattern.match(chr(c))}
    ours = {c for c in range(sys.maxunicode + 1) if is_default_ignorable(c)}
    assert ours == independent
    assert len(ours) == 4174


def test_the_table_is_sorted_and_disjoint():
    for (_, last), (first, _) in itertools.pairwise(DEFAULT_IGNORABLE_RANGES):
        assert last < first


@pytest.mark.parametrize(
    "text",
    ["plain words", "Müller straße", "Москва weather", "東京 天気", "مرحبا", "שלום עולם",
     "emoji 🎉 party", "skin tone 👍🏽", "flag 🇩🇪", "e\u0301", "math \U0001d41a\U0001d41b",
     "combining a\u0308", "<3 :) !bang", "  leading and trailing  ", "ᚠᚢᚦ runes", "Ω ≈ ∞"],
)
def test_visible_text_passes_and_is_a_fixed_point(text):
    canonical = visible_text(text, "query")
    assert canonical == unicodedata.normalize("NFC", text)
    assert visible_text(canonical, "query") == canonical


def test_canonically_equivalent_spellings_become_one_value():
    assert visible_text("cafe\u0301", "query") == visible_text("caf\u00e9", "query") == "café"
