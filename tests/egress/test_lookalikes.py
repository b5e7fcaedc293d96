"""Look-alike spellings of private words are flagged (sovereign.egress.lookalikes):
every confusable letter Unicode lists, in every position; digits for letters; any
word order; and words that mix alphabets around a look-alike letter."""

# ruff: noqa: RUF001 - the look-alike letters are what these tests feed in

from __future__ import annotations

import itertools
import unicodedata
from functools import lru_cache

import pytest

from sovereign.egress import Household, find_identifiers
from sovereign.egress.lookalikes import mixed_script_words, same_word, skeleton

PRIVATE = ["Maya Okafor", "Juniper Lane", "Pepperpot", "Westbrook Primary School"]
HOME = Household.build(private_words=PRIVATE)
WORD_KINDS = {"private_word", "look_alike", "mixed_script"}


def flagged_spans(text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.kind) for f in find_identifiers(text, HOME)]


def covers(text: str, part: str) -> bool:
    """A word flag overlaps ``part`` of ``text``."""
    at = text.index(part)
    return any(
        f.kind in WORD_KINDS and f.start < at + len(part) and at < f.end
        for f in find_identifiers(text, HOME)
    )


@lru_cache(maxsize=1)
def confusables() -> dict[str, list[str]]:
    """Every non-ASCII letter of the Basic Multilingual Plane whose TR39 skeleton is
    one ASCII lower-case letter, by that letter (Unicode's table, as the library has it)."""
    table: dict[str, list[str]] = {}
    for point in range(0x80, 0x10000):
        char = chr(point)
        if not unicodedata.category(char).startswith("L"):
            continue
        shape = skeleton(char)
        if len(shape) == 1 and shape.isascii() and shape.isalpha():
            table.setdefault(shape, []).append(char)
    return table


def test_the_table_reaches_the_usual_impostors():
    table = confusables()
    assert "а" in table["a"] and "о" in table["o"] and "ο" in table["o"]  # Cyrillic, Greek
    assert "Μ" in table["m"] or "М" in table["m"]
    assert sum(map(len, table.values())) > 300


@pytest.mark.parametrize("word", ["Maya Okafor", "Pepperpot"])
def test_every_confusable_letter_in_every_position_is_flagged(word):
    table = confusables()
    missed = []
    for index, letter in enumerate(word):
        for impostor in table.get(letter.lower(), []):
            spelled = word[:index] + impostor + word[index + 1 :]
            text = f"search {spelled} records"
            if not covers(text, spelled):
                missed.append(spelled)
    assert missed == [], f"{len(missed)} spellings not flagged, e.g. {missed[:5]}"


@pytest.mark.parametrize(
    "spelled",
    ["Мaya Оkafor", "MАYА OKАFOR", "Μaya Οkafor", "Ηalf", "Jυniper Lane", "Рepperpot"],
)
def test_cyrillic_and_greek_capitals_and_small_letters_are_both_read(spelled):
    text = f"{spelled} school"
    if spelled == "Ηalf":
        assert skeleton("Ηalf") == "half"  # capital Eta reads as H, before any case fold
        return
    assert covers(text, spelled), flagged_spans(text)


def digit_spellings(word: str) -> list[str]:
    """Every spelling of ``word`` with one or two of its letters replaced by a digit,
    each digit any of 0-9."""
    spellings = []
    for positions in itertools.chain(
        itertools.combinations(range(len(word)), 1), itertools.combinations(range(len(word)), 2)
    ):
        for digits in itertools.product("0123456789", repeat=len(positions)):
            letters = list(word)
            for position, digit in zip(positions, digits, strict=True):
                letters[position] = digit
            spellings.append("".join(letters))
    return spellings


@pytest.mark.parametrize("word", ["Okafor", "Juniper", "Pepperpot"])
def test_digits_for_up_to_a_third_of_the_letters_are_flagged(word):
    for spelled in digit_spellings(word):
        digits = sum(c.isdigit() for c in spelled)
        expected = digits <= len(word) // 3
        assert same_word(skeleton(spelled), skeleton(word)) is expected, spelled


def test_digit_spellings_inside_a_query_are_flagged():
    for text, part in [
        ("M4ya 0kafor grades", "M4ya 0kafor"),
        ("jun1per lane bins", "jun1per lane"),
        ("Westbr00k Primary Sch00l", "Westbr00k Primary Sch00l"),
        ("https://example.org/?q=m4ya+0kafor", "m4ya+0kafor"),
    ]:
        assert covers(text, part), (text, flagged_spans(text))


@pytest.mark.parametrize("phrase", ["Maya Okafor", "Westbrook Primary School"])
def test_every_word_order_is_flagged(phrase):
    for order in itertools.permutations(phrase.split()):
        for joiner in (" ", ", ", "-", "+"):
            spelled = joiner.join(order)
            assert covers(f"about {spelled} today", spelled), spelled


@pytest.mark.parametrize(
    "text",
    [
        "maya angelou poems", "okapi facts", "juniper berries gin", "lane splitting",
        "pepper steak", "2024 f1 calendar", "iphone15 case", "r2d2 toy", "a1 paper size",
        "covid19 stats", "Москва погода", "東京タワー 営業時間", "iPhoneケース おすすめ",
        "Python入門", "naïve café", "Straße gesperrt", "Ελλάδα διακοπές", "modem reset",
        "westbrook maine", "primary school admissions",
    ],
)  # fmt: skip
def test_ordinary_words_near_the_rules_are_not_flagged(text):
    assert flagged_spans(text) == []


@pytest.mark.parametrize(
    ("word", "mixed"),
    [
        ("Мaya", True), ("okаfor", True), ("Ηalvorsen", True), ("Рepperpot", True),
        ("Maya", False), ("Москва", False), ("ΜΑΥΑ", False), ("iPhoneケース", False),
        ("日本語テスト", False), ("x86", False), ("Zürich", False),
    ],
)  # fmt: skip
def test_a_word_is_flagged_when_it_mixes_alphabets_around_a_look_alike(word, mixed):
    assert bool(mixed_script_words(f"see {word} now")) is mixed


def test_a_mixed_word_is_flagged_even_when_it_is_no_private_word():
    text = "login at аpple-support.example"
    assert ("аpple", "mixed_script") in flagged_spans(text)


def test_an_exact_match_is_not_flagged_twice_as_a_look_alike():
    assert flagged_spans("Maya Okafor school") == [("Maya Okafor", "private_word")]
