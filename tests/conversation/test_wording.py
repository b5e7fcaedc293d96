"""Every sentence the turn loop writes about a call is one the assistant may say as it is."""

from __future__ import annotations

import json
import re

import pytest

from sovereign.conversation.offer.catalog import ToolCatalog, Withheld
from sovereign.conversation.voice.prompts import (
    DEFAULT_SYSTEM_PROMPT,
    UNTRUSTED_NOTICE,
    frame_denial,
    frame_not_asked,
    frame_outcome,
    frame_unparseable,
    system_prompt,
)
from sovereign.conversation.voice.sentences import did_not_run, unavailable_sentence
from sovereign.executor import CODES, ErrorCode, Outcome, OutcomeKind, Stage

CAPABILITIES = [
    "web.search",
    "web.fetch",
    "system.health",
    "pihole.summary",
    "home_assistant.get_state",
    "home_assistant.list_entities",
    "weather.forecast",  # a family this module has no words for
]
INSTRUCTIONS = re.compile(
    r"\b(do not|don't|never|propose|tell the user|answer without|the user|the household|"
    r"guidance|must)\b",
    re.IGNORECASE,
)
DETAILS = {
    ErrorCode.INVALID_ARGUMENTS: "light.garage is not on the household's Home Assistant allowlist.",
    ErrorCode.FETCH_TARGET_REJECTED: "127.0.0.1 is not an allowed destination (deny: loopback)",
    ErrorCode.EXECUTION_FAILED: "SearXNG is not reachable at http://127.0.0.1:8093",
    ErrorCode.AUDIT_UNAVAILABLE: "the data filesystem is full",
}


def sayable(sentence: str) -> None:
    """Second person to the household, first person for the assistant, no instruction."""
    assert sentence and sentence[0].isupper() and sentence.rstrip().endswith((".", ")"))
    assert not INSTRUCTIONS.search(sentence), sentence
    assert "{" not in sentence and "_" not in sentence.replace("light.garage", ""), sentence


def outcome(name: str, code: ErrorCode, policy_key: str | None = None) -> Outcome:
    return Outcome(
        name,
        1,
        Stage.VALIDATE,
        CODES[code].kind,
        code,
        DETAILS.get(code, "It took longer than 10 seconds."),
    )


@pytest.mark.parametrize("capability", CAPABILITIES)
@pytest.mark.parametrize(
    "code", [c for c in ErrorCode if c is not ErrorCode.CONFIRMATION_REQUIRED], ids=str
)
def test_every_refusal_and_failure_is_said_to_the_person_asking(capability, code):
    framed = json.loads(frame_outcome(outcome(capability, code)))
    assert set(framed) == {"capability", "status", "message", "error_code"}
    sayable(framed["message"])


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_denials_expiries_and_unasked_calls_are_said_to_the_person_asking(capability):
    for framed in (
        frame_denial(capability, expired=False),
        frame_denial(capability, expired=True),
        frame_not_asked(capability),
        frame_unparseable(capability, "arguments were not valid JSON"),
    ):
        sayable(json.loads(framed)["message"])


def test_a_denial_says_who_declined_what_and_what_did_not_happen():
    framed = json.loads(frame_denial("web.search", expired=False, reason="not today"))
    assert framed == {
        "capability": "web_search",
        "status": "denied",
        "message": 'You declined the web search (you said: "not today"), so I didn\'t look it up.',
    }


def test_the_household_is_never_spoken_of_in_the_third_person_even_in_details():
    sentence = did_not_run(
        "home_assistant.get_state",
        "refused",
        code=ErrorCode.INVALID_ARGUMENTS,
        detail=DETAILS[ErrorCode.INVALID_ARGUMENTS],
    )
    assert sentence == (
        "I couldn't run the Home Assistant check: light.garage is not on your Home "
        "Assistant allowlist."
    )


def test_a_switched_off_search_says_how_to_switch_it_on():
    refused = Outcome("web.search", 1, Stage.POLICY, OutcomeKind.REFUSED, ErrorCode.POLICY_DISABLED)
    message = did_not_run(
        "web.search", "refused", code=ErrorCode.POLICY_DISABLED, policy_key="external_enabled"
    )
    assert message.endswith("You can switch it on in the Console.")
    assert json.loads(frame_outcome(refused))["message"].startswith("That is switched off")


@pytest.mark.parametrize(
    ("set_up", "said"),
    [
        (
            True,
            "Home Assistant is switched off on this device, so I can't read your home's "
            'sensors, lights or locks. You can switch it on by setting "enabled" to true '
            "in its settings file, home-assistant.json.",
        ),
        (
            False,
            "Home Assistant is not set up on this device, so I can't read your home's "
            "sensors, lights or locks.",
        ),
    ],
)
def test_a_home_assistant_refusal_says_switched_off_only_when_it_is_set_up(set_up, said):
    for name in ("home_assistant.get_state", "home_assistant.list_entities"):
        message = did_not_run(
            name,
            "refused",
            code=ErrorCode.POLICY_DISABLED,
            policy_key="home_assistant_enabled",
            set_up=set_up,
        )
        assert message == said
        sayable(message)
    switch = Withheld("home_assistant.get_state", "switched_off", "home_assistant_enabled")
    missing = Withheld("home_assistant.get_state", "unavailable", "home_assistant_enabled")
    assert unavailable_sentence(*vars(switch if set_up else missing).values()) == said


def test_only_a_policy_refusal_asks_whether_the_capability_is_set_up():
    failed = did_not_run("home_assistant.get_state", "failed", code=ErrorCode.TIMEOUT, set_up=False)
    assert failed.startswith("I tried the Home Assistant check, but it failed")


@pytest.mark.parametrize(
    "withheld",
    [
        Withheld("web.search", "switched_off", "external_enabled"),
        Withheld("home_assistant.get_state", "unavailable", "home_assistant_enabled"),
        Withheld("home_assistant.get_state", "switched_off", "home_assistant_enabled"),
        Withheld("pihole.summary", "unavailable"),
        Withheld("weather.forecast", "switched_off", "weather_enabled"),
        Withheld("weather.forecast", "unavailable"),
    ],
)
def test_what_a_turn_withholds_is_said_in_words_the_assistant_may_use(withheld):
    sentence = unavailable_sentence(withheld.capability, withheld.why, withheld.policy_key)
    assert not INSTRUCTIONS.search(sentence)
    assert "I can't" in sentence


def test_the_system_prompt_names_each_withheld_family_once():
    withheld = (
        Withheld("home_assistant.get_state", "unavailable", "home_assistant_enabled"),
        Withheld("home_assistant.list_entities", "unavailable", "home_assistant_enabled"),
        Withheld("web.fetch", "switched_off", "external_enabled"),
        Withheld("web.search", "switched_off", "external_enabled"),
    )
    prompt = system_prompt(DEFAULT_SYSTEM_PROMPT, ToolCatalog([], withheld).unavailable_sentences())
    assert prompt.count("Home Assistant is not set up") == 1
    assert prompt.count("Web search is switched off") == 1
    nothing_withheld = ToolCatalog([]).unavailable_sentences()
    assert system_prompt(DEFAULT_SYSTEM_PROMPT, nothing_withheld) == DEFAULT_SYSTEM_PROMPT


def test_the_system_prompt_and_notice_speak_of_the_person_not_of_the_household():
    for text in (DEFAULT_SYSTEM_PROMPT, UNTRUSTED_NOTICE):
        assert "household" not in text and "the user" not in text
