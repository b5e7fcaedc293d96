"""The Console when things go wrong: a lost session, an unavailable model, hostile data.

The service is real (uvicorn on 127.0.0.1). Where a response shape is needed that
the scripted turn cannot produce (a redirected web.fetch citation, a hostile
citation URL, an audit summary naming a capability the scripted model never
calls), only that one answer is supplied by a route handler in the browser;
sign-in and everything else stay real.
"""

from __future__ import annotations

import json

from playwright.sync_api import expect

from .console_steps import ask_to_search, first_run, send, set_web_search
from .live_service import PASSWORD

MESSAGE_PATH = "**/api/v1/conversation/message"


def sse(result: dict) -> str:
    return f"event: result\ndata: {json.dumps(result)}\n\n"


def answer_with(page, *results: dict) -> list[dict]:
    """Answer the next /message requests with these results (as SSE); returns the bodies sent."""
    queue, sent = list(results), []

    def handle(route) -> None:
        sent.append(json.loads(route.request.post_data or "{}"))
        route.fulfill(status=200, content_type="text/event-stream", body=sse(queue.pop(0)))

    page.route(MESSAGE_PATH, handle, times=len(results))
    return sent


def result(text: str, citations=(), receipts=(), pending=None) -> dict:
    return {
        "text": text,
        "pending_confirmation": pending,
        "citations": list(citations),
        "receipts": list(receipts),
    }


def test_a_lost_session_returns_to_sign_in_and_keeps_the_conversation(page, service):
    first_run(page, service)
    send(page, "remember this")
    expect(page.locator(".message.assistant .prose")).to_have_text("You said: remember this")
    page.context.clear_cookies()
    send(page, "and this")
    expect(page.locator("#signin-view")).to_be_visible()
    expect(page.locator("#signin-error")).to_have_text(
        "Your session ended. Sign in again to continue."
    )
    expect(page.locator("#transcript .message.user").first).to_have_text("remember this")


def test_an_unavailable_model_is_reported_and_the_composer_unlocks(page, service):
    first_run(page, service)
    send(page, "unplug the model")
    alert = page.locator(".message.assistant.failed [role=alert]")
    expect(alert).to_contain_text("The language model cannot be reached")
    expect(page.get_by_label("Your message")).to_be_enabled()
    send(page, "hello again")
    expect(page.locator(".message.assistant .prose").last).to_have_text("You said: hello again")


def test_hostile_citation_urls_are_shown_as_text_never_as_links(page, service):
    first_run(page, service)
    hostile = {
        "capability": "web.search",
        "title": "<img src=x onerror=alert(1)>click me",
        "url": "javascript:alert(document.cookie)",
        "snippet": "<script>alert(1)</script>",
        "retrieved_at": "2026-01-01T00:00:00Z",
    }
    answer_with(page, result("Here.", citations=[hostile]))
    send(page, "anything")
    citation = page.locator(".citation")
    expect(citation).to_contain_text("<img src=x onerror=alert(1)>click me")
    expect(citation.locator(".citation-snippet")).to_have_text("<script>alert(1)</script>")
    assert citation.locator("a, img, script").count() == 0


def test_a_page_read_is_labelled_apart_from_search_snippets(page, service):
    first_run(page, service)
    page_read = {
        "capability": "web.fetch",
        "title": "https://example.org/a",
        "url": "https://example.org/a",
        "snippet": "page read",
        "retrieved_at": "2026-01-01T00:00:00Z",
    }
    fetch_receipt = {"capability": "web.fetch", "locality": "external", "outcome": "executed"}
    answer_with(page, result("Read it.", citations=[page_read], receipts=[fetch_receipt]))
    send(page, "read https://example.org/a")
    expect(page.locator(".citation-kind")).to_have_text("page read")
    expect(page.locator(".receipt-headline")).to_have_text("Left this device: example.org.")


def test_a_redirected_fetch_offers_a_new_separately_confirmed_fetch_of_the_target(page, service):
    first_run(page, service)
    redirected = {
        "capability": "web.fetch",
        "title": "http://example.org/old",
        "url": "http://example.org/old",
        "snippet": "",
        "retrieved_at": "2026-01-01T00:00:00Z",
        "redirected": True,
        "final_url": "https://www.example.org/new",
    }
    pending = {
        "token": "t" * 43,
        "capability": "web.fetch",
        "version": 1,
        "arguments": {"url": "https://www.example.org/new"},
        "expires_in_seconds": 120,
    }
    sent = answer_with(
        page,
        result("That page moved.", citations=[redirected]),
        result("web.fetch needs the household's approval before it runs.", pending=pending),
    )
    send(page, "read http://example.org/old")
    expect(page.locator(".redirect-target")).to_have_text("https://www.example.org/new")
    page.get_by_role("button", name="Ask to fetch the new address").click()
    card = page.locator(".confirmation-card")
    expect(card.locator(".argument-value")).to_have_text("https://www.example.org/new")
    expect(card).to_contain_text("www.example.org")
    assert sent[1]["message"] == "Please fetch this page: https://www.example.org/new"
    assert [entry["role"] for entry in sent[1]["history"]] == ["user", "assistant"]


def test_a_card_is_dropped_when_the_session_ends_and_the_composer_unlocks(page, service):
    first_run(page, service)
    set_web_search(page, True)
    ask_to_search(page)
    page.context.clear_cookies()
    page.get_by_role("switch", name="Web search").click()
    expect(page.locator("#signin-view")).to_be_visible()
    page.get_by_label("Household password", exact=True).fill(PASSWORD)
    page.get_by_label("Household password", exact=True).press("Enter")
    expect(page.locator("#chat-view")).to_be_visible()
    expect(page.locator(".confirmation-card")).to_have_count(0)
    expect(page.locator(".message.decision.abandoned")).to_contain_text("nothing was sent")
    expect(page.get_by_label("Your message")).to_be_enabled()
    assert service.searxng.queries == []


def test_an_old_setup_link_after_setup_leads_to_sign_in(page, service):
    link = service.setup_link
    first_run(page, service)
    page.get_by_role("button", name="Sign out").click()
    other = page.context.new_page()
    other.goto(link)
    expect(other.locator("#signin-view")).to_be_visible()
    other.close()


def test_activity_capability_names_stay_whole_on_a_phone(page, service):
    page.set_viewport_size({"width": 360, "height": 740})
    first_run(page, service)
    counts = {"proposed": 1, "executed": 1}
    summary = {
        "days": 7,
        "since": "2026-01-01T00:00:00Z",
        "capabilities": {"system.health": counts, "home_assistant.states": counts},
        "totals": {"proposed": 2, "executed": 2},
        "unreadable_lines": 0,
    }
    page.route("**/api/v1/audit/summary*", lambda route: route.fulfill(json=summary))
    page.get_by_role("button", name="Activity").click()
    names = page.locator(".activity-table tbody th code")
    expect(names).to_have_count(2)
    for name in names.all():
        assert name.evaluate("code => code.getClientRects().length") == 1, name.inner_text()
