"""The Console in real chromium against the real service (uvicorn on 127.0.0.1).

The model is the product's scripted backend; web.search is the real capability
with SearXNG replaced by a handler that records queries, so the tests can check
what would have left the device.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from sovereign.capabilities.searxng import prepare_query

from .console_steps import (
    LITERAL_QUERY,
    ask_to_search,
    expect_quoted_answer,
    first_run,
    send,
    set_web_search,
)
from .live_service import PASSWORD


def test_first_run_sets_the_password_signs_in_and_forgets_the_setup_link(page, service):
    first_run(page, service)
    assert "#setup=" not in page.url
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    page.reload()
    expect(page.locator("#chat-view")).to_be_visible()


def test_the_page_icon_the_browser_asks_for_exists(page, service):
    first_run(page, service)
    status = page.evaluate(
        """async () => {
            const icon = document.querySelector("link[rel=icon]");
            return (await fetch(icon ? icon.href : "/favicon.ico")).status;
        }"""
    )
    assert status == 200


def test_sign_in_shows_a_wrong_password_then_accepts_the_right_one(page, service):
    first_run(page, service)
    page.get_by_role("button", name="Sign out").click()
    password = page.get_by_label("Household password", exact=True)
    password.fill("not the password")
    password.press("Enter")
    expect(page.locator("#signin-error")).to_have_text(
        "That password is not right; 4 more wrong tries before sign-in pauses."
    )
    password.fill(PASSWORD)
    password.press("Enter")
    expect(page.locator("#chat-view")).to_be_visible()


def test_the_answer_streams_in_under_a_progress_line_with_its_stage(page, service):
    first_run(page, service)
    service.backend.before_reply.clear()
    service.backend.mid_answer.clear()
    # Words that name no part of the household: a question naming the device is read by
    # the product when the model calls nothing (tests/conversation/test_named_read.py).
    send(page, "hello there, how are things")
    progress = page.locator("#thinking")
    expect(progress).to_be_visible()
    expect(progress.locator(".progress-words")).to_have_text(
        "Reading your question and choosing what to check…"
    )
    expect(progress.locator(".progress-elapsed")).to_have_text(re.compile(r"^· \d+ seconds?$"))
    expect(page.get_by_label("Your message")).to_be_disabled()
    service.backend.before_reply.set()
    answer = page.locator(".message.assistant .prose").last
    expect(answer).to_have_text("You ")  # the first piece, while the rest is held back
    expect(progress.locator(".progress-words")).to_have_text("Writing the answer…")
    expect(progress.get_by_role("button", name="Stop")).to_be_visible()
    expect(page.get_by_label("Your message")).to_be_disabled()
    service.backend.mid_answer.set()
    expect(answer).to_have_text("You said: hello there, how are things")
    expect(progress).to_be_hidden()
    expect(page.locator(".receipt-headline").last).to_have_text("Stayed on this device.")
    expect(page.get_by_label("Your message")).to_be_enabled()


def test_stop_ends_the_wait_and_says_nothing_more_was_done(page, service):
    first_run(page, service)
    service.backend.before_reply.clear()
    send(page, "hello there appliance")
    progress = page.locator("#thinking")
    expect(progress.locator(".progress-words")).to_have_text(
        "Reading your question and choosing what to check…"
    )
    progress.get_by_role("button", name="Stop").click()
    stopped = page.locator(".message.assistant.stopped")
    expect(stopped.locator(".stopped-note")).to_have_text(
        "Stopped. Nothing more was done after you pressed Stop."
    )
    expect(progress).to_be_hidden()
    expect(page.get_by_label("Your message")).to_be_enabled()
    service.backend.before_reply.set()
    send(page, "second question")  # the conversation goes on
    expect(page.locator(".message.assistant .prose").last).to_have_text("You said: second question")


def test_a_long_paste_is_refused_with_a_counter_and_never_cut(page, service):
    first_run(page, service)
    composer = page.get_by_label("Your message")
    pasted = "word " * 4000  # 20,000 characters
    composer.fill(pasted)
    expect(page.locator("#composer-count")).to_have_text("19,999 of 8,000 characters")
    expect(page.locator("#composer-error")).to_have_text(
        "Too long to send: the assistant reads at most 8,000 characters at a time. "
        "Shorten it by 11,999 characters; nothing has been cut."
    )
    composer.press("Enter")
    expect(page.locator(".message.user")).to_have_count(0)
    assert composer.input_value() == pasted  # nothing was cut
    composer.fill("word " * 1000)
    expect(page.locator("#composer-count")).to_be_hidden()
    expect(page.locator("#composer-error")).to_have_text("")


def test_the_history_goes_with_the_next_message(page, service):
    first_run(page, service)
    send(page, "first question")
    expect(page.locator(".message.assistant .prose").last).to_have_text("You said: first question")
    send(page, "second question")
    expect(page.locator(".message.assistant")).to_have_count(2)
    last_request = service.backend.inner.requests[-1].messages
    contents = [(m["role"], m["content"]) for m in last_request if m["role"] != "system"]
    assert contents == [
        ("user", "first question"),
        ("assistant", "You said: first question"),
        ("user", "second question"),
    ]


def test_with_web_search_off_a_search_is_refused_and_nothing_leaves(page, service):
    first_run(page, service)
    send(page, "search the weather")
    receipt = page.locator(".receipts").last
    expect(receipt).to_contain_text("switched off in the web search setting")
    expect(receipt.locator(".receipt-headline")).to_have_text("Stayed on this device.")
    expect(page.locator(".confirmation-card")).to_have_count(0)
    assert service.searxng.queries == []


def test_the_card_shows_the_query_as_it_will_be_sent_and_deny_sends_nothing(page, service):
    first_run(page, service)
    set_web_search(page, True)
    card = ask_to_search(page)
    expect(card.locator(".capability-name")).to_have_text("web.search")
    expect(card.locator(".argument-value").first).to_have_text(prepare_query(LITERAL_QUERY))
    assert card.locator("b, img").count() == 0  # shown as text, never parsed as HTML
    expect(card).to_contain_text("outside this device")
    expect(card.locator(".countdown")).to_have_text(re.compile(r"Expires in [12]:\d\d"))
    expect(page.get_by_label("Your message")).to_be_disabled()
    card.get_by_label("Reason for denying (optional)").fill("not now")
    card.get_by_role("button", name="Deny").click()
    denied = page.locator(".message.decision.denied")
    expect(denied).to_contain_text("You denied: search the web for “")
    answer = page.locator(".message.assistant").last
    expect(answer.locator(".prose")).to_have_text(  # nothing ran: the answer is the loop's
        "You declined the web search, so I didn't look it up. You said: \u201cnot now\u201d."
    )
    expect(answer.locator(".receipts")).to_contain_text("Web search: denied by you")
    expect(answer.locator(".receipt-headline")).to_have_text("Stayed on this device.")
    expect(page.get_by_label("Your message")).to_be_enabled()
    assert service.searxng.queries == []
    reason_seen = service.backend.inner.requests[-1].messages[-1]["content"]
    assert "not now" in reason_seen


def test_approve_shows_numbered_citations_and_a_receipt_naming_the_search_engines(page, service):
    first_run(page, service)
    set_web_search(page, True)
    card = ask_to_search(page)
    card.get_by_role("button", name="Approve").click()
    answer = page.locator(".message.assistant").last
    expect_quoted_answer(answer.locator(".prose"))
    citations = answer.locator(".citations .citation")
    expect(citations.first).to_contain_text("[1]")
    expect(citations.first.locator("a")).to_have_attribute(
        "href", "https://example.org/solar/panel-cleaning"
    )
    expect(citations.first.locator(".citation-kind")).to_have_text("search result snippet")
    assert citations.count() >= 2
    expect(answer.locator(".receipt-headline")).to_have_text(
        "Left this device: the search engines."
    )
    assert service.searxng.queries == [prepare_query(LITERAL_QUERY)]


def test_the_card_is_keyboard_operable(page, service):
    first_run(page, service)
    set_web_search(page, True)
    card = ask_to_search(page)
    expect(card).to_be_focused()
    page.keyboard.press("Tab")  # in reading order: the search settings' Change, Details, …
    expect(card.get_by_role("button", name="Change")).to_be_focused()
    page.keyboard.press("Tab")
    expect(card.get_by_text("Details", exact=True)).to_be_focused()
    page.keyboard.press("Tab")
    expect(card.get_by_label("Reason for denying (optional)")).to_be_focused()
    page.keyboard.press("Tab")
    expect(card.get_by_role("button", name="Deny")).to_be_focused()
    page.keyboard.press("Tab")
    expect(card.get_by_role("button", name="Edit")).to_be_focused()
    page.keyboard.press("Tab")
    expect(card.get_by_role("button", name="Approve")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".message.decision.approved")).to_be_visible()
    expect(page.get_by_label("Your message")).to_be_focused()


def test_the_policy_switch_persists_across_reloads(page, service):
    first_run(page, service)
    switch = page.get_by_role("switch", name="Web search")
    expect(switch).not_to_be_checked()
    set_web_search(page, True)
    page.reload()
    expect(page.get_by_role("switch", name="Web search")).to_be_checked()
    set_web_search(page, False)
    page.reload()
    switch = page.get_by_role("switch", name="Web search")
    expect(switch).to_be_enabled()
    expect(switch).not_to_be_checked()


def test_a_failed_policy_write_reverts_the_switch_and_says_why(page, service):
    first_run(page, service)
    switch = page.get_by_role("switch", name="Web search")
    expect(switch).to_be_enabled()
    capabilities = service.data_dir / "capabilities"
    if capabilities.is_dir():
        for child in capabilities.iterdir():
            child.unlink()
        capabilities.rmdir()
    capabilities.write_text("a file where the directory should be")
    switch.click()
    expect(page.locator("#web-search-error")).to_contain_text("could not be switched on")
    expect(switch).not_to_be_checked()
    expect(switch).to_be_enabled()


def test_sign_out_clears_the_card_the_conversation_and_the_session(page, service):
    first_run(page, service)
    set_web_search(page, True)
    ask_to_search(page)
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("#signin-view")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="You are signed out.")).to_be_visible()
    expect(page.locator("#signin-error")).to_be_empty()
    expect(page.locator(".confirmation-card")).to_have_count(0)
    expect(page.locator("#transcript > li")).to_have_count(0)
    status = page.evaluate("async () => (await fetch('/api/v1/conversation/policy')).status")
    assert status == 401
    assert page.evaluate("async () => (await import('/api.js')).session.csrfToken") is None
    page.get_by_label("Household password", exact=True).fill(PASSWORD)
    page.get_by_label("Household password", exact=True).press("Enter")
    expect(page.locator("#chat-view")).to_be_visible()
    expect(page.locator("#transcript > li")).to_have_count(0)
    expect(page.get_by_label("Your message")).to_be_enabled()


def test_an_expired_card_says_so_and_unlocks_the_composer(page, service):
    page.clock.install()
    first_run(page, service)
    set_web_search(page, True)
    card = ask_to_search(page)
    expect(page.get_by_label("Your message")).to_be_disabled()
    service.clock.advance(121)
    page.clock.fast_forward("02:01")
    expect(card).to_have_class(re.compile(r"\bexpired\b"))
    expect(card).to_contain_text("This request expired, so nothing was sent.")
    expect(card.get_by_role("button")).to_have_text(["Ask again"])
    expect(page.get_by_label("Your message")).to_be_enabled()
    expect(page.locator(".message.decision.expired")).to_contain_text("nothing was sent")
    send(page, "are you still there")
    expect(page.locator(".message.assistant .prose").last).to_have_text(
        "You said: are you still there"
    )
    assert service.searxng.queries == []


def test_the_activity_view_counts_what_happened(page, service):
    first_run(page, service)
    set_web_search(page, True)
    ask_to_search(page).get_by_role("button", name="Approve").click()
    expect(page.locator(".message.assistant .citations")).to_be_visible()
    page.get_by_role("button", name="Activity").click()
    expect(page.locator("#activity-summary p")).to_have_text(
        [
            "In the last 7 days, the assistant suggested 1 request.",
            "1 request was put to you for approval (an edited request is put to you again): "
            "you approved 1.",
            "1 ran.",
        ]
    )
    page.get_by_text("Counts per capability", exact=True).click()
    row = page.locator(".activity-table tbody tr", has_text="web.search")
    expect(row).to_be_visible()
    headers = page.locator(".activity-table thead th").all_inner_texts()
    cells = [row.locator("th").inner_text(), *row.locator("td").all_inner_texts()]
    counts = dict(zip(headers, cells, strict=True))
    assert counts["Put to you (edits again)"] == "1"
    assert counts["You approved"] == "1"
    assert counts["Ran"] == "1"


def test_the_console_fits_a_phone_screen(browser, service):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(service.setup_link)
        page.get_by_label("New password").fill(PASSWORD)
        page.get_by_label("Repeat the password").fill(PASSWORD)
        page.get_by_label("Repeat the password").press("Enter")
        set_web_search(page, True)
        ask_to_search(page)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360
        page.screenshot(path="test-artifacts/console/phone-confirmation-card.png", full_page=True)
    finally:
        context.close()
