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


FLAGS = [
    {"argument": "query", "start": 0, "end": 4, "kind": "email_address", "reason": "x"},
    {"argument": "query", "start": 0, "end": 4, "kind": "added_by_assistant", "reason": "x"},
    {"argument": "query", "start": 5, "end": 9, "kind": "a_kind_nobody_knows", "reason": "x"},
]


def test_a_german_card_says_its_flags_and_marks_in_german():
    words = card_words("web.search", SEARCH, Voice("de"), flags=FLAGS)
    assert words["flag_titles"] == {
        "household": "Bevor Sie freigeben: Das könnte den Suchmaschinen oder der Website etwas "
        "über Ihren Haushalt verraten.",
        "from_a_result": "Bevor Sie freigeben: Die markierten Wörter stammen aus einer Seite "
        "oder einem Suchergebnis, nicht von Ihnen.",
        "added_by_assistant": "Bevor Sie freigeben: Der Assistent hat die markierten Wörter "
        "hinzugefügt; Sie haben sie nicht geschrieben.",
    }
    assert words["flag_reasons"] == {
        "email_address": "sieht aus wie eine E-Mail-Adresse",
        "added_by_assistant": "steht nicht in dem, was Sie geschrieben haben: Der Assistent "
        "hat es hinzugefügt",
    }  # only the kinds on this card, and none the product does not know
    assert words["flag_note"] == "{flagged} {reasons}."
    assert words["list"] == {"2": "{0} und {1}", "start": "{0}, {1}", "middle": "{0}, {1}",
                             "end": "{0} und {1}"}  # fmt: skip
    assert words["marks"] == {
        "space_one": "{n} Leerzeichen",
        "space_other": "{n} Leerzeichen",
        "invisible": "unsichtbares Zeichen",
        "idn": "Host in Unicode: {unicode} (so gesendet: {host})",
    }


def test_an_italian_card_without_flags_says_none_and_its_marks_in_italian():
    words = card_words("web.fetch", {"url": "https://a.example/"}, Voice("it"))
    assert words["flag_reasons"] == {}
    assert words["marks"]["space_one"] == "{n} spazio"
    assert words["marks"]["space_other"] == "{n} spazi"
    assert words["list"]["2"] == "{0} e {1}"


def test_the_english_flag_reasons_are_those_the_flags_carry():
    from sovereign.conversation.approval import added_words, dictated
    from sovereign.conversation.voice.card import FLAG_REASONS
    from sovereign.egress import REASONS

    carried = {**REASONS, dictated.KIND: dictated.REASON, added_words.KIND: added_words.REASON}
    assert carried == FLAG_REASONS
    flags = [{"kind": kind} for kind in carried]
    assert card_words("web.search", SEARCH, Voice("en"), flags=flags)["flag_reasons"] == carried


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_count_of_spaces_from_two_takes_the_form_of_two(language):
    voice = Voice(language)
    two = voice.say_count("card_mark_spaces", "{n} space", "{n} spaces", 2, n="{n}")
    for count in range(2, 20_001):  # an argument is far shorter than 20,000 characters
        said = voice.say_count("card_mark_spaces", "{n} space", "{n} spaces", count,
                               n="{n}")  # fmt: skip
        assert said == two, count


@pytest.mark.parametrize(
    ("language", "code", "sentence"),
    [
        ("en", "INVALID_ARGUMENTS", "The edited request was not accepted: it cannot be sent "
         "as it is written. The original request is still waiting for your answer."),
        ("de", "INVALID_ARGUMENTS", "Die geänderte Anfrage wurde nicht angenommen: so, wie sie "
         "geschrieben ist, kann sie nicht gesendet werden. Die ursprüngliche Anfrage wartet "
         "weiter auf Ihre Antwort."),
        ("it", "FETCH_TARGET_REJECTED", "La richiesta modificata non è stata accettata: questo "
         "apparecchio non legge pagine a quell\u2019indirizzo. La richiesta originale aspetta "
         "ancora la tua risposta."),
        ("fr", "SOMETHING_NEW", "La demande modifiée n\u2019a pas été acceptée. La demande "
         "d\u2019origine attend toujours votre réponse."),
        ("tlh", "SITE_NOT_ALLOWED", "The edited request was not accepted: your list of allowed "
         "sites does not include that site. The original request is still waiting for your "
         "answer."),
    ],
)  # fmt: skip
def test_a_refused_edit_is_said_in_the_turn_s_language(language, code, sentence):
    from sovereign.conversation.voice.card import edit_refusal

    assert edit_refusal(code, Voice(language)) == sentence


def test_every_refusal_of_the_executor_has_a_detail_to_say():
    from sovereign.conversation.voice.card import EDIT_DETAIL_COUNTS, EDIT_DETAILS
    from sovereign.executor import REFUSALS

    assert set(EDIT_DETAILS) | set(EDIT_DETAIL_COUNTS) == set(REFUSALS)


def test_a_refused_edit_s_detail_is_said_in_french_with_french_numbers():
    from sovereign.conversation.voice.card import edit_detail
    from sovereign.conversation.voice.catalogs import Voice

    french = Voice("fr")
    label = "U+200B ZERO WIDTH SPACE"
    assert edit_detail("invisible_character", {"argument": "query", "character": label,
                                               "position": 8}, french) == (
        "query contient, en position 8, un caractère que la carte ne peut pas montrer "
        f"({label})."
    )  # fmt: skip
    assert edit_detail("too_long", {"argument": "query", "limit": 1000}, french) == (
        "query dépasse 1\u202f000 caractères."
    )
    assert edit_detail("missing", {}, french) is None  # its sentence names an argument
    assert edit_detail("no_such_code", {}, french) is None
