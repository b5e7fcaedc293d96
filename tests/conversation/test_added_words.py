"""Words the assistant added to a query (conversation/approval/added_words.py).

A query word is the household's when the household wrote it in this conversation,
in any spelling of it (case, accents, compatibility forms, hyphens, inflections);
neutral search terms of the question's language are nobody's. Everything else is
added. Look-alike letters of another script make another word.
"""

from __future__ import annotations

import pytest

from sovereign.capabilities import web_search
from sovereign.conversation.approval.added_words import (
    KIND,
    REASON,
    added_spans,
    added_word_flags,
    marked_arguments,
    neutral_terms,
    trimmed_arguments,
    without_added,
)


def added(query, said, language="en"):
    return [query[start:end] for start, end in added_spans(query, said, language)]


YEAR = ["Is the Harpenden Christmas market on this year?"]


@pytest.mark.parametrize(
    ("query", "said", "words"),
    [
        # digits and years
        ("Harpenden Christmas market 2023", YEAR, ["2023"]),
        ("Harpenden Christmas market 2026", YEAR, ["2026"]),  # even the right year
        ("Harpenden Christmas market 2023", ["Harpenden Christmas market 2023"], []),
        (
            "Harpenden Christmas market \uff12\uff10\uff12\uff13",
            ["Christmas market 2023 Harpenden"],
            [],
        ),
        (
            "Harpenden Christmas market 2023",
            ["Harpenden Christmas market \uff12\uff10\uff12\uff13"],
            [],
        ),
        ("iPhone 15 battery", ["my iPhone fifteen battery"], ["15"]),
        ("printer error E03", ["printer error E3"], ["E03"]),
        ("printer error E3", ["my printer shows E3"], ["error"]),
        # punctuation and quotes
        ('"Harpenden Christmas market"', YEAR, []),
        ("\u201cHarpenden\u201d \u00abChristmas market\u00bb", YEAR, []),
        ("Harpenden, Christmas market?", YEAR, []),
        ("Harpenden (Herts) Christmas market", YEAR, ["Herts"]),
        # hyphens and compounds
        ("engineering works week-end", ["engineering works this weekend"], []),
        ("engineering works weekend", ["engineering works this week-end"], []),
        ("engineering works week end", ["engineering works this weekend"], []),
        ("Bedford-Luton engineering works", ["works between Bedford and Luton"], ["engineering"]),
        ("Stratford-upon-Avon", ["Stratford upon Avon"], []),
        ("email address", ["my e-mail address"], []),
        # plurals and inflections
        ("Harpenden Christmas markets", YEAR, []),
        ("Weihnachtsmärkte Bamberg", ["Wann öffnet der Weihnachtsmarkt in Bamberg?"], []),
        # accents
        ("cafe Zurich", ["the best café in Zürich"], []),
        ("café Zürich", ["the best cafe in Zurich"], []),
        # case
        ("IPHONE battery", ["my iPhone battery"], []),
        # the household's words from an earlier message
        (
            "Harpenden Christmas market",
            ["We live in Harpenden.", "Is the Christmas market on?"],
            [],
        ),
        # neutral terms of the question's language
        ("what time Harpenden Christmas market opening hours", YEAR, []),
        ("how to clean solar panels", ["clean my solar panels"], []),
        # words nobody said
        ("Harpenden Christmas market St Albans", YEAR, ["St Albans"]),
        (
            "Westfield Primary head teacher Mrs Thompson",
            ["Westfield Primary head teacher?"],
            ["Mrs Thompson"],
        ),
        ("Thompson Westfield Primary Jane", ["Westfield Primary"], ["Thompson", "Jane"]),
    ],
)
def test_words_the_household_did_not_write_are_found(query, said, words):
    assert added(query, said) == words


@pytest.mark.parametrize(
    ("query", "said", "words"),
    [
        ("H\u0430rpenden Christmas market", YEAR, ["H\u0430rpenden"]),  # Cyrillic a
        ("\u0397arpenden Christmas market", YEAR, ["\u0397arpenden"]),  # Greek Eta
        ("Harpendon Christmas market", YEAR, ["Harpendon"]),  # one letter off
        ("Emmanuel school", ["Emma's school"], ["Emmanuel"]),  # a longer word
        ("Emma school", ["Emmanuel's school"], ["Emma"]),  # a shorter one
        ("Markt Bamberg", ["Weihnachtsmarkt in Bamberg"], ["Markt"]),  # part of a compound
        ("Python入門", ["learn Python"], ["Python入門"]),  # joined to another script
        ("Harpenden2023 market", ["Harpenden market"], ["Harpenden2023"]),
    ],
)
def test_adversarial_neighbours_of_the_household_s_words_are_added(query, said, words):
    assert added(query, said) == words


