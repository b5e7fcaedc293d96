"""Every sentence about a call that did not run is one the assistant may say, in every
language (voice.sentences, voice.prompts)."""

from __future__ import annotations

import json
import re

import pytest

from sovereign.conversation.offer.catalog import ToolCatalog, Withheld
from sovereign.conversation.voice.catalogs import LANGUAGES, Voice
from sovereign.conversation.voice.prompts import (
    DEFAULT_SYSTEM_PROMPT,
    UNTRUSTED_NOTICE,
    frame_denial,
    frame_not_asked,
    frame_outcome,
    frame_unparseable,
    system_prompt,
)
from sovereign.conversation.voice.sentences import (
    did_not_run,
    own,
    stand_in_subject,
    unavailable_sentence,
)
from sovereign.executor import CODES, ErrorCode, Outcome, OutcomeKind, Stage

NAMES = [
    "web.search",
    "web.fetch",
    "system.health",
    "pihole.summary",
    "home_assistant.get_state",
    "home_assistant.list_entities",
]
INSTRUCTIONS = re.compile(
    r"\b(do not|don't|never|propose|tell the user|answer without|the user|the household|"
    r"guidance|must)\b",
    re.IGNORECASE,
)


def sayable(sentence: str, language: str = "en") -> None:
    """A whole sentence with nothing left to fill in; in English, no instruction."""
    assert sentence and sentence[0].isupper(), sentence
    assert sentence.rstrip().endswith((".", ")", "\u201d", "\u00bb", "\u201c", "\u2019")), sentence
    assert "{" not in sentence and "}" not in sentence and "_" not in sentence, sentence
    if language == "en":
        assert not INSTRUCTIONS.search(sentence), sentence


def outcome(capability, code: ErrorCode) -> Outcome:
    return Outcome(
        capability.name,
        1,
        Stage.VALIDATE,
        CODES[code].kind,
        code,
        "a detail",
        capability=capability,
    )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "code", [c for c in ErrorCode if c is not ErrorCode.CONFIRMATION_REQUIRED], ids=str
)
def test_every_refusal_and_failure_is_said_to_the_person_asking(
    capabilities, name, code, language
):
    framed = json.loads(frame_outcome(outcome(capabilities[name], code), Voice(language)))
    mistaken = code is ErrorCode.INVALID_ARGUMENTS  # the model's own: told what was wrong
    assert set(framed) == {"capability", "status", "message", "error_code"} | (
        {"detail"} if mistaken else set()
    )
    sayable(framed["message"], language)
    assert "a detail" not in framed["message"]  # details are for the owner, not the answer
    assert framed.get("detail") == ("a detail" if mistaken else None)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_denials_expiries_and_unasked_calls_are_said_to_the_person_asking(
    capabilities, name, language
):
    capability, voice = capabilities[name], Voice(language)
    for framed in (
        frame_denial(name, capability, voice, expired=False),
        frame_denial(name, capability, voice, expired=True),
        frame_not_asked(name, capability, voice),
        frame_unparseable(name, capability, voice),
    ):
        sayable(json.loads(framed)["message"], language)


def test_a_denial_says_who_declined_what_and_quotes_the_reason(capabilities):
    search = capabilities["web.search"]
    framed = json.loads(
        frame_denial("web.search", search, Voice("en"), expired=False, reason=" not\ntoday ")
    )
    assert framed == {
        "capability": "web_search",
        "status": "denied",
        "message": "You declined the web search, so I didn't look it up. You said: “not today”.",
    }
    german = frame_denial("web.search", search, Voice("de"), expired=False, reason="heute nicht")
    assert json.loads(german)["message"] == (
        "Sie haben die Websuche abgelehnt, also habe ich es nicht nachgeschlagen. "
        "Sie sagten: „heute nicht“."
    )


