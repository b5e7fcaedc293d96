"""A bare "Yes" or "No" states the question's claim and is checked like one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sovereign.capabilities.system import NO_SENSOR_NOTE
from sovereign.conversation.answer.grounding import (
    Grounds,
    GuardedSink,
    retry_note,
    unanswered_parts,
    unsupported,
)
from sovereign.conversation.answer.replies import reply_to, unbacked
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from tests.conversation.one_capability import loop_over, registry_with

NO_SENSOR = {
    "cpu_temperature_celsius": None,
    "cpu_temperature_note": NO_SENSOR_NOTE,
    "cpu_load_note": "The CPU is busy (load 3.1 over the last minute, 4 cores).",
    "load_average_1m": 3.1,
    "cpu_busy": True,
    "disk_space_note": "The system disk has plenty of space left (23.4 % used).",
    "disk_used_percent": 23.4,
    "disk_space_low": False,
}
PIHOLE = {"dns_queries": 10475, "ads_blocked": 1620, "period": "last_24_hours"}


def checked(question: str, answer: str, *results, world=()) -> list[str]:
    return unsupported(answer, Grounds.of(list(results), [question], 0, world=list(world)))


@pytest.mark.parametrize(
    "question,answer",
    [
        # No result reads a temperature, so neither "yes" nor "no" may answer "hot?".
        ("Is the CPU hot?", "Yes, the CPU is overloaded."),
        ("Is the CPU hot?", "No."),
        ("is the cpu hot", "yes"),
        ("Hey Sovereign, is my Pi overheating?", "Yeah, it's working hard."),
        ("Can you tell me if the processor is too warm?", "Nope!"),
        ("Could you check whether the box is hot?", "Yes \u2014 the load is 3.1."),
        # Verdicts the result states, answered against it.
        ("Is the box running low on disk space?", "Yes, the box is not running low on disk space."),
        ("Is the disk almost full?", "Yep."),
        ("Is the SD card nearly full?", "Yes it is."),
        ("Is the CPU busy?", "No, it's fine."),
        ("Is the CPU not busy?", "Yes."),  # "not busy", affirmed, where it is busy
        ("Is the CPU idle?", "Yes, it is."),  # a counter word, affirmed
        ("Is there enough disk space?", "No, it is full."),
        # A kind of state nothing read.
        ("Is the front door locked?", "No."),
        ("Is the garage door open?", "Yes, it is."),
    ],
)
def test_a_reply_nothing_read_backs_is_not_supported(question, answer):
    assert checked(question, answer, NO_SENSOR), (question, answer)


@pytest.mark.parametrize(
    "question,answer",
    [
        ("Is the box running low on disk space?", "No, only 23.4 % is used."),
        ("Is the disk almost full?", "No."),
        ("Is the CPU busy?", "Yes, the load is 3.1."),
        ("Is the CPU not busy?", "No, it is busy."),
        ("Is the CPU idle?", "No, it is busy."),  # the "No" negates nothing after it
        ("Is there plenty of room on the SD card?", "Yes."),
        # The first clause says it could not be read.
        ("Is the CPU hot?", "No, I can't read the temperature: there is no sensor."),
        ("Is the CPU hot?", "No sensor is available, so I can't tell."),
        ("Is the front door locked?", "No, I cannot check your locks from here."),
        ("Is the CPU hot?", "No, the temperature is not available on this device."),
        # Not a yes/no question, or one whose yes and no are ambiguous.
        ("How hot is the CPU?", "No sensor reads it: the temperature is unknown."),
        ("What is the disk use?", "23.4 % is used."),
        ("Isn't the CPU busy?", "No."),
        ("Is the CPU busy or idle?", "Busy: the load is 3.1."),
        ("Is the disk low or is the CPU busy?", "Yes."),
        ("Is the system disk low on space, and is the CPU busy?", "No."),
        ("Is the CPU busy and is the disk low on space?", "Yes, the CPU is busy."),
        ("Is the CPU hot, and is the front door locked?", "No."),
        # Not a leading yes or no.
        ("Is the disk low on space?", "Nobody needs to worry: 23.4 % is used."),
        ("Is the disk low on space?", "Not at all: 23.4 % is used."),
        ("Is the disk low on space?", "No problem there: 23.4 % is used."),
        # A yes/no question about nothing the checks know.
        ("Is Pi-hole blocking ads?", "Yes, it blocked 1,620 ads."),
    ],
)
def test_a_backed_or_unchecked_reply_passes(question, answer):
    assert checked(question, answer, NO_SENSOR, PIHOLE) == [], (question, answer)


def test_a_verdict_no_result_states_needs_a_web_source_to_be_answered():
    # "Is the CPU busy?" after reading only Pi-hole's totals: a "Yes" stands on nothing.
    assert checked("Is the CPU busy?", "Yes.", PIHOLE) == ["Yes"]
    # A web source's text may say anything: its page is the model's evidence.
    page = {"url": "https://example.org/pi", "text": "The Pi 5 gets busy under load."}
    assert checked("Is the CPU busy?", "Yes.", PIHOLE, world=[page]) == []


def test_a_reply_is_read_only_at_the_start_of_the_answer():
    assert reply_to("The CPU is busy. Yes.", "Is the CPU hot?") is None
    reply = reply_to("\u201cNo,\u201d the box says.", "Is the CPU hot?")
    assert reply is not None and not reply.affirms
    assert reply_to("Yes.", "Tell me about the CPU.") is None


@pytest.mark.parametrize("word", ["Yes", "YES", "yeah", "Yep", "yup"])
def test_every_spelling_of_yes_affirms(word):
    reply = reply_to(f"{word}, it is.", "Is the CPU busy?")
    assert reply is not None and reply.affirms and reply.word == word


def test_the_retry_note_names_the_right_reply_or_what_could_not_be_read():
    grounds = Grounds.of([NO_SENSOR], ["Is the box running low on disk space?"], 0)
    note = retry_note(grounds, "Yes, the box is not running low on disk space.")
    assert 'the disk is not low on space, so the reply to the question is "No", not "Yes"' in note
    grounds = Grounds.of([NO_SENSOR], ["Is the CPU hot?"], 0)
    note = retry_note(grounds, "Yes, the CPU is overloaded.")
    assert "Nothing read in this turn says whether the CPU is hot" in note
    grounds = Grounds.of([NO_SENSOR], ["Is the front door locked?"], 0)
    assert "gives a lock's state" in retry_note(grounds, "No.")


def test_unbacked_names_the_verdict_and_its_polarity():
    [problem] = unbacked(
        "Yes.",
        "Is the disk almost full?",
        read=frozenset(),
        verdicts={"disk_space_low": False},
        world=False,
    )
    assert problem.verdict is not None and problem.verdict.key == "disk_space_low"
    assert problem.holds is True and problem.word == "Yes"


async def test_a_streamed_bare_yes_is_held_back():
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    guard = GuardedSink(sink, Grounds.of([NO_SENSOR], ["Is the CPU hot?"], 0))
    for piece in ["Yes", ". The", " CPU is", " overloaded. "]:
        await guard(piece)
    assert guard.tripped and shown == []


ASK_HOT = [{"role": "user", "content": "Is the CPU hot?"}]


async def test_a_bare_yes_about_an_unread_temperature_is_asked_again_then_answered_plainly(
    tmp_path: Path,
):
    script = [
        propose("system_health"),
        ModelReply(),
        "Yes, the CPU is overloaded.",
        "Yes, it is.",
    ]
    loop, backend = loop_over(script, tmp_path, registry_with("system.health", NO_SENSOR))
    result = await loop.process_turn(ASK_HOT, policy={}, owner="o")
    assert "says whether the CPU is hot" in backend.requests[-1].messages[0]["content"]
    assert not result.text.startswith("Yes")
    assert "CPU temperature unknown (no sensor)" in result.text


async def test_a_reply_that_says_it_could_not_read_is_kept(tmp_path: Path):
    answer = "No, I can't tell: this device has no temperature sensor. The CPU is busy, though."
    script = [propose("system_health"), ModelReply(), answer]
    loop, backend = loop_over(script, tmp_path, registry_with("system.health", NO_SENSOR))
    result = await loop.process_turn(ASK_HOT, policy={}, owner="o")
    assert result.text == answer
    assert len(backend.requests) == 3


def missing(question: str, answer: str, *results, world=()) -> list[str]:
    grounds = Grounds.of(list(results), [question], 0, world=list(world))
    return unanswered_parts(answer, grounds)


@pytest.mark.parametrize(
    "question,answer,sentence",
    [
        ("Is the CPU hot?", "The CPU is lightly loaded.", "reads a temperature"),
        ("how hot is my device?", "Your disk is 23.4 % used.", "reads a temperature"),
        ("What's the CPU temperature?", "The load is 3.1.", "reads a temperature"),
        ("Tell me how warm the box is.", "The load is 3.1.", "reads a temperature"),
        ("Is the front door locked?", "Your system is healthy.", "reads a lock's state"),
        # A sentence about sensors that never names what was asked does not answer it.
        (
            "how hot is my device?",
            "The device is not set up, so I can't read your home's sensors, lights or locks.",
            "reads a temperature",
        ),
        ("Is the CPU busy?", "Pi-hole answered 10,475 queries.", "says whether the CPU is busy"),
        (
            "How hot is the device, and how many ads did Pi-hole block today?",
            "Pi-hole blocked 1,620 ads.",
            "reads a temperature",
        ),
    ],
)
def test_what_the_question_asks_and_nothing_read_is_said(question, answer, sentence):
    [said] = missing(question, answer, NO_SENSOR, PIHOLE) or missing(question, answer, PIHOLE)
    assert sentence in said and said.startswith("Nothing I checked")


@pytest.mark.parametrize(
    "question,answer",
    [
        ("Is the CPU hot?", "The temperature is unknown; the CPU is busy."),
        ("how hot is my device?", "I can't tell the temperature: there is no sensor."),
        ("how hot is my device?", "It has no sensor, so its temperature is not known."),
        ("Is the CPU hot?", "I cannot read how hot it is."),
        ("Is the front door locked?", "I can't check your locks."),
        ("Is the CPU busy?", "It is busy: the load is 3.1."),  # the result states it
        ("Write a haiku about a cold morning.", "Frost on the window."),  # asks for none
        ("How much disk is used?", "23.4 % is used."),
    ],
)
def test_a_question_answered_or_asking_nothing_unread_needs_no_sentence(question, answer):
    assert missing(question, answer, NO_SENSOR) == [], (question, answer)


def test_no_sentence_when_a_web_source_ran_or_nothing_ran():
    page = {"url": "https://example.org/paris", "text": "Paris: 12 degrees, cloudy."}
    assert missing("How warm is it in Paris?", "It is 12 degrees.", world=[page]) == []
    assert missing("Is the CPU busy?", "Pi-hole answered.", PIHOLE, world=[page]) == []
    # Nothing ran (a denial): the answer is what did not run, said already.
    grounds = Grounds.of([], ["Is the front door locked?"], 1)
    assert unanswered_parts("You declined the Home Assistant check.", grounds) == []


async def test_an_answer_that_skips_what_could_not_be_read_gets_the_sentence(tmp_path: Path):
    script = [propose("system_health"), ModelReply(), "The load is 3.1 over the last minute."]
    loop, backend = loop_over(script, tmp_path, registry_with("system.health", NO_SENSOR))
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    result = await loop.process_turn(ASK_HOT, policy={}, owner="o", on_token=sink)
    assert result.text == (
        "The load is 3.1 over the last minute. "
        "Nothing I checked reads a temperature, so I can't tell you."
    )
    assert "".join(shown) == result.text  # the household sees the sentence too
    assert len(backend.requests) == 3  # no second answer: the sentence is ours