@pytest.mark.parametrize(
    ("query", "said", "language", "words"),
    [
        ("traghetti lago Como", ["traghetti sul lago"], "it", ["Como"]),  # not "come"
        ("Dee river levels", ["river levels"], "en", ["Dee"]),  # not "do"
        ("Wesel Rheinpegel", ["Rheinpegel?"], "de", ["Wesel"]),  # not "wessen"
        ("prices Harpenden tip", ["Harpenden tip"], "en", []),  # a kind word, inflected
    ],
)
def test_function_words_are_neutral_as_written_and_never_by_stem(query, said, language, words):
    assert added(query, said, language) == words


def test_words_in_a_script_written_without_spaces_are_found_inside_what_was_written():
    assert added("東京 天気", ["東京の天気は\uff1f"]) == []
    assert added("大阪 天気", ["東京の天気は\uff1f"]) == ["大阪"]


@pytest.mark.parametrize(
    ("query", "said", "language", "words"),
    [
        ("Weihnachtsmarkt Bamberg Öffnungszeiten", ["Weihnachtsmarkt in Bamberg?"], "de", []),
        ("marché de Noël Strasbourg horaires", ["Le marché de Noël à Strasbourg ?"], "fr", []),
        ("horario cabalgata Málaga", ["¿La cabalgata de Málaga?"], "es", []),
        ("openingstijden markt Deventer", ["De markt in Deventer?"], "nl", []),
        ("orari mercatino Bolzano", ["Il mercatino di Bolzano?"], "it", []),
        # a neutral term of another language is not neutral in this one
        (
            "Weihnachtsmarkt Bamberg opening hours",
            ["Weihnachtsmarkt in Bamberg?"],
            "de",
            ["opening hours"],
        ),
        (
            "Weihnachtsmarkt Bamberg 2023",
            ["Wann öffnet der Weihnachtsmarkt in Bamberg?"],
            "de",
            ["2023"],
        ),
    ],
)
def test_neutral_terms_are_those_of_the_question_s_language(query, said, language, words):
    assert added(query, said, language) == words


def test_every_language_has_its_neutral_terms():
    for language in ("en", "de", "fr", "es", "nl", "it"):
        terms = neutral_terms(language)
        assert terms.folds and terms.stems and terms.phrases
    assert not neutral_terms("xx").folds


def test_neighbouring_added_words_form_one_span_and_a_said_word_splits_them():
    assert added("Mrs Jane Thompson, head teacher", ["head teacher?"]) == ["Mrs Jane Thompson"]
    assert added("Mrs head Thompson", ["head?"]) == ["Mrs", "Thompson"]


def test_spans_count_code_points():
    query = "🎄 Harpenden market 2023"
    ((start, end),) = added_spans(query, ["Harpenden market"], "en")
    assert (start, end) == (19, 23) and query[start:end] == "2023"


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        ("Harpenden Christmas market 2023", "Harpenden Christmas market"),
        ("2023 Harpenden Christmas market", "Harpenden Christmas market"),
        ("Harpenden 2023 Christmas market", "Harpenden Christmas market"),
        ('"Harpenden Christmas market 2023"', '"Harpenden Christmas market"'),
        ("Harpenden Christmas market 2023?", "Harpenden Christmas market?"),
        ("Harpenden  Christmas market 2023", "Harpenden  Christmas market"),  # the rest as is
        ("St Albans Harpenden Christmas market", "Harpenden Christmas market"),
    ],
)
def test_taking_added_words_out_keeps_the_rest_character_for_character(query, kept):
    assert without_added(query, YEAR, "en") == kept


@pytest.mark.parametrize(
    "query",
    [
        "Harpenden Christmas market",  # nothing added
        "Champions League final result",  # nothing of the household's would remain
        "the opening hours of St Albans",  # only neutral terms would remain
    ],
)
def test_nothing_is_taken_out_when_nothing_is_added_or_nothing_of_theirs_would_remain(query):
    assert without_added(query, YEAR, "en") is None


def test_only_the_marked_string_arguments_are_trimmed():
    arguments = {"query": "Harpenden market 2023", "time_range": "year", "other": "2023 x"}
    trimmed = trimmed_arguments(arguments, ["query", "missing"], YEAR, "en")
    assert trimmed == {"query": "Harpenden market", "time_range": "year", "other": "2023 x"}
    assert arguments["query"] == "Harpenden market 2023"  # a copy
    assert trimmed_arguments({"query": 42}, ["query"], YEAR, "en") == {"query": 42}


def test_flags_carry_the_kind_the_span_and_the_reason():
    flags = added_word_flags({"query": "Champions League final"}, ["query"], ["who won?"], "en")
    assert flags == [{"kind": KIND, "argument": "query", "start": 0, "end": 22, "reason": REASON}]
    assert added_word_flags({"query": 7}, ["query"], [], "en") == []


def test_web_search_marks_its_query_for_the_household_s_words():
    assert marked_arguments(web_search.ARGUMENTS_SCHEMA) == ["query"]
    assert marked_arguments({"properties": {"url": {"type": "string"}}}) == []
