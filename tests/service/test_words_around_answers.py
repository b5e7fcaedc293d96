"""The product's words around an answer travel on the wire in the answer's language, end
to end: each streamed ``progress`` event's ``words``, ``stop`` and ``stopping``; the
receipt's ``label``; each citation's ``heading``; and a card's ``approval_notes``, said
ahead for an approval whose answer might break off. The questions here are too short to
tell their language, so the household's language setting decides it."""

from __future__ import annotations

import pytest

from .test_household_language_turns import UNPLACEABLE_READ, UNPLACEABLE_SEARCH, set_language
from .test_receipt_language import household, model  # noqa: F401 (the fixture)
from .test_streaming import stream_all


def progress_of(events) -> list[dict]:
    return [data for kind, data in events if kind == "progress"]


@pytest.mark.parametrize(
    ("language", "choosing", "checking", "stop"),
    [
        ("en", "Reading your question and choosing what to check",
         "Checking the device's health", "Stop"),
        ("de", "Ich lese Ihre Frage und wähle aus, was ich nachsehe",
         "Ich prüfe den Zustand des Geräts", "Anhalten"),
        ("es", "Leyendo tu pregunta y eligiendo qué consultar",
         "Comprobando el estado del aparato", "Detener"),
        ("nl", "Ik lees je vraag en kies wat ik nakijk",
         "Ik controleer hoe het met het apparaat gaat", "Stoppen"),
    ],
)  # fmt: skip
async def test_each_stage_of_a_streamed_turn_is_said_in_the_turn_s_language(
    household,  # noqa: F811
    language,
    choosing,
    checking,
    stop,
):
    await set_language(household, language)
    _, events = await stream_all(household, {"message": UNPLACEABLE_READ})
    progress = progress_of(events)
    assert progress[0] == {
        "stage": "choosing",
        "capability": None,
        "language": language,
        "words": choosing,
        "stop": stop,
        "stopping": progress[0]["stopping"],
    }
    assert {"stage": "checking", "capability": "system.health", "words": checking} in [
        {key: event[key] for key in ("stage", "capability", "words")} for event in progress
    ]
    assert {event["stop"] for event in progress} == {stop}


async def test_an_approved_search_is_said_in_progress_and_sources_in_italian(household):  # noqa: F811
    await household.set_policy(True)
    await set_language(household, "it")
    _, events = await stream_all(household, {"message": UNPLACEABLE_SEARCH})
    halted = events[-1][1]
    assert halted["receipt"]["label"] == "Resoconto"
    assert halted["approval_notes"]["ran"] == (
        "La connessione si è interrotta dopo che hai approvato web.search; l'apparecchio ha "
        "tenuto traccia di quello che è successo: è stato eseguito."
    )
    approve = {"confirmation": {"token": halted["pending_confirmation"]["token"], "approve": True}}
    _, events = await stream_all(household, approve)
    words = [event["words"] for event in progress_of(events)]
    assert "Cerco sul web" in words
    answer = events[-1][1]
    assert answer["citations"] and {c["heading"] for c in answer["citations"]} == {"Fonti"}
    assert "approval_notes" not in answer  # no card waits any more


async def test_a_card_in_french_carries_its_notes_and_english_ones_in_english(household):  # noqa: F811
    await household.set_policy(True)
    english = (await household.message({"message": UNPLACEABLE_SEARCH})).json()
    assert english["approval_notes"]["lost"] == (
        "The connection broke after you approved web.search, and the appliance could not tell "
        "what happened. Whether web.search ran is unknown; Activity shows it once the "
        "appliance answers again (a call that started is listed even if its outcome is lost)."
    )
    await set_language(household, "fr")
    french = (await household.message({"message": UNPLACEABLE_SEARCH})).json()
    assert french["approval_notes"]["failed"] == (
        "La connexion a été coupée après que vous avez approuvé web.search ; l'appareil a "
        "gardé ce qui s'est passé : la requête a été tentée et a échoué, elle a donc "
        "peut-être quitté l'appareil."
    )
    assert french["receipt"]["label"] == "Récapitulatif"
