"""The household's language decides what a question does not (issue 29 item 3), end to end:
set through ``/api/v1/settings/household``, read by the next turn without a restart.

A question too short to tell its language gets the product's sentences (a facts answer,
a request card, a denial) in the household's language; a question that tells its own
language is answered in it whatever the setting. The facts are this machine's real
``system.health`` reading; the expected sentences are rendered from the same result.
"""

from __future__ import annotations

import json

import pytest

from sovereign.capabilities import system
from sovereign.conversation.answer.facts import panel_lines, render
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.language import SURE, best_guess
from tests.spoken import last_spoken

from .harness import build_harness

SETTING = "/api/v1/settings/household"
UNPLACEABLE_READ = "RAM info"
"""Two words the detector cannot place (checked below): a device read."""
UNPLACEABLE_SEARCH = "solar panels"
"""Two words the detector cannot place: a web search."""
GERMAN_READ = "Wie viel Arbeitsspeicher ist gerade frei?"


def model(messages, tools):
    """Reads the device for a memory question, searches the web for anything else,
    then leaves the answer to the product."""
    last = last_spoken(messages)
    if last["role"] != "user":
        return ModelReply()
    if last["content"] in (UNPLACEABLE_READ, GERMAN_READ):
        return propose("system_health", {"facts": ["memory"]})
    return propose("web_search", {"query": last["content"]})


@pytest.fixture
async def household(tmp_path, clock):
    harness = build_harness(tmp_path, script=model, clock=clock)
    async with harness.client:
        await harness.sign_in()
        yield harness


async def set_language(harness, language: str) -> None:
    response = await harness.post(SETTING, {"language": language})
    assert response.status_code == 200, response.text


async def ask(harness, words: str) -> dict:
    response = await harness.message({"message": words})
    assert response.status_code == 200, response.text
    return response.json()


def memory_said_in(answer: dict, language: str) -> str:
    (fact,) = answer["facts"]
    return " ".join(render(system.FACTS, fact["result"], ["memory"], Voice(language)))


@pytest.mark.parametrize("words", [UNPLACEABLE_READ, UNPLACEABLE_SEARCH])
def test_the_short_questions_here_are_ones_the_detector_cannot_place(words):
    guess = best_guess(words)
    assert len(words.split()) == 2 and guess is not None and guess[1] < SURE


PANEL_HEADINGS = {
    "en": "What the device reported",
    "nl": "Wat het apparaat meldde",
    "it": "Cosa ha riportato l'apparecchio",
    "de": "Was das Gerät gemeldet hat",
}
"""The facts panel's heading, as the catalogs say it."""


async def test_a_short_question_gets_its_facts_in_the_households_language(household):
    english = await ask(household, UNPLACEABLE_READ)  # nothing set: English
    assert english["text"] == memory_said_in(english, "en")
    assert english["facts"][0]["heading"] == PANEL_HEADINGS["en"]
    for language in ("nl", "it", "de"):  # each change applies to the next question
        await set_language(household, language)
        answer = await ask(household, UNPLACEABLE_READ)
        assert answer["text"] == memory_said_in(answer, language)
        assert answer["text"] != memory_said_in(answer, "en")
        (fact,) = answer["facts"]
        assert fact["lines"] == panel_lines(system.FACTS, fact["result"], Voice(language))
        assert fact["heading"] == PANEL_HEADINGS[language]  # the panel's heading too


async def test_a_streamed_answer_carries_the_panel_s_heading_in_the_households_language(
    household,
):
    await set_language(household, "it")
    response = await household.post(
        "/api/v1/conversation/message", {"message": UNPLACEABLE_READ}, Accept="text/event-stream"
    )
    assert response.status_code == 200, response.text
    frames = [dict(line.split(": ", 1) for line in frame.splitlines())
              for frame in response.text.strip().split("\n\n")]  # fmt: skip
    (result,) = [json.loads(frame["data"]) for frame in frames if frame["event"] == "result"]
    (fact,) = result["facts"]
    assert fact["heading"] == "Cosa ha riportato l'apparecchio"


async def test_a_short_question_gets_its_card_and_denial_in_the_households_language(household):
    await household.set_policy(True)
    await set_language(household, "nl")
    asked = await ask(household, UNPLACEABLE_SEARCH)
    assert asked["pending_confirmation"]["capability"] == "web.search"
    assert asked["text"] == (
        "Voordat ik verder ga, heb ik je toestemming nodig om op het web te zoeken."
    )
    token = asked["pending_confirmation"]["token"]
    denied = await household.message({"confirmation": {"token": token, "approve": False}})
    assert denied.json()["text"] == (
        "Je hebt de zoekopdracht op het web geweigerd, dus ik heb het niet opgezocht."
    )
    assert household.searxng.queries == []


@pytest.mark.parametrize("setting", ["en", "fr", "nl"])
async def test_a_clear_german_question_is_answered_in_german_whatever_the_setting(
    household, setting
):
    await set_language(household, setting)
    answer = await ask(household, GERMAN_READ)
    assert answer["text"] == memory_said_in(answer, "de")
    assert "Arbeitsspeicher" in answer["text"]


async def test_a_short_follow_up_keeps_the_language_of_the_conversation_not_the_setting(
    household,
):
    await set_language(household, "it")
    history = [
        {"role": "user", "content": "Wie warm ist das Gerät gerade, und läuft alles rund?"},
        {"role": "assistant", "content": "Alles in Ordnung."},
    ]
    response = await household.message({"message": UNPLACEABLE_READ, "history": history})
    answer = response.json()
    assert answer["text"] == memory_said_in(answer, "de")
