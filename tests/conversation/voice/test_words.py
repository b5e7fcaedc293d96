"""Words with their spans, folded and stemmed (conversation/voice/words.py)."""

from __future__ import annotations

import pytest

from sovereign.conversation.voice.words import SNOWBALL, PhraseIndex, fold, spaceless, stem, words


def spelled(text):
    return [(text[w.start : w.end], w.parts) for w in words(text)]


def test_a_word_is_a_run_of_letters_and_digits_with_its_span_in_code_points():
    text = "🎄 Harpenden, 2023!"
    assert spelled(text) == [("Harpenden", ("harpenden",)), ("2023", ("2023",))]
    assert [(w.start, w.end) for w in words(text)] == [(2, 11), (13, 17)]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("week-end", ("week", "end")),
        ("week\u2010end", ("week", "end")),
        ("week\u2011end", ("week", "end")),
        ("quest'anno", ("quest", "anno")),
        ("quest\u2019anno", ("quest", "anno")),
        ("year's", ("year", "s")),
    ],
)
def test_apostrophes_and_hyphens_inside_a_word_join_its_parts(text, parts):
    assert spelled(text) == [(text, parts)]


@pytest.mark.parametrize("text", ["week - end", "week--end", "'week'", "-week-", "week\u2013end"])
def test_a_connector_not_between_two_letters_separates_words(text):
    assert [parts for _, parts in spelled(text)] in ([("week",), ("end",)], [("week",)])


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        ("Café", "cafe"),
        ("CAFE\u0301", "cafe"),  # a combining accent
        ("ZÜRICH", "zurich"),
        ("Straße", "strasse"),
        ("\uff28arpenden", "harpenden"),  # a full-width H
        ("\uff12\uff10\uff12\uff13", "2023"),  # full-width digits
        ("\u0662\u0660\u0662\u0663", "2023"),  # Arabic-Indic digits
        ("ﬁnal", "final"),  # a ligature
    ],
)
def test_the_fold_drops_case_accents_and_compatibility_forms(written, folded):
    assert fold(written) == folded


@pytest.mark.parametrize(
    "lookalike",
    [
        "H\u0430rpenden",  # Cyrillic a
        "\u0397arpenden",  # Greek capital Eta
        "Harpend\u0435n",  # Cyrillic e
    ],
)
def test_letters_of_another_script_are_never_folded_into_latin_ones(lookalike):
    assert fold(lookalike) != "harpenden"


@pytest.mark.parametrize(
    ("language", "one", "other"),
    [
        ("en", "markets", "market"),
        ("en", "opening", "open"),
        ("de", "Weihnachtsmärkte", "Weihnachtsmarkt"),
        ("de", "Köln", "Koeln"),
        ("fr", "marchés", "marché"),
        ("es", "mercados", "mercado"),
        ("nl", "kerstmarkten", "kerstmarkt"),
        ("it", "mercatini", "mercatino"),
    ],
)
def test_inflections_share_a_stem_in_the_question_s_language(language, one, other):
    assert stem(one, language) == stem(other, language)


def test_a_language_without_a_stemmer_compares_folds():
    assert stem("Markets", "xx") == "markets"
    assert set(SNOWBALL) == {"en", "de", "fr", "es", "nl", "it"}


def test_scripts_written_without_spaces_are_told_apart():
    assert spaceless("東京の天気") and spaceless("Python入門") and spaceless("กรุงเทพ")
    assert not spaceless("Zürich") and not spaceless("2023") and not spaceless("Москва")


def test_a_phrase_index_finds_the_longest_phrase_as_whole_words_by_its_letters():
    index = PhraseIndex.of([("this week", "week"), ("this weekend", "weekend"), ("week", "w")])
    found = words("Open THIS week-end?")
    assert index.longest_at(found, 1) == ("weekend", 3)  # "week-end" is "weekend"
    assert index.longest_at(found, 0) == (None, 0)
    assert index.in_text("this week end") and index.in_text("a WEEK")
    assert not index.in_text("weekends and weekdays")  # other words, not a phrase inside
    assert PhraseIndex.of([("a", 1), ("A", 2)]).values == {"a": 1}  # the first value stays
