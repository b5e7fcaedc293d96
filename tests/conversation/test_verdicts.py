"""No verdict against the result: a yes/no answer about the device checked against
the verdict the result states (conversation.verdicts, capabilities.system)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sovereign.capabilities import system
from sovereign.conversation.answer.grounding import Grounds, retry_note, unsupported
from sovereign.conversation.answer.verdicts import VERDICTS, contradicted, stated, verdicts_in
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from tests.conversation.one_capability import loop_over, registry_with

ROOMY = {
    "disk_space_note": "The system disk has plenty of space left: 83.5 GB free of 270.6 GB "
    "(23.4 % used).",
    "disk_space_low": False,
    "disk_used_percent": 23.4,
    "cpu_load_note": "The CPU is lightly loaded, with time to spare (load 0.3 over the last "
    "minute, 4 cores).",
    "cpu_busy": False,
    "load_average_1m": 0.3,
    "cpu_hot": False,
    "cpu_temperature_celsius": 48.0,
}
CROWDED = {**ROOMY, "disk_space_low": True, "cpu_busy": True, "cpu_hot": True}


def verdicts(result):
    return verdicts_in([result])


@pytest.mark.parametrize(
    "answer",
    [
        "Yes, the box is running low on disk space.",
        "Your disk is low on space.",
        "Disk space is low right now.",
        "The SD card is almost full!",
        "The storage is nearly full, so free some up.",
        "You are running out of disk space.",
        "Yes, the CPU is busy at the moment.",
        "The processor is overloaded.",
        "The device is under heavy load.",
        "It's busy right now.",
        "Yes, the CPU is hot.",
        "Your Pi is overheating.",
        "The device is running hot, but the disk is fine.",
    ],
)
def test_a_verdict_against_the_result_is_not_supported(answer):
    found = contradicted(answer, verdicts(ROOMY))
    assert found, answer
    grounds = Grounds.of([ROOMY], ["Is the box all right?"], 0)
    assert unsupported(answer, grounds)


@pytest.mark.parametrize(
    "answer",
    [
        "No, the box is not running low on disk space.",
        "The system disk has plenty of space left: 83.5 GB free.",
        "Disk usage is low: 23.4 % used.",  # low usage is not low space
        "The disk is 23.4 % full.",
        "Your disk isn\u2019t low on space.",
        "No, the CPU isn't busy; it is lightly loaded.",
        "The CPU is not busy at the moment.",
        "It is not hot: 48 °C is a normal temperature.",
        "The load average is 0.3 over the last minute.",
        "Your CPU has 4 cores.",
    ],
)
def test_a_verdict_as_the_result_says_or_no_verdict_passes(answer):
    assert contradicted(answer, verdicts(ROOMY)) == []
    assert unsupported(answer, Grounds.of([ROOMY], ["Is the box all right?"], 0)) == []


@pytest.mark.parametrize(
    "answer",
    [
        "No, the disk is not low on space.",
        "There is plenty of storage left, you're not running out.",
        "The CPU is not busy.",
        "No, the CPU isn't hot.",
    ],
)
def test_denying_a_verdict_that_holds_is_not_supported(answer):
    assert contradicted(answer, verdicts(CROWDED))


@pytest.mark.parametrize(
    "answer",
    [
        # Words that deny a verdict without a negation.
        "The system disk has plenty of space left.",
        "Your SD card has lots of free room.",
        "There is enough storage on the disk.",
        "The drive is mostly empty.",
        "The CPU is idle.",
        "Your Pi is lightly loaded, with time to spare.",
        "The processor is barely working.",
        "CPU usage is low right now.",
        "The CPU is cool.",
        "The device is at a normal temperature.",
        "Your Pi's temperature is fine.",
        # A leading "No" negates nothing after it.
        "No, it is idle.",
    ],
)
def test_a_counter_word_against_a_verdict_that_holds_is_not_supported(answer):
    assert contradicted(answer, verdicts(CROWDED)), answer
    assert contradicted(answer, verdicts(ROOMY)) == [], answer


@pytest.mark.parametrize(
    "answer",
    [
        "The disk does not have enough space left.",
        "The CPU is not idle.",
        "The box isn't cool at all.",
        "No, the CPU is not lightly loaded.",
    ],
)
def test_a_negated_counter_word_states_the_verdict(answer):
    assert contradicted(answer, verdicts(ROOMY)), answer
    assert contradicted(answer, verdicts(CROWDED)) == [], answer


@pytest.mark.parametrize(
    "clause,said",
    [
        ("Is the CPU idle", False),
        ("Is there enough disk space", False),
        ("Is the disk almost full", True),
        ("Is the CPU not busy", False),
        ("Yes, the CPU is busy", True),
        ("No, the CPU is busy", True),
        ("The kitchen is cool", None),  # not about the device
        ("The CPU has 4 cores", None),
    ],
)
def test_stated_reads_a_clause_s_polarity(clause, said):
    found = {stated(clause, verdict) for verdict in VERDICTS} - {None}
    assert found == ({said} if said is not None else set()), clause


def test_only_a_result_s_boolean_verdicts_count_and_the_last_result_decides():
    assert verdicts_in([{"disk_space_low": "no"}, {"cpu_busy": None}, "text", ROOMY]) == {
        "disk_space_low": False,
        "cpu_busy": False,
        "cpu_hot": False,
    }
    assert verdicts_in([ROOMY, CROWDED])["disk_space_low"] is True
    # No verdict stated: nothing to contradict.
    assert contradicted("Yes, the disk is low on space.", {}) == []


def test_a_web_result_states_no_verdict():
    # A page that says "disk_space_low": true is a page, not this device.
    grounds = Grounds.of([], ["Is the disk low?"], 0, world=[{"disk_space_low": False}])
    assert grounds.verdicts == {}
    assert unsupported("Yes, the disk is low on space.", grounds) == []


def test_the_retry_note_says_what_the_result_says():
    grounds = Grounds.of([ROOMY], ["Is the box running low on disk space?"], 0)
    note = retry_note(grounds, "Yes, the box is running low on disk space and busy.")
    assert "the disk is not low on space" in note
    assert "the CPU is not busy" in note
    assert "the answer must say so too" in note


@pytest.mark.parametrize("free_gb,percent,low", [(83.5, 23.4, False), (1.2, 40.0, True)])
def test_the_device_s_own_health_states_the_verdicts_its_notes_say(
    monkeypatch, tmp_path, free_gb, percent, low
):
    class Usage:
        total, used, free = 270.6e9, 100e9, free_gb * 1e9

    Usage.percent = percent

    monkeypatch.setattr(system.psutil, "disk_usage", lambda _path: Usage)
    monkeypatch.setattr(system, "cpu_temperature_celsius", lambda: 82.0)
    health = system.read_health(tmp_path)
    assert verdicts(health)["disk_space_low"] is low
    assert verdicts(health)["cpu_hot"] is True
    note = health["disk_space_note"]
    assert contradicted(note, verdicts(health)) == []  # its own words agree with it
    assert contradicted(health["cpu_temperature_note"], verdicts(health)) == []
    assert contradicted(health["cpu_load_note"], verdicts(health)) == []


ASK_DISK = [{"role": "user", "content": "Is the box running low on disk space?"}]


async def test_a_contradicting_answer_is_asked_for_again_and_then_answered_plainly(
    tmp_path: Path,
):
    script = [
        propose("system_health"),
        ModelReply(),
        "Yes, the box is running low on disk space.",
        "Yes, you are running out of space.",
    ]
    loop, backend = loop_over(script, tmp_path, registry_with("system.health", ROOMY))
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    result = await loop.process_turn(ASK_DISK, policy={}, owner="o", on_token=sink)
    retry = backend.requests[-1]
    assert retry.tools is None
    assert "the disk is not low on space" in retry.messages[0]["content"]
    assert "running low" not in "".join(shown) and "running out" not in result.text
    assert "The system disk has plenty of space left: 83.5 GB free" in result.text


async def test_an_answer_that_agrees_with_the_verdict_is_kept(tmp_path: Path):
    script = [propose("system_health"), ModelReply(), "No, the disk is not low on space."]
    loop, backend = loop_over(script, tmp_path, registry_with("system.health", ROOMY))
    result = await loop.process_turn(ASK_DISK, policy={}, owner="o")
    assert result.text == "No, the disk is not low on space."
    assert len(backend.requests) == 3  # decision, decision after the result, answer
