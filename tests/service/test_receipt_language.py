"""The receipt under an answer is said in the answer's language, end to end: on the plain
response, the stream's ``result`` event, the ``error`` body of a turn that failed after a
call ran (plain and streamed) and a withdrawn card's answer (``receipt``, beside the
``receipts`` it is said from). The questions here are too short to tell their language,
so the household's language setting decides it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from sovereign.conversation.backends.base import ModelReply, ModelUnavailable
from sovereign.conversation.backends.scripted import propose
from tests.spoken import deciding, last_spoken

from .harness import build_harness
from .test_household_language_turns import UNPLACEABLE_READ, UNPLACEABLE_SEARCH, set_language
from .test_streaming import answer_of, stream

WITHDRAW = "/api/v1/conversation/withdraw"
SENT_IT = {
    "headline": "Uscito da questo apparecchio verso: i motori di ricerca.",
    "lines": ["Ricerca sul web: inviato verso i motori di ricerca"],
    "stayed_local": False,
    "label": "Resoconto",
}


def model(after_a_result: Any):
    """Reads the device for the read, searches the web for anything else; once a call
    answered, replies ``after_a_result``."""

    def reply(messages: list[dict[str, Any]], tools: Any) -> Any:
        if not deciding(messages):
            return after_a_result
        if last_spoken(messages)["content"] == UNPLACEABLE_READ:
            return propose("system_health", {"facts": ["memory"]})
        return propose("web_search", {"query": last_spoken(messages)["content"]})

    return reply


@pytest.fixture
async def household(tmp_path, clock):
    harness = build_harness(tmp_path, script=model(ModelReply()), clock=clock)
    async with harness.client:
        await harness.sign_in()
        yield harness


async def test_an_answer_and_its_stream_carry_the_receipt_in_the_households_language(household):
    english = (await household.message({"message": UNPLACEABLE_READ})).json()
    assert english["receipt"] == {
        "headline": "Stayed on this device.",
        "lines": ["This device's health: ran on this device"],
        "stayed_local": True,
        "label": "Receipt",
    }
    await set_language(household, "de")
    german = (await household.message({"message": UNPLACEABLE_READ})).json()
    said = {
        "headline": "Alles ist auf diesem Gerät geblieben.",
        "lines": ["Zustand dieses Geräts: lief auf diesem Gerät"],
        "stayed_local": True,
        "label": "Beleg",
    }
    assert german["receipt"] == said
    unnamed = [{k: v for k, v in r.items() if k != "name"} for r in german["receipts"]]
    assert unnamed == [{k: v for k, v in r.items() if k != "name"} for r in english["receipts"]]
    assert [r["name"] for r in english["receipts"]] == ["This device's health"]
    assert [r["name"] for r in german["receipts"]] == ["Zustand dieses Geräts"]  # as said
    _, events = await stream(household, {"message": UNPLACEABLE_READ})
    kind, result = events[-1]
    assert kind == "result" and result["receipt"] == said


async def test_an_approved_search_s_receipt_is_said_in_the_households_language(household):
    await household.set_policy(True)
    await set_language(household, "it")
    halted = (await household.message({"message": UNPLACEABLE_SEARCH})).json()
    assert halted["receipts"] == [] and halted["receipt"]["headline"] == (
        "Tutto è rimasto su questo apparecchio."
    )
    approve = {"confirmation": {"token": halted["pending_confirmation"]["token"], "approve": True}}
    answer = (await household.message(approve)).json()
    assert answer["receipt"] == SENT_IT
    assert household.searxng.queries == [UNPLACEABLE_SEARCH]


async def test_a_search_that_never_reached_the_search_service_says_so_in_german(household):
    def refuse() -> None:
        raise httpx.ConnectError("connection refused")

    household.searxng.on_request = refuse
    await household.set_policy(True)
    await set_language(household, "de")
    halted = (await household.message({"message": UNPLACEABLE_SEARCH})).json()
    approve = {"confirmation": {"token": halted["pending_confirmation"]["token"], "approve": True}}
    answer = (await household.message(approve)).json()
    assert answer["receipts"][0]["sent"] is False
    assert answer["receipt"] == {
        "headline": "Nichts hat dieses Gerät verlassen: der Suchdienst des Geräts läuft nicht.",
        "lines": [
            "Websuche: fehlgeschlagen, bevor etwas dieses Gerät verlassen hat "
            "(der Suchdienst des Geräts läuft nicht)"
        ],
        "stayed_local": True,
        "label": "Beleg",
    }


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
async def test_a_turn_that_fails_after_its_search_ran_says_the_receipt_in_its_language(
    tmp_path, clock, streamed
):
    harness = build_harness(tmp_path, script=model(ModelUnavailable("gone")), clock=clock)
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        await set_language(harness, "it")
        halted = (await harness.message({"message": UNPLACEABLE_SEARCH})).json()
        token = halted["pending_confirmation"]["token"]
        approve = {"confirmation": {"token": token, "approve": True}}
        status, kind, body = await answer_of(harness, approve, streamed=streamed)
    assert kind == "error" and (streamed or status == 503)
    assert body["error"]["code"] == "MODEL_UNAVAILABLE"
    assert [r["outcome"] for r in body["receipts"]] == ["executed"]
    assert body["receipt"] == SENT_IT


async def test_a_withdrawn_card_s_receipt_is_said_in_the_households_language(household):
    await household.set_policy(True)
    await set_language(household, "nl")
    halted = (await household.message({"message": UNPLACEABLE_SEARCH})).json()
    withdrawn = await household.post(WITHDRAW, {"token": halted["pending_confirmation"]["token"]})
    assert withdrawn.status_code == 200
    assert withdrawn.json() == {
        "receipts": [{"capability": "web.search", "locality": "external", "outcome": "denied",
                      "name": "Zoeken op het web"}],
        "receipt": {
            "headline": "Alles is op dit apparaat gebleven.",
            "lines": ["Zoeken op het web: door jou geweigerd; er is niets verstuurd"],
            "stayed_local": True,
            "label": "Overzicht",
        },
        "language": "nl",
    }
