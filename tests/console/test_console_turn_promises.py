"""The Console keeps a turn's promises when things go wrong (real service on 127.0.0.1).

- A search the household approved ran, then the model failed: the failed answer still
  shows that the query left the device (receipt) and what came back (sources).
- A card that expired offers "Ask again", which sends the household's message anew.
- After a denial, the other proposals of the same reply get no card of their own.
"""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from .console_steps import first_run, send, set_web_search

MESSAGE_PATH = "**/api/v1/conversation/message"
SEARCH_THEN_FAIL = "search solar panel cleaning, then unplug the model"


def test_a_model_failure_after_an_approved_search_still_shows_its_receipt_and_sources(
    page, service
):
    first_run(page, service)
    set_web_search(page, True)
    send(page, SEARCH_THEN_FAIL)
    page.locator(".confirmation-card").get_by_role("button", name="Approve").click()

    failed = page.locator(".message.assistant.failed")
    expect(failed.locator("[role=alert]")).to_contain_text("The language model cannot be reached")
    expect(failed.locator(".receipt-headline")).to_have_text(
        "Left this device: the search engines."
    )
    lines = failed.locator(".receipt-lines")
    expect(lines).to_contain_text("Web search: sent to the search engines")
    expect(failed.locator(".citation").first).to_be_visible()
    assert service.searxng.queries == [SEARCH_THEN_FAIL]
    expect(page.get_by_label("Your message")).to_be_enabled()


def test_a_failed_plain_json_answer_shows_its_receipt_too(page, service):
    """A service (or proxy) that answers without a stream: the JSON error body is read."""
    first_run(page, service)
    body = {
        "error": {"code": "MODEL_UNAVAILABLE", "message": "The language model cannot be reached."},
        "citations": [
            {
                "capability": "web.fetch",
                "title": "https://example.org/a",
                "url": "https://example.org/a",
                "snippet": "page read",
                "retrieved_at": "2026-01-01T00:00:00Z",
            }
        ],
        "receipts": [{"capability": "web.fetch", "locality": "external", "outcome": "executed"}],
    }
    page.route(
        MESSAGE_PATH,
        lambda route: route.fulfill(
            status=503, content_type="application/json", body=json.dumps(body)
        ),
        times=1,
    )
    send(page, "read https://example.org/a")
    failed = page.locator(".message.assistant.failed")
    expect(failed.locator(".receipt-headline")).to_have_text("Left this device: example.org.")
    expect(failed.locator(".citation-kind")).to_have_text("page read")


def test_an_expired_card_offers_ask_again_which_sends_the_message_anew(page, service):
    page.clock.install()
    first_run(page, service)
    set_web_search(page, True)
    sent: list[dict] = []
    page.on(
        "request",
        lambda request: (
            sent.append(json.loads(request.post_data or "{}"))
            if request.url.endswith("/conversation/message")
            else None
        ),
    )
    send(page, "search rooftop solar output")
    card = page.locator(".confirmation-card")
    expect(card).to_be_visible()
    service.clock.advance(121)
    page.clock.fast_forward("02:01")
    expect(card).to_have_class(re.compile(r"\bexpired\b"))
    again = card.get_by_role("button", name="Ask again")
    expect(again).to_be_visible()

    again.click()

    fresh = page.locator(".confirmation-card")
    expect(fresh).to_have_count(1)
    expect(fresh).not_to_have_class(re.compile(r"\bexpired\b"))
    expect(fresh.locator(".argument-value").first).to_have_text("search rooftop solar output")
    assert [body.get("message") for body in sent] == ["search rooftop solar output"] * 2
    fresh.get_by_role("button", name="Approve").click()
    expect(page.locator(".message.assistant .citations").last).to_be_visible()
    assert service.searxng.queries == ["search rooftop solar output"]


def test_a_new_message_replaces_the_expired_card_and_its_ask_again(page, service):
    page.clock.install()
    first_run(page, service)
    set_web_search(page, True)
    send(page, "search rooftop solar output")
    card = page.locator(".confirmation-card")
    expect(card).to_be_visible()
    service.clock.advance(121)
    page.clock.fast_forward("02:01")
    again = card.get_by_role("button", name="Ask again")
    expect(again).to_be_visible()
    service.backend.before_reply.clear()
    send(page, "hello while the card is expired")
    expect(page.locator(".confirmation-card")).to_have_count(0)  # a new turn cleared it
    service.backend.before_reply.set()
    expect(page.locator(".message.assistant .prose").last).to_have_text(
        "You said: hello while the card is expired"
    )
