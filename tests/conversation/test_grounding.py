"""No figure without a source: the number check of answers against what a turn found."""

from __future__ import annotations

import pytest

from sovereign.conversation.answer.figures import figures_in
from sovereign.conversation.answer.grounding import (
    Grounds,
    GuardedSink,
    result_values,
    unsupported,
)

PIHOLE = {
    "period": "last_24_hours",
    "queries_total": 7497,
    "queries_blocked": 3465,
    "percent_blocked": 34.5,
    "domains_on_blocklist": 104756,
    "blocking_status": "enabled",
    "retrieved_at": "2026-12-01T10:00:00+00:00",
}
HEALTH = {
    "cpu_temperature_celsius": 52.5,
    "load_average_1m": 0.31,
    "memory_total_gb": 8.0,
    "uptime_hours": 49.2,
}


def grounds(*results, asked=("how many?",), unrun=0):
    found = Grounds(asked=list(asked), unrun=unrun)
    for result in results:
        found.add_result(result)
    return found


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("7,497 queries", [7497]),
        ("7\u202f497 and 7\u00a0497", [7497, 7497]),
        ("34.5% and 0.31", [34.5, 0.31]),
        ("on the 22nd of July", [22]),
        ("IPv6 and 4K and mp3", []),
        ("1. first\n2. second", []),
        ("5-15% loss", [5, 15]),
        ("at 10:00", [10, 0]),
        ("10,475,6", [10475]),
    ],
)
def test_figures_are_read_as_written(text, values):
    assert [f.value for f in figures_in(text)] == values


@pytest.mark.parametrize(
    "answer",
    [
        "Pi-hole blocked 3,465 of 7,497 queries (34.5 %) in the last 24 hours.",
        "About 3,500 of roughly 7,500 queries were blocked, 35 %.",
        "Around 7000 queries; 104,756 domains are on the blocklist.",
        "Blocked 3465.",
    ],
)
def test_figures_a_result_holds_exactly_or_rounded_are_grounded(answer):
    assert unsupported(answer, grounds(PIHOLE)) == []


@pytest.mark.parametrize(
    ("answer", "invented"),
    [
        ("Pi-hole blocked 10,475,6 queries.", ["10,475"]),
        ("That is 46.2 % of all queries.", ["46.2"]),  # a sum the result does not state
        ("It blocked 3,466 queries.", ["3,466"]),
        ("It blocked 3,465 queries and 12 trackers.", ["12"]),
    ],
)
def test_a_figure_no_result_holds_is_reported_as_written(answer, invented):
    assert unsupported(answer, grounds(PIHOLE)) == invented


def test_units_the_result_names_may_be_changed():
    answer = "52.5 °C (126.5 °F); up 49.2 hours, about 2 days or 2952 minutes; 8000 MB."
    assert unsupported(answer, grounds(HEALTH)) == []
    assert unsupported("It runs at 60 °C.", grounds(HEALTH)) == ["60"]


def test_figures_in_keys_and_words_of_the_result_count():
    assert unsupported("The 1-minute load is 0.31; over 24 hours …", grounds(HEALTH, PIHOLE)) == []


def test_the_question_s_own_figures_may_be_repeated():
    found = grounds(PIHOLE, asked=["Totals for the last 30 days on my Pi 5?"])
    assert unsupported("For 30 days on your Pi 5: 7,497 queries.", found) == []


def test_an_address_s_digits_are_not_figures():
    assert unsupported("See https://www.example.org/pi-5/v2024 for 7497.", grounds(PIHOLE)) == []


def test_when_nothing_ran_no_figure_or_day_may_be_stated_beyond_the_question():
    found = grounds(asked=["When is the Louvre open on Sunday?"], unrun=1)
    assert found.nothing_ran
    assert unsupported("You declined the web search, so I didn't look it up.", found) == []
    assert unsupported("It is usually open 9 to 6, closed on Tuesdays.", found) == [
        "9",
        "6",
        "Tuesdays",
    ]
    assert unsupported("I can't tell you about Sunday.", found) == []


def test_an_answer_to_a_turn_without_calls_is_not_checked():
    assert not Grounds(asked=["12 times 7?"]).applies
    assert unsupported("84", Grounds(asked=["12 times 7?"])) == []


def test_result_values_read_numbers_inside_strings_and_skip_booleans():
    values = result_values({"ok": True, "text": "opens at 10:00, 12 euros", "n": None})
    assert sorted(values) == [0.0, 10.0, 12.0]


async def test_the_guard_passes_grounded_sentences_and_holds_back_from_the_first_invented():
    sent: list[str] = []

    async def sink(piece: str) -> None:
        sent.append(piece)

    guard = GuardedSink(sink, grounds(PIHOLE))
    for piece in ["Pi-hole blo", "cked 3,4", "65 queries. Tha", "t is 46.2 %. Fine."]:
        await guard(piece)
    assert sent == ["Pi-hole blocked 3,465 queries."] and guard.tripped
    await guard.finish("Pi-hole blocked 3,465 queries (34.5 %).")
    assert sent == [
        "Pi-hole blocked 3,465 queries.",
        "\n\nPi-hole blocked 3,465 queries (34.5 %).",
    ]


async def test_a_guard_s_finish_continues_an_answer_that_extends_what_was_shown():
    sent: list[str] = []

    async def sink(piece: str) -> None:
        sent.append(piece)

    guard = GuardedSink(sink, grounds(PIHOLE))
    await guard("It blocked 3,465. It is on")
    await guard.finish("It blocked 3,465. It is on.")
    assert sent == ["It blocked 3,465.", " It is on."]


async def test_a_replacement_answer_follows_what_was_shown_after_a_blank_line():
    sent: list[str] = []

    async def sink(piece: str) -> None:
        sent.append(piece)

    guard = GuardedSink(sink, grounds(PIHOLE))
    await guard("It blocked 3,465. It is 99 %. ")
    await guard.finish("Pi-hole in the last 24 hours: 7,497 queries.")
    assert sent == ["It blocked 3,465.", "\n\nPi-hole in the last 24 hours: 7,497 queries."]