def test_a_capability_without_phrases_of_its_own_gets_plain_true_sentences(capabilities):
    for status in ("denied", "expired", "not_asked", "failed", "refused"):
        for language in LANGUAGES:
            sayable(did_not_run(None, status, Voice(language)), language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_policy_refusal_says_switched_off_only_when_the_capability_is_set_up(
    capabilities, language, tmp_path
):
    voice = Voice(language)
    capability = capabilities["home_assistant.get_state"]  # no settings file: not set up
    refused = did_not_run(capability, "refused", voice, code=ErrorCode.POLICY_DISABLED)
    assert refused == unavailable_sentence(capability, "unavailable", voice)
    assert refused != unavailable_sentence(capability, "switched_off", voice)
    web = did_not_run(capabilities["web.search"], "refused", voice, code=ErrorCode.POLICY_DISABLED)
    assert web == unavailable_sentence(capabilities["web.search"], "switched_off", voice)


def test_a_failure_does_not_ask_whether_the_capability_is_set_up(capabilities):
    capability = capabilities["home_assistant.get_state"]
    failed = did_not_run(capability, "failed", Voice("en"), code=ErrorCode.TIMEOUT)
    assert failed.startswith("I tried to read Home Assistant, but it failed")


def test_stand_ins_are_named_for_the_family_and_what_is_missing(capabilities):
    assert stand_in_subject(capabilities["web.fetch"], "switched_off")[0] == "web_switched_off"
    assert stand_in_subject(capabilities["web.search"], "switched_off")[0] == "web_switched_off"
    assert stand_in_subject(capabilities["pihole.summary"], "unavailable")[0] == (
        "pihole_not_set_up"
    )
    assert stand_in_subject(capabilities["system.health"], "unavailable") is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_system_prompt_names_each_withheld_family_once(capabilities, language):
    withheld = (
        Withheld("home_assistant.get_state", "unavailable", "home_assistant_enabled"),
        Withheld("home_assistant.list_entities", "unavailable", "home_assistant_enabled"),
        Withheld("web.fetch", "switched_off", "external_enabled"),
        Withheld("web.search", "switched_off", "external_enabled"),
    )
    voice = Voice(language)
    catalog = ToolCatalog([], withheld, capabilities=capabilities)
    sentences = catalog.unavailable_sentences(voice)
    assert len(sentences) == 2
    prompt = system_prompt(DEFAULT_SYSTEM_PROMPT, sentences)
    for sentence in sentences:
        assert prompt.count(sentence) == 1
    nothing_withheld = ToolCatalog([]).unavailable_sentences(voice)
    assert system_prompt(DEFAULT_SYSTEM_PROMPT, nothing_withheld) == DEFAULT_SYSTEM_PROMPT


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_conversations_own_sentences_are_said_in_every_language(language):
    voice = Voice(language)
    keys = ("budget_spent", "no_answer", "cannot_change", "not_among_readable", "asks_approval")
    for key in (*keys, "cut_off"):
        sayable(own(key, voice), language)
    unreadable = own("unreadable", voice, addresses="http://router.local/")
    assert "http://router.local/" in unreadable and "{" not in unreadable


def test_the_system_prompt_and_notice_speak_of_the_person_not_of_the_household():
    for text in (DEFAULT_SYSTEM_PROMPT, UNTRUSTED_NOTICE):
        assert "household" not in text and "the user" not in text


def test_a_stated_household_fact_reaches_the_model_as_what_was_said_not_as_the_figures(
    capabilities,
):
    executed = Outcome(
        "system.health",
        1,
        Stage.SHAPE,
        OutcomeKind.EXECUTED,
        result={"memory_available_gb": 5.3},
        capability=capabilities["system.health"],
    )
    framed = json.loads(frame_outcome(executed, Voice("en"), stated=["5.3 GB of memory is free."]))
    assert framed == {
        "capability": "system_health",
        "status": "executed",
        "said_to_the_person": "5.3 GB of memory is free.",
    }
