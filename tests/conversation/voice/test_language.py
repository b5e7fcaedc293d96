"""The answer's language is the question's (voice.language).

The sentences here are written for this test and are not the benchmark's.
"""

from __future__ import annotations

import pytest

from sovereign.conversation.voice.language import best_guess, question_language

QUESTIONS = {
    "en": [
        "Could you tell me whether the appliance is running hot?",
        "What share of lookups got filtered this morning?",
        "Is the garden gate sensor reporting anything?",
    ],
    "de": [
        "Kannst du mir sagen, ob die Kiste gerade zu heiß läuft?",
        "Wie viele Werbeanzeigen wurden heute herausgefiltert?",
        "Ist das Licht im Wohnzimmer noch eingeschaltet?",
    ],
    "fr": [
        "Peux-tu me dire si la petite boîte chauffe trop ?",
        "Combien de publicités ont été filtrées ce matin ?",
        "Est-ce que la lumière du salon est encore allumée ?",
    ],
    "es": [
        "¿Me puedes decir si el aparato se está calentando demasiado?",
        "¿Cuántos anuncios se han filtrado esta mañana?",
        "¿Sigue encendida la luz del salón?",
    ],
    "nl": [
        "Kun je me vertellen of het kastje te warm wordt?",
        "Hoeveel advertenties zijn er vanochtend weggefilterd?",
        "Brandt het licht in de woonkamer nog?",
    ],
    "it": [
        "Mi sai dire se l'apparecchio si sta scaldando troppo?",
        "Quante pubblicità sono state filtrate stamattina?",
        "La luce del soggiorno è ancora accesa?",
    ],
}


@pytest.mark.parametrize(
    ("language", "question"),
    [(language, q) for language, questions in QUESTIONS.items() for q in questions],
)
def test_a_whole_question_is_answered_in_its_own_language(language, question):
    assert question_language([question], household="en") == language


@pytest.mark.parametrize(
    ("earlier", "follow_up", "language"),
    [
        ("Wie viel Arbeitsspeicher ist gerade frei?", "Und die Platte?", "de"),
        ("¿Cuántos anuncios se han bloqueado hoy?", "¿Y ayer?", "es"),
        ("Quelle est la température de la cuisine ?", "Et dehors ?", "fr"),
    ],
)
def test_a_short_follow_up_is_read_with_the_conversation_before_it(earlier, follow_up, language):
    assert question_language([earlier, follow_up], household="en") == language


@pytest.mark.parametrize("text", ["ok", "42", "?!", "RAM?"])
def test_what_cannot_be_told_falls_back_to_the_households_setting(text):
    assert question_language([text], household="nl") == "nl"
    assert question_language([text], household="xx") == "en"


def test_text_without_letters_has_no_language_and_nothing_asked_speaks_the_setting():
    assert best_guess("12 + 7 = ?") is None
    assert question_language([], household="it") == "it"
