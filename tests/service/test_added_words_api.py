"""Words the household never wrote, through the real app (docs/decisions/query-words.md).

A query led by the household's words leaves without the assistant's additions, and the
card says so by showing only what leaves; a query led by the assistant's words keeps
them, each flagged on the card in the wire format every flag has (``argument``,
``start``, ``end``, ``kind``, ``reason``), on the JSON and the streamed path alike,
and only its kind is audited. The window the card shows covers the span named.
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from typing import Any

from sovereign.conversation.approval.added_words import KIND, REASON
from sovereign.conversation.backends.scripted import propose
from tests.console.live_service import quote_call
from tests.spoken import deciding

from .harness import build_harness
from .test_streaming import stream

PENDING_KEYS = {"token", "capability", "version", "arguments", "expires_in_seconds", "flags",
                "edited", "words"}  # fmt: skip
"""The keys of ``pending_confirmation`` before this work (``words``: the card's words, in
the turn's language): none is added."""
FINAL = "Champions League final result"


def proposing(query: str):
    """A model that proposes ``query`` (with the window offered, if any), then quotes."""

    def model(messages: list[dict[str, Any]], tools: Any) -> Any:
        if deciding(messages) and tools:
            arguments = {"query": query}
            for tool in tools:
                window = tool["function"]["parameters"]["properties"].get("time_range")
                if tool["function"]["name"] == "web_search" and window:
                    arguments["time_range"] = window["enum"][0]
            return propose("web_search", arguments)
        return quote_call(tools) or "done"

    return model


@asynccontextmanager
async def card(tmp_path, question: str, query: str):
    """The app whose model proposes ``query`` for ``question``, and the card it shows."""
    harness = build_harness(tmp_path, proposing(query))
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        body = (await harness.message({"message": question})).json()
        assert body["pending_confirmation"] is not None, body
        yield harness, body["pending_confirmation"]


def asks(harness) -> list[dict]:
    path = harness.data_dir / "capabilities" / "audit.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [r for r in records if r["outcome"] == "confirmation_required"]


async def test_a_year_never_said_does_not_leave_and_the_window_covers_this_year(tmp_path):
    question = "Is the Harpenden Christmas market on this year?"
    async with card(tmp_path, question, "Harpenden Christmas market 2023") as (harness, pending):
        assert set(pending) == PENDING_KEYS
        assert pending["arguments"]["query"] == "Harpenden Christmas market"
        assert pending["arguments"]["time_range"] == "year"
        assert pending["flags"] == []
        answer = {"confirmation": {"token": pending["token"], "approve": True}}
        response = await harness.message(answer)
    assert response.status_code == 200, response.text
    assert harness.searxng.queries == ["Harpenden Christmas market"]


async def test_this_weekend_is_searched_with_a_month_not_a_day(tmp_path):
    # pages about the coming weekend are written before it: a week's window hid them
    async with card(
        tmp_path,
        "Are there engineering works between Bedford and Luton this weekend?",
        "engineering works Bedford Luton weekend",
    ) as (harness, pending):
        assert pending["arguments"]["time_range"] == "month"
        await harness.message({"confirmation": {"token": pending["token"], "approve": True}})
    assert harness.searxng.queries == ["engineering works Bedford Luton weekend"]


async def test_a_query_led_by_the_assistant_s_words_is_flagged_before_it_leaves(tmp_path):
    async with card(tmp_path, "Who won the final?", FINAL) as (harness, pending):
        assert set(pending) == PENDING_KEYS
        assert pending["arguments"]["query"] == "Champions League final result"
        assert "time_range" not in pending["arguments"]  # no span named, no window
        assert pending["flags"] == [
            {"argument": "query", "start": 0, "end": 16, "kind": KIND, "reason": REASON},
            {"argument": "query", "start": 23, "end": 29, "kind": KIND, "reason": REASON},
        ]
        assert harness.searxng.queries == []  # nothing left before the household saw it
        (ask,) = asks(harness)
        assert ask["flags"] == [KIND]
        assert "Champions" not in json.dumps(ask)
        # the approval wire format is unchanged: the same two keys approve it
        answer = {"confirmation": {"token": pending["token"], "approve": True}}
        response = await harness.message(answer)
    assert response.status_code == 200, response.text
    assert harness.searxng.queries == ["Champions League final result"]


async def test_the_streamed_card_carries_the_same_flags(tmp_path):
    harness = build_harness(tmp_path, proposing("Champions League final result"))
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        _, events = await stream(harness, {"message": "Who won the final?"})
    kind, result = events[-1]
    assert kind == "result"
    pending = result["pending_confirmation"]
    assert [(f["start"], f["end"], f["kind"]) for f in pending["flags"]] == [
        (0, 16, KIND),
        (23, 29, KIND),
    ]


async def test_the_household_s_edit_leaves_as_typed_without_a_flag(tmp_path):
    async with card(tmp_path, "Who won the final?", FINAL) as (harness, pending):
        edited = {**pending["arguments"], "query": "final result yesterday"}
        response = await harness.message(
            {"confirmation": {"token": pending["token"], "approve": True, "arguments": edited}}
        )
    assert response.status_code == 200, response.text
    assert response.json()["pending_confirmation"] is None
    assert harness.searxng.queries == ["final result yesterday"]
