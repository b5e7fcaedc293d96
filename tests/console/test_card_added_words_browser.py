"""Words the assistant added, on the card in real chromium (docs/decisions/query-words.md).

A follow-up whose search is mostly the assistant's words ("Who won the final?" →
"Champions League final result") shows those words highlighted with their reason and
a warning title before anything leaves; approved, SearXNG receives exactly what the
card showed. A question whose words lead ("… this weekend?") gets a card without the
assistant's additions and with the week that covers the weekend.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from tests.spoken import deciding

from .console_steps import (
    expect_quoted_answer,
    first_run,
    send,
    set_web_search,
)
from .live_service import quote_call

REASON = "is not in what you wrote: the assistant added it"
PROSE = "I found a few pages about cleaning solar panels."


def proposing(query: str):
    """The scripted model: proposes ``query`` (with the window offered, if any), then
    quotes the first passage found."""

    def model(messages: list[dict[str, Any]], tools: Any) -> Any:
        if deciding(messages) and tools:
            arguments = {"query": query}
            for tool in tools:
                window = tool["function"]["parameters"]["properties"].get("time_range")
                if tool["function"]["name"] == "web_search" and window:
                    arguments["time_range"] = window["enum"][0]
            return propose("web_search", arguments)
        return quote_call(tools) or PROSE

    return model


def card_for(page, service, question: str, query: str):
    service.backend.inner = ScriptedBackend(proposing(query))
    first_run(page, service)
    set_web_search(page, True)
    send(page, question)
    card = page.locator(".confirmation-card")
    expect(card).to_be_visible()
    return card


def test_words_the_assistant_added_are_highlighted_with_their_reason_before_approval(page, service):
    card = card_for(page, service, "Who won the final?", "Champions League final result")

    marks = card.locator(".card-arguments mark.flagged")
    expect(marks).to_have_text(["Champions League", "result"])
    expect(marks.first).to_have_attribute("title", REASON)
    expect(card.locator(".card-flags-title")).to_have_text(
        ["Before you approve: the assistant added the marked words; you did not write them."]
    )
    expect(card.locator(".card-flags li")).to_have_text(
        [f"\u201cChampions League\u201d {REASON}.", f"\u201cresult\u201d {REASON}."]
    )
    expect(card.locator(".card-arguments dd").first).to_have_text("Champions League final result")
    assert service.searxng.queries == []  # nothing left before the household saw it
    page.screenshot(path="test-artifacts/console/card-added-words.png")

    card.get_by_role("button", name="Approve anyway").click()
    # the question shares no word with a result: the first one found is quoted
    expect_quoted_answer(page.locator(".message.assistant .prose").last)
    assert service.searxng.queries == ["Champions League final result"]


def test_a_question_led_by_the_household_s_words_is_searched_in_them_over_the_month(page, service):
    card = card_for(
        page,
        service,
        "Are there engineering works between Bedford and Luton this weekend?",
        "Thameslink engineering works Bedford Luton weekend",
    )

    values = card.locator(".card-arguments dd")
    # the window said as a window; its literal value stays under Details
    expect(values).to_have_text(["engineering works Bedford Luton weekend", "from the last month"])
    expect(card.locator(".card-arguments dt").nth(1)).to_have_text("Time window")
    expect(card.locator(".card-technical dd").filter(has_text="month")).to_have_count(1)
    expect(card.locator("mark.flagged")).to_have_count(0)
    expect(card.locator(".card-flags")).to_have_count(0)
    expect(card.get_by_role("button", name="Approve", exact=True)).to_be_visible()

    card.get_by_role("button", name="Approve", exact=True).click()
    # the question shares no word with a result: the first one found is quoted
    expect_quoted_answer(page.locator(".message.assistant .prose").last)
    assert service.searxng.queries == ["engineering works Bedford Luton weekend"]
    assert "time_range=month" in service.searxng.raw_queries[-1].decode()
