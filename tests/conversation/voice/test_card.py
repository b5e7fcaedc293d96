"""The approval card's words and the notes of a decision, said in every language
(voice.card): the arguments are left as placeholders for the Console to fill verbatim, a
time window is said as a window, and a quoted reason is never followed by a full stop."""

from __future__ import annotations

import re

import pytest

from sovereign.conversation.voice.card import card_words, search_settings_line
from sovereign.conversation.voice.catalogs import LANGUAGES, Voice

SEARCH = {"query": "Öffnungszeiten Berliner Zoo heute", "time_range": "day",
          "language": "de", "safesearch": 2}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "Searched in German, safe search strict (your search settings)."),
        ("de", "Gesucht wird auf Deutsch, SafeSearch streng (Ihre Sucheinstellungen)."),
        ("fr", "Recherche en allemand, SafeSearch strict (vos paramètres de recherche)."),
        ("es", "Búsqueda en alemán, SafeSearch estricto (tus ajustes de búsqueda)."),
        ("nl", "Gezocht in het Duits, SafeSearch streng (je zoekinstellingen)."),
        ("it", "Ricerca in tedesco, SafeSearch rigoroso (le tue impostazioni di ricerca)."),
    ],
)
def test_the_search_settings_line_names_the_language_in_the_turn_s_language(language, line):
    assert search_settings_line("web.search", SEARCH, Voice(language)) == line


def test_no_settings_line_for_a_fetch_or_for_settings_that_are_not_there():
    assert search_settings_line("web.fetch", SEARCH, Voice("de")) is None
    assert search_settings_line("web.search", {"query": "x"}, Voice("de")) is None
    assert search_settings_line("web.search", {**SEARCH, "safesearch": True}, Voice("en")) is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_leaves_the_arguments_to_the_console_and_says_the_window(language):
    words = card_words("web.search", SEARCH, Voice(language))
    assert SEARCH["query"] not in str(words)  # never retyped: the Console fills it verbatim
    assert set(words["labels"]) == {"query", "time_range"}
    assert set(words["windows"]) == {"day", "week", "month", "year"}
    assert "{query}" in words["request"] and "{time_range}" in words["request"]
    for decision, note in words["notes"].items():
        assert "{query}" in note and "{time_range}" in note, (decision, note)
    assert "{time}" in words["expires"] and "{value}" in words["quote"]
    reason = words["notes"]["denied_reason"]
    # the reason is quoted last: no full stop after its closing quote
    assert re.search(r"\{reason\}\s?[\u201d\u201c\u00bb\u2019]$", reason), reason


def test_a_german_card_for_a_page_and_for_another_capability():
    voice = Voice("de")
    fetch = card_words("web.fetch", {"url": "https://zoo-berlin.de/", "start_index": 4000}, voice)
    assert fetch["heading"] == "Diese Seite lesen"
    assert fetch["labels"] == {"url": "Adresse", "start_index": "Ab Zeichen"}
    assert fetch["sentence"] == (
        "Wenn Sie freigeben, verbindet sich dieses Gerät nach außen, mit {host}, und liest die "
        "Seite unter genau dieser Adresse."
    )
    assert fetch["notes"]["approved"] == (
        "Sie haben freigegeben: diese Seite lesen: {url}, ab Zeichen {start_index}."
    )
    other = card_words("home_assistant.states", {"entity_id": "sensor.kitchen"}, voice)
    assert other["heading"] == "Diese Anfrage ausführen"
    assert other["request"] == "home_assistant.states ausführen: {arguments}"
    assert other["sentence"].endswith("an home_assistant.states.")


def test_an_edited_request_has_its_own_title_in_each_language():
    for language in LANGUAGES:
        plain = card_words("web.search", SEARCH, Voice(language))["title"]
        edited = card_words("web.search", SEARCH, Voice(language), edited=True)["title"]
        assert plain != edited
