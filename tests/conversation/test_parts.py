"""Questions in two parts: each part named for the decision, so the second call is not
forgotten (docs/decisions/offered-tools-and-arguments.md, "Questions in two parts")."""

from __future__ import annotations

import pytest

from sovereign.conversation.answer.parts import (
    household_parts,
    part_family,
    parts_hint,
    question_parts,
)
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose

TOOLS = [
    {"type": "function", "function": {"name": name}}
    for name in ["system_health", "pihole_summary", "home_assistant_get_state", "web_search"]
]


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How hot is the device, and how many queries did Pi-hole block today?",
            ["How hot is the device", "how many queries did Pi-hole block today"],
        ),
        (
            "Check how full the disk is, then search the web for how to free it.",
            ["Check how full the disk is", "search the web for how to free it"],
        ),
        ("Is ad blocking on? How long has it run?", ["Is ad blocking on", "How long has it run"]),
        ("Uptime; also the load.", ["Uptime", "also the load"]),
        (
            "Is the front door locked and the kitchen light on?",
            ["Is the front door locked and the kitchen light on"],
        ),
        ("Tell me about salt and pepper.", ["Tell me about salt and pepper"]),
    ],
)
def test_a_question_is_cut_where_a_new_question_or_request_begins(question, parts):
    assert question_parts(question) == parts


@pytest.mark.parametrize(
    ("part", "family"),
    [
        ("search the web for how to free up disk space", "web"),
        ("how many DNS queries were blocked", "pihole"),
        ("Is ad blocking on", "pihole"),
        ("What's the kitchen temperature", "home_assistant"),
        ("how hot is the device itself", "system"),
        ("how long has the box been running", "system"),
        ("what's the capital of France", None),
    ],
)
def test_a_part_s_words_name_its_family(part, family):
    assert part_family(part) == family


def test_only_parts_of_two_different_offered_families_are_named():
    assert household_parts("What's the memory use, and what's the capital of France?", TOOLS) == []
    assert household_parts("How much memory is free, and how full is the disk?", TOOLS) == []
    assert household_parts("How many queries did Pi-hole block on this device today?", TOOLS) == []
    only_health = [t for t in TOOLS if t["function"]["name"] == "system_health"]
    two = "How hot is the device, and how many queries did Pi-hole block today?"
    assert household_parts(two, only_health) == []
    assert [(p.family, p.tool) for p in household_parts(two, TOOLS)] == [
        ("system", "system_health"),
        ("pihole", "pihole_summary"),
    ]


def test_the_hint_names_the_first_part_and_then_the_next_no_call_served():
    parts = household_parts("Is ad blocking on, and how long has the device been running?", TOOLS)
    assert parts_hint(parts, []) == (
        "This question has 2 parts. Decide now only for its first part, “Is ad blocking on” "
        "(pihole_summary reads that); the other parts come next."
    )
    assert parts_hint(parts, ["system_health"]) == (
        "A part of this question has been looked up. Decide now only for the next part, "
        "“Is ad blocking on” (pihole_summary reads that)."
    )
    assert parts_hint(parts, ["pihole_summary", "system_health"]) is None


async def test_the_turn_loop_puts_the_part_to_decide_last_in_each_decision(world):
    question = [
        {"role": "user", "content": "How hot is the device, and what did a web search find?"}
    ]
    loop, backend = world.loop([propose("system_health"), ModelReply(), "It is 52.5 °C."])
    await loop.process_turn(question, policy={"external_enabled": True}, owner="o")
    first, second, answer = backend.requests
    assert first.messages[-1] == {
        "role": "system",
        "content": "This question has 2 parts. Decide now only for its first part, “How hot "
        "is the device” (system_health reads that); the other parts come next.",
    }
    assert second.messages[-1]["role"] == "system"
    assert (
        "the next part, “what did a web search find” (web_search"
        in (second.messages[-1]["content"])
    )
    assert all("This question has" not in str(m["content"]) for m in answer.messages)
    assert all("Decide now" not in str(m["content"]) for m in answer.messages)


async def test_a_question_in_one_part_gets_no_note(world):
    loop, backend = world.loop([propose("system_health"), ModelReply(), "It is 52.5 °C."])
    await loop.process_turn([{"role": "user", "content": "how hot is it?"}], policy={}, owner="o")
    assert all(r.messages[-1]["role"] != "system" for r in backend.requests)
