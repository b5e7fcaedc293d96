"""The Console after an approval whose answer's stream broke: it asks again and says plainly
whether the call ran.

The service is real (uvicorn on 127.0.0.1). The first approval really reaches the
service (the search runs); only its response is cut short on the way back, by a
route in the browser that hands on a stream with a piece of the answer and no
result. The Console's retry then reaches the service unchanged.
"""

from __future__ import annotations

import json

from playwright.sync_api import expect

from .console_steps import ask_to_search, expect_quoted_answer, first_run, set_web_search
from .live_service import fetch_through_loopback

MESSAGE_PATH = "**/api/v1/conversation/message"


def break_the_next_approval_stream(page) -> list[dict]:
    """The next /message request goes to the service, but the browser gets a broken stream."""
    sent = []

    def handle(route) -> None:
        sent.append(json.loads(route.request.post_data or "{}"))
        fetch_through_loopback(route)  # the service answers the approval: the search runs
        broken = 'event: token\ndata: {"text":"I fou"}\n\n'
        route.fulfill(status=200, content_type="text/event-stream", body=broken)

    page.route(MESSAGE_PATH, handle, times=1)
    return sent


def lose_the_next_approval_outcome(page) -> list[dict]:
    """The next /message request reaches the service but its answer is lost, and every
    later one is answered as a service that restarted would (the card is unknown)."""
    requests = []
    forgotten = {"error": {"code": "INVALID_CONFIRMATION", "message": "unknown"}}

    def handle(route) -> None:
        requests.append(json.loads(route.request.post_data or "{}"))
        if len(requests) == 1:
            fetch_through_loopback(route)  # the approval reaches the service; its answer is lost
            route.fulfill(status=200, content_type="text/event-stream", body="")
        else:  # as a service that restarted would answer
            route.fulfill(status=400, json=forgotten)

    page.route(MESSAGE_PATH, handle)
    return requests


def test_a_broken_stream_after_approval_recovers_the_answer_and_says_the_search_ran(page, service):
    first_run(page, service)
    set_web_search(page, True)
    card = ask_to_search(page)
    sent = break_the_next_approval_stream(page)
    card.get_by_role("button", name="Approve").click()

    note = page.locator(".message.assistant .recovered")
    expect(note).to_have_text(
        "The connection broke after you approved web.search; the appliance kept what "
        "happened: it ran."
    )
    expect_quoted_answer(page.locator(".message.assistant .prose").last)
    expect(page.locator(".receipt-headline").last).to_have_text(
        "Left this device: the search engines."
    )
    assert sent[0]["confirmation"]["approve"] is True
    assert len(service.searxng.queries) == 1, "the retry must not search again"
    expect(page.get_by_label("Your message")).to_be_enabled()


def test_when_the_appliance_cannot_say_either_the_console_says_the_outcome_is_unknown(
    page, service
):
    first_run(page, service)
    set_web_search(page, True)
    card = ask_to_search(page)
    requests = lose_the_next_approval_outcome(page)
    card.get_by_role("button", name="Approve").click()
    alert = page.locator(".message.assistant.failed .error")
    expect(alert).to_contain_text("Whether web.search ran is unknown")
    expect(page.get_by_label("Your message")).to_be_enabled()
    tokens = [r["confirmation"]["token"] for r in requests]
    assert len(tokens) == 2 and tokens[0] == tokens[1], "one retry of the same approval"
