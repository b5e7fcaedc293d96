"""The card's pure flag logic (flags.js, argument.js, private-words.js), run in chromium."""

from __future__ import annotations

import pytest

FLAGS = [
    {"argument": "query", "start": 5, "end": 21, "kind": "email_address",
     "reason": "looks like an e-mail address"},
    {"argument": "query", "start": 5, "end": 9, "kind": "private_word",
     "reason": "is on your household's list of private words"},
    {"argument": "query", "start": 5, "end": 21, "kind": "private_word",
     "reason": "is on your household's list of private words"},
]  # fmt: skip
ARGS = {"query": "mail maya@example.com now", "time_range": "day"}


def test_each_flagged_span_gets_one_sentence_with_every_reason_once(js):
    notes = js("flags.js", "flagNotes", ARGS, FLAGS)
    assert notes == [
        {
            "argument": "query",
            "text": "maya@example.com",
            "reasons": [
                "looks like an e-mail address",
                "is on your household's list of private words",
            ],
        },
        {
            "argument": "query",
            "text": "maya",
            "reasons": ["is on your household's list of private words"],
        },
    ]  # by start; of two spans at one start, the first flagged comes first
    sentence = js("flags.js", "flagSentence", notes[0])
    assert sentence == (
        "\u201cmaya@example.com\u201d looks like an e-mail address and is on your "
        "household's list of private words."
    )


@pytest.mark.parametrize(
    "flag",
    [
        {"argument": "query", "start": 0, "end": 99, "reason": "x"},  # past the end
        {"argument": "query", "start": 3, "end": 3, "reason": "x"},  # empty
        {"argument": "url", "start": 0, "end": 2, "reason": "x"},  # no such argument
        {"argument": "time_range", "start": 0, "end": 1, "reason": "x"},
    ],
)
def test_a_flag_that_does_not_fit_its_value_is_left_out(js, flag):
    assert js("flags.js", "flagNotes", {"query": "abcd", "time_range": 5}, [flag]) == []


def test_spans_are_code_points_not_utf16_units(js):
    notes = js(
        "flags.js",
        "flagNotes",
        {"query": "\U0001f600 zoe"},
        [{"argument": "query", "start": 2, "end": 5, "reason": "r"}],
    )
    assert notes[0]["text"] == "zoe"


def test_flagged_pieces_join_back_to_the_text_and_mark_only_the_span(js):
    pieces = js(
        "argument.js",
        "flaggedPieces",
        "search maya okafor now",
        [{"start": 7, "end": 18, "reason": "private"}],
    )
    assert "".join(p["text"] for p in pieces) == "search maya okafor now"
    assert [p for p in pieces if p["flag"]] == [{"text": "maya okafor", "flag": "private"}]


def test_flagged_pieces_honour_an_offset_into_the_value(js):
    pieces = js(
        "argument.js", "flaggedPieces", "host.lan", [{"start": 8, "end": 16, "reason": "r"}], 8
    )
    assert pieces == [{"text": "host.lan", "flag": "r"}]


def test_an_edit_keeps_the_arguments_it_does_not_change(js):
    assert js("flags.js", "editedArguments", ARGS, {"query": "mail now"}) == {
        "query": "mail now", "time_range": "day",
    }  # fmt: skip
    assert js("flags.js", "editableEntries", {"query": "q", "start_index": 5}) == [["query", "q"]]


def test_the_automatic_sources_are_said_in_words(js):
    sentence = js(
        "private-words.js",
        "automaticSentence",
        {"home_assistant": 3, "pihole": 0, "device_names": 2, "wifi": 1},
    )
    assert sentence == (
        "Also checked automatically: 3 Home Assistant entities, 2 names of this device "
        "and its network, 1 Wi-Fi network name."
    )
    assert js("private-words.js", "automaticSentence", {"device_names": 1, "pihole": 1}) == (
        "Also checked automatically: 1 Pi-hole local name, 1 name of this device and its network."
    )
    assert js("private-words.js", "automaticSentence", {}) == ""


@pytest.mark.parametrize(
    ("kinds", "titles"),
    [
        (["private_word"], ["household"]),
        (["from_a_result"], ["result"]),
        (["added_by_assistant"], ["added"]),
        (["added_by_assistant", "email_address", "from_a_result"],
         ["household", "result", "added"]),
        (["a_kind_this_console_does_not_know"], ["household"]),
        ([], []),
    ],
)  # fmt: skip
def test_the_card_has_one_warning_title_per_group_of_flags(js, kinds, titles):
    words = {
        "household": "something about your household",
        "result": "came from a page or search result",
        "added": "the assistant added the marked words; you did not write them",
    }
    flags = [{"argument": "query", "start": 0, "end": 1, "kind": kind} for kind in kinds]
    found = js("flags.js", "flagTitles", flags)
    assert len(found) == len(titles)
    for title, group in zip(found, titles, strict=True):
        assert words[group] in title and title.startswith("Before you approve: ")
