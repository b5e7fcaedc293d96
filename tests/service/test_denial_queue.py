"""Through the API: a denial ends the other searches of the same model reply, no second card."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sovereign.conversation.backends.base import ModelReply, ToolCall
from tests.spoken import deciding

from .harness import build_harness
from .test_streaming import stream

DEFAULT_SEARCH = {"language": "auto", "safesearch": 1}  # the household's defaults, on every card


def two_searches(messages: list[dict[str, Any]], tools: Any) -> Any:
    """One reply proposing two searches; after the results, an answer naming their statuses."""
    if deciding(messages):
        calls = (
            ToolCall("a", "web_search", {"query": "first query"}),
            ToolCall("b", "web_search", {"query": "second query"}),
        )
        return ModelReply(tool_calls=calls)
    if tools is not None:
        return ""
    statuses = [json.loads(m["content"])["status"] for m in messages if m["role"] == "tool"]
    return "statuses: " + ", ".join(statuses)


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
async def test_denying_the_first_of_two_searches_ends_the_turn_without_a_second_card(
    tmp_path, streamed
):
    harness = build_harness(tmp_path, two_searches)
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        halted = (await harness.message({"message": "search twice"})).json()
        card = halted["pending_confirmation"]["arguments"]
        assert card == {"query": "first query", **DEFAULT_SEARCH}
        token = halted["pending_confirmation"]["token"]
        deny = {"confirmation": {"token": token, "approve": False}}
        if streamed:
            _, events = await stream(harness, deny)
            body = events[-1][1]
        else:
            body = (await harness.message(deny)).json()
    assert body["pending_confirmation"] is None
    assert body["text"] == (  # nothing ran: the answer is ours, the model is not asked
        "You declined the web search, so I didn't look it up. "
        "You declined an earlier request, so I didn't ask you about the web search either."
    )
    assert [(r["outcome"], r.get("error_code")) for r in body["receipts"]] == [
        ("denied", None),
        ("refused", "NOT_ASKED"),
    ]
    assert harness.searxng.queries == []
