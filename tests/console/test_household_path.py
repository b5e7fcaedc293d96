"""The household's path through the Console, at phone width (390 px) and desktop width.

First run, a device question with its stages on the progress line, a search card
approved while the device's search service is down, a denial, an edit, a long paste,
Activity, Settings and a wrong-password series: each screen is asserted on what it says,
checked for contrast, tap-target size and sideways scrolling (household_checks.py), and
kept as a screenshot under test-artifacts/console/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import ARTIFACTS
from .console_steps import expect_quoted_answer, send, set_web_search
from .household_checks import screen_problems
from .live_service import PASSWORD

WIDTHS = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 900}},
}


@pytest.fixture(params=sorted(WIDTHS))
def household(request, browser, service):
    context = browser.new_context(**WIDTHS[request.param])
    page = context.new_page()
    page.width_name = request.param
    try:
        yield page
    finally:
        context.close()


def check_screen(page, name: str) -> None:
    """The screen passes the checks, and is kept as a screenshot."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(Path(ARTIFACTS) / f"household-{page.width_name}-{name}.png"), full_page=True
    )
    assert screen_problems(page) == [], name


def test_the_household_path(household, service):
    page = household
    # First run
    page.goto(service.setup_link)
    expect(page.get_by_role("heading", name="Set the household password")).to_be_visible()
    check_screen(page, "1-first-run")
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("Repeat the password").fill(PASSWORD)
    page.get_by_role("button", name="Set password and sign in").click()
    expect(page.locator("#chat-view")).to_be_visible()
    hint = page.locator("#composer-note")
    if page.width_name == "phone":
        expect(hint).to_be_hidden()  # no Shift+Enter on a touch screen
    else:
        expect(hint).to_have_text("Enter sends; Shift+Enter starts a new line.")
    check_screen(page, "2-chat")

    # A device question, with its stages on the progress line
    service.backend.before_reply.clear()
    send(page, "how hot is the device")
    progress = page.locator("#thinking")
    expect(progress.locator(".progress-words")).to_have_text(
        "Reading your question and choosing what to check…"
    )
    expect(progress.get_by_role("button", name="Stop")).to_be_visible()
    check_screen(page, "3-progress")
    service.backend.before_reply.set()
    answer = page.locator(".message.assistant").last
    expect(answer.locator(".prose")).to_contain_text("of memory is free, of")  # said by the product
    expect(answer.locator(".receipt-headline")).to_have_text("Stayed on this device.")
    expect(progress).to_be_hidden()

    # A search card, approved while the device's search service is down
    set_web_search(page, True)
    service.searxng.down = True
    send(page, "search solar panel cleaning")
    card = page.locator(".confirmation-card")
    expect(card.locator(".card-heading")).to_have_text("Search the web for:")
    expect(card.locator(".argument-value")).to_have_text("search solar panel cleaning")
    expect(card.locator(".card-search-settings")).to_contain_text(
        "Searched in any language (the search service chooses), safe search moderate"
    )
    expect(card.get_by_text("web.search")).to_be_hidden()  # behind Details
    check_screen(page, "4-card")
    card.get_by_role("button", name="Approve").click()
    answer = page.locator(".message.assistant").last
    expect(answer.locator(".receipt-headline")).to_have_text(
        "Nothing left this device: the device's search service is not running."
    )
    expect(answer).not_to_contain_text("systemctl")
    expect(answer).not_to_contain_text("start-searxng")
    check_screen(page, "5-searxng-down")
    service.searxng.down = False

    # A denial
    send(page, "search school holidays")
    card = page.locator(".confirmation-card")
    card.get_by_role("button", name="Deny").click()
    expect(page.locator(".message.decision.denied")).to_contain_text("You denied")
    expect(page.locator(".message.assistant").last.locator(".receipt-headline")).to_have_text(
        "Stayed on this device."
    )
    assert service.searxng.queries == []

    # An edit: the note of what was sent comes before its answer
    send(page, "search solar panels")
    card = page.locator(".confirmation-card")
    card.get_by_role("button", name="Edit").click()
    card.get_by_label("Edit query").fill("solar panel cleaning tips")
    card.get_by_role("button", name="Send edited request").click()
    last_two = page.locator("#transcript > li").nth(-2)
    expect(last_two).to_have_text(
        "You sent an edited request to search the web for “solar panel cleaning tips”."
    )
    expect_quoted_answer(page.locator("#transcript > li").last.locator(".prose"))
    assert service.searxng.queries == ["solar panel cleaning tips"]
    check_screen(page, "6-edited")

    # A long paste: refused with a counter, never cut
    composer = page.get_by_label("Your message")
    composer.fill("word " * 4000)
    expect(page.locator("#composer-count")).to_have_text("19,999 of 8,000 characters")
    expect(page.locator("#composer-error")).to_contain_text("nothing has been cut")
    check_screen(page, "7-long-paste")
    composer.fill("")

    # Activity: sentences first, the owner's repair, the table behind its disclosure
    page.get_by_role("button", name="Activity").click()
    summary = page.locator("#activity-summary")
    expect(summary.locator("p").first).to_have_text(
        "In the last 7 days, the assistant suggested 4 requests."
    )
    expect(summary.locator(".repairs")).to_contain_text("start-searxng")
    check_screen(page, "8-activity")
    page.get_by_text("Counts per capability", exact=True).click()
    expect(page.locator(".activity-table")).to_be_visible()
    check_screen(page, "9-activity-table")

    # Settings
    page.get_by_role("button", name="Settings").click()
    expect(
        page.get_by_label(
            "Language of the Console, and of answers when a question is too short to tell"
        )
    ).to_have_value("en")
    expect(page.get_by_label("Safe search", exact=True)).to_have_value("1")
    expect(
        page.get_by_label("No site list: the assistant may ask to read any public site")
    ).to_be_checked()
    check_screen(page, "10-settings")

    # A wrong-password series
    page.get_by_role("button", name="Sign out").click()
    password = page.get_by_label("Household password", exact=True)
    error = page.locator("#signin-error")
    for left in (
        "4 more wrong tries",
        "3 more wrong tries",
        "2 more wrong tries",
        "1 more wrong try",
    ):
        password.fill("not the password")
        password.press("Enter")
        expect(error).to_have_text(f"That password is not right; {left} before sign-in pauses.")
    password.fill("not the password")
    password.press("Enter")
    expect(error).to_have_text(
        "That password is not right; the next wrong password pauses sign-in."
    )
    password.fill("not the password")
    password.press("Enter")
    expect(error).to_have_text(
        re.compile(
            r"^That password is not right; sign-in is paused for 1 second\. "
            r"The pause ends at \d\d:\d\d:\d\d\.$"
        )
    )
    check_screen(page, "11-wrong-password")
    service.clock.advance(2)
    password.fill(PASSWORD)
    password.press("Enter")
    expect(page.locator("#chat-view")).to_be_visible()
