"""A turn's receipt is said in the turn's language on its wire object, answered or failed,
and names where each call went from that call's own arguments (voice.receipts)."""

from __future__ import annotations

import pytest

from sovereign.conversation import ModelUnavailable, TurnFailed
from sovereign.conversation.backends.scripted import propose

from .conftest import NOTES_PAGE_URL, OFF, ON

ASK_FETCH_IT = [{"role": "user", "content": "Leggi la pagina https://news.example/notes per me"}]
ASK_HOT_DE = [{"role": "user", "content": "Wie heiß ist mein Gerät gerade?"}]
FETCH = propose("web_fetch", {"url": NOTES_PAGE_URL})


async def test_an_answered_turn_carries_its_receipt_in_the_question_s_language(world):
    loop, _ = world.loop([propose("system_health"), "Alles in Ordnung."])
    wire = (await loop.process_turn(ASK_HOT_DE, policy=OFF, owner="s1")).to_wire()
    assert wire["receipt"] == {
        "headline": "Alles ist auf diesem Gerät geblieben.",
        "lines": ["Zustand dieses Geräts: lief auf diesem Gerät"],
        "stayed_local": True,
        "label": "Beleg",
    }


async def test_a_card_carries_the_receipt_of_what_ran_before_it_in_the_turn_s_language(world):
    loop, _ = world.loop([FETCH], household_language=lambda: "it")
    halted = await loop.process_turn(ASK_FETCH_IT, policy=ON, owner="s1")
    assert halted.pending_confirmation is not None
    assert halted.to_wire()["receipt"]["headline"] == "Tutto è rimasto su questo apparecchio."


async def test_a_card_carries_the_notes_for_a_broken_answer_in_the_turn_s_language(world):
    loop, _ = world.loop([FETCH], household_language=lambda: "it")
    notes = (await loop.process_turn(ASK_FETCH_IT, policy=ON, owner="s1")).to_wire()[
        "approval_notes"
    ]
    assert notes["not_run"] == (
        "La connessione si è interrotta dopo che hai approvato web.fetch; l'apparecchio ha "
        "tenuto traccia di quello che è successo: non è stato eseguito, quindi non è stato "
        "inviato nulla."
    )
    assert notes["lost"].startswith("La connessione si è interrotta dopo che hai approvato")


async def test_an_answer_without_a_card_carries_no_notes_for_one(world):
    loop, _ = world.loop([propose("system_health"), "Alles in Ordnung."])
    wire = (await loop.process_turn(ASK_HOT_DE, policy=OFF, owner="s1")).to_wire()
    assert "approval_notes" not in wire


async def test_a_failure_after_an_approved_fetch_names_its_host_in_the_turn_s_language(world):
    loop, _ = world.loop([FETCH, ModelUnavailable("gone")], household_language=lambda: "it")
    halted = await loop.process_turn(ASK_FETCH_IT, policy=ON, owner="s1")
    with pytest.raises(TurnFailed) as failed:
        await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s1")
    assert world.calls.of("web.fetch") == [{"url": NOTES_PAGE_URL}]
    wire = failed.value.to_wire()
    assert wire["receipt"] == {
        "headline": "Uscito da questo apparecchio verso: news.example.",
        "lines": ["Lettura di una pagina web: inviato verso news.example"],
        "stayed_local": False,
        "label": "Resoconto",
    }
    assert wire["receipts"] == failed.value.provenance()["receipts"]  # the data, unchanged
    assert {citation["heading"] for citation in wire["citations"]} == {"Fonti"}


async def test_a_denial_then_a_failure_says_nothing_was_sent_in_the_turn_s_language(world):
    loop, _ = world.loop([FETCH, ModelUnavailable("gone")], household_language=lambda: "it")
    halted = await loop.process_turn(ASK_FETCH_IT, policy=ON, owner="s1")
    with pytest.raises(TurnFailed) as failed:
        await loop.resume_turn(halted.pending_confirmation.token, False, policy=ON, owner="s1")
    assert failed.value.to_wire()["receipt"] == {
        "headline": "Tutto è rimasto su questo apparecchio.",
        "lines": ["Lettura di una pagina web: rifiutato da te; non è stato inviato nulla"],
        "stayed_local": True,
        "label": "Resoconto",
    }
