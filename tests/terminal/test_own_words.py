"""``sovereign chat``'s own words: every language's catalog says each of them, with the
same placeholders as the English, and a failure the client meets itself is said in the
household's language while the service's own sentence is shown as it said it."""

from __future__ import annotations

import string

import pytest

from sovereign.po_catalogs import translations
from sovereign.terminal.api import ServiceFailure, target
from sovereign.terminal.session import failure_sentence
from sovereign.terminal.words import CATALOGS, COUNTED, DOMAIN, LANGUAGES, SENTENCES, Words

SPELLED_ALIKE = {"approve_prompt", "error_prefix", "prompt_assistant", "sources"}
"""Said as in English in some language ("Error: " in Spanish, "assistant" and "Sources"
in French)."""


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_sentence_is_translated_with_its_placeholders(language):
    said = translations(CATALOGS, DOMAIN, language)
    for key, english in SENTENCES.items():
        translated = said.pgettext(key, english)
        assert translated != english or key in SPELLED_ALIKE, (language, key)
        assert _fields(translated) == _fields(english), (language, key)
    for key, (one, many) in COUNTED.items():
        for count in (1, 2, 5):
            translated = said.npgettext(key, one, many, count)
            assert translated not in (one, many)
            assert _fields(translated) == _fields(one), (language, key)


def test_a_failure_the_client_met_is_said_in_the_household_s_language():
    words, where = Words("fr"), target("http://127.0.0.1:8092")
    unreachable = ServiceFailure(0, "UNREACHABLE", "The service at … (ConnectError).")
    assert failure_sentence(unreachable, words, where) == (
        "Le service à l\u2019adresse http://127.0.0.1:8092 est injoignable."
    )
    cut = ServiceFailure(0, "STREAM_ENDED", "The answer stopped before it was complete.")
    said_cut = "La réponse s\u2019est arrêtée avant d\u2019être complète."
    assert failure_sentence(cut, words) == said_cut
    bare = ServiceFailure(502, "HTTP_502", "The service answered HTTP 502.")
    assert failure_sentence(bare, words) == "Le service a répondu HTTP 502."
    said = ServiceFailure(409, "TURN_STOPPED", "Arrêté.", {"error": {"message": "Arrêté."}})
    assert failure_sentence(said, words) == "Arrêté."


def test_the_household_s_yes_and_leave_words_are_understood_beside_english_ones():
    german = Words("de")
    assert german.approves("J") and german.approves("ja") and german.approves("y")
    assert not german.approves("n") and not german.approves("")
    assert german.leaves(" Ende ") and german.leaves("quit") and not german.leaves("enden")
    assert Words("xx").language == "en"
