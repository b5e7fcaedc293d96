"""The product's words around an answer in the answer's language (voice.around).

The progress line's stages, its Stop button, the names of the receipt and the sources,
and the notes after an approval whose answer broke off are said from the catalogs, in
every language the product speaks; capability names stay as they are.
"""

from __future__ import annotations

import pytest

from sovereign.conversation.voice.around import (
    ALL_SENTENCES,
    NAMES,
    approval_notes,
    before_the_turn,
    say_name,
    say_progress,
)
from sovereign.conversation.voice.catalogs import LANGUAGES, Voice


@pytest.mark.parametrize(
    ("stage", "capability", "english"),
    [
        ("queued", None, "Waiting for another question to finish"),
        ("loading_model", None,
         "Loading the model (the first question after a start takes longer)"),
        ("choosing", None, "Reading your question and choosing what to check"),
        ("writing", None, "Writing the answer"),
        ("checking", "web.search", "Searching the web"),
        ("checking", "web.fetch", "Reading the page"),
        ("checking", "system.health", "Checking the device's health"),
        ("checking", "pihole.summary", "Checking the ad blocker"),
        ("checking", "home_assistant.states", "Checking your home's devices"),
        ("checking", "web.other", "Working on the web request you approved"),
        ("checking", "mail.send", "Checking what you asked about"),
        ("checking", None, "Checking what you asked about"),
    ],
)  # fmt: skip
def test_each_stage_is_said_in_english_as_the_clients_said_it(stage, capability, english):
    assert say_progress(stage, capability, Voice("en")) == {
        "words": english,
        "stop": "Stop",
        "stopping": "Stopping",
    }


@pytest.mark.parametrize(
    ("language", "words", "stop", "stopping"),
    [
        ("de", "Ich suche im Web", "Anhalten", "Wird angehalten"),
        ("fr", "Je cherche sur le web", "Arrêter", "Arrêt en cours"),
        ("es", "Buscando en la web", "Detener", "Deteniendo"),
        ("nl", "Ik zoek op het web", "Stoppen", "Bezig met stoppen"),
        ("it", "Cerco sul web", "Ferma", "Mi fermo"),
    ],
)
def test_a_search_in_progress_is_said_in_the_turn_s_language(language, words, stop, stopping):
    said = say_progress("checking", "web.search", Voice(language))
    assert said == {"words": words, "stop": stop, "stopping": stopping}


def test_choosing_after_a_call_is_choosing_what_else_and_no_other_stage_changes():
    for language in LANGUAGES:
        voice = Voice(language)
        first = say_progress("choosing", None, voice)["words"]
        later = say_progress("choosing", None, voice, after_calls=True)["words"]
        assert later != first
        if language != "en":
            assert later != say_progress("choosing", None, Voice("en"), after_calls=True)["words"]
        for stage in ("queued", "loading_model", "writing", "checking"):
            assert say_progress(stage, None, voice, after_calls=True) == say_progress(
                stage, None, voice
            )
    assert say_progress("choosing", None, Voice("en"), after_calls=True)["words"] == (
        "Choosing what else to check"
    )


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_stage_and_name_differs_from_the_english_in_every_other_language(language):
    voice, english = Voice(language), Voice("en")
    for key in ("sources_heading", "receipt_label", *(k for k in NAMES if k.startswith("source_"))):
        if (language, key) != ("fr", "sources_heading"):  # "Sources" in French too
            assert say_name(key, voice) != say_name(key, english)
    for stage in ("queued", "loading_model", "choosing", "writing", "checking"):
        assert (
            say_progress(stage, None, voice)["words"] != say_progress(stage, None, english)["words"]
        )


def test_the_notes_after_a_broken_approval_name_the_capability_in_each_language():
    for language in LANGUAGES:
        notes = approval_notes("web.fetch", Voice(language))
        assert set(notes) == {"ran", "failed", "not_run", "lost"}
        assert all("web.fetch" in note for note in notes.values())
        assert notes["lost"].count("web.fetch") == 2
    german = approval_notes("web.search", Voice("de"))
    assert german["not_run"] == (
        "Die Verbindung ist abgebrochen, nachdem Sie web.search freigegeben haben; das Gerät "
        "hat festgehalten, was geschah: Es wurde nicht ausgeführt, also wurde nichts gesendet."
    )
    assert approval_notes("web.search", Voice("en"))["ran"] == (
        "The connection broke after you approved web.search; the appliance kept what "
        "happened: it ran."
    )


def test_every_sentence_here_has_a_key_of_its_own():
    assert len(set(ALL_SENTENCES.values())) == len(ALL_SENTENCES)


@pytest.mark.parametrize(
    ("language", "sending"),
    [
        ("en", "Sending your question"),
        ("de", "Ihre Frage wird gesendet"),
        ("fr", "Envoi de votre question"),
        ("es", "Enviando tu pregunta"),
        ("nl", "Je vraag wordt verzonden"),
        ("it", "Invio la tua domanda"),
        ("tlh", "Sending your question"),
    ],
)
def test_the_words_before_a_turn_are_said_in_the_given_language(language, sending):
    said = before_the_turn(Voice(language))
    assert said["sending"] == sending
    assert said["language"] == (language if language in LANGUAGES else "en")
    assert said["stop"] == say_progress("choosing", None, Voice(language))["stop"]
