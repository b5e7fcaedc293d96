"""A part's figure is not the whole: the blocked count is not the queries made."""

from __future__ import annotations

from pathlib import Path

import pytest

from sovereign.conversation.answer.grounding import Grounds, retry_note, unsupported
from sovereign.conversation.answer.labels import mislabelled
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from tests.conversation.one_capability import loop_over, registry_with

PIHOLE = {
    "period": "last_24_hours",
    "queries_total": 7497,
    "queries_blocked": 3465,
    "percent_blocked": 46.2,
    "domains_on_blocklist": 104756,
    "blocking_status": "enabled",
}
HEALTH = {
    "disk_total_gb": 270.6,
    "disk_used_gb": 26.0,
    "data_disk_free_gb": 83.0,
    "data_disk_total_gb": 270.6,
    "data_disk_used_gb": 26.0,
    "memory_total_gb": 25.3,
    "memory_used_gb": 1.6,
    "memory_used_percent": 6.2,
    "load_average_1m": 1.4,
    "uptime_hours": 4.5,
    "cpu_count": 2,
}


@pytest.mark.parametrize(
    "answer,result,text",
    [
        ("The network made 3465 DNS queries in the last 24 hours.", PIHOLE, "3465"),
        ("Your devices sent 3,465 queries today.", PIHOLE, "3,465"),
        ("Pi-hole answered 3\u202f465 queries.", PIHOLE, "3\u202f465"),
        ("The device has 1.6 GB of memory.", HEALTH, "1.6"),
        ("The system disk has 26 GB.", HEALTH, "26"),
        ("Your disk holds 83 GB.", HEALTH, "83"),
    ],
)
def test_a_part_s_figure_without_its_word_is_not_supported(answer, result, text):
    assert [m.text for m in mislabelled(answer, [result])] == [text]
    assert text in unsupported(answer, Grounds.of([result], ["How is it?"], 0))


@pytest.mark.parametrize(
    "answer,result",
    [
        ("Pi-hole blocked 3,465 of 7,497 queries.", PIHOLE),
        ("Out of 7497 queries, 3465 were blocked (46.2 %).", PIHOLE),
        ("The network made 7497 DNS queries.", PIHOLE),  # the whole needs no word
        ("Your blocklist has 104,756 domains.", PIHOLE),  # a field without siblings
        ("3465 queries were stopped by ad blocking.", PIHOLE),
        ("The device is using 1.6 GB of memory out of a total of 25.3 GB.", HEALTH),
        ("1.6 GB of memory is in use.", HEALTH),
        ("The disk has 83 GB free of 270.6 GB.", HEALTH),
        ("There are 83 GB left on the disk.", HEALTH),
        ("The disk holds 270.6 GB in all, 26 GB of it taken.", HEALTH),
        ("The load is 1.4 on 2 cores, up 4.5 hours.", HEALTH),
    ],
)
def test_a_part_said_as_a_part_or_a_whole_passes(answer, result):
    assert mislabelled(answer, [result]) == []


def test_a_figure_a_whole_also_holds_is_never_a_mislabel():
    both = {"queries_total": 50, "queries_blocked": 50}
    assert mislabelled("The network made 50 queries.", [both]) == []


def test_a_decimal_is_one_figure_in_one_clause():
    # "1.6" once split into clauses "... has 1" and "6 GB of memory".
    [problem] = mislabelled("The device has 1.6 GB of memory.", [HEALTH])
    assert problem.text == "1.6" and problem.key == "memory_used_gb"


def test_a_web_result_s_fields_are_not_checked():
    grounds = Grounds.of([], ["q"], 0, world=[PIHOLE])
    assert unsupported("The network made 3465 DNS queries.", grounds) == []


def test_the_retry_note_names_the_part():
    grounds = Grounds.of([PIHOLE], ["How many queries today?"], 0)
    note = retry_note(grounds, "The network made 3465 DNS queries.")
    assert "3465 is the result's queries_blocked, the part that was blocked" in note


ASK = [{"role": "user", "content": "How many DNS queries did my network make today?"}]


async def test_a_blocked_count_given_as_the_total_is_asked_for_again(tmp_path: Path):
    script = [
        propose("pihole_summary"),
        ModelReply(),
        "The network made 3465 DNS queries in the last 24 hours.",
        "Your network made 7,497 DNS queries; 3,465 of them were blocked.",
    ]
    loop, backend = loop_over(script, tmp_path, registry_with("pihole.summary", PIHOLE))
    result = await loop.process_turn(ASK, policy={}, owner="o")
    assert "queries_blocked" in backend.requests[-1].messages[0]["content"]
    assert result.text == "Your network made 7,497 DNS queries; 3,465 of them were blocked."
