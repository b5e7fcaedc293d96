"""Steps the Console's browser tests share: first run, the switch, sending, the card."""

from __future__ import annotations

from playwright.sync_api import expect

from .live_service import PASSWORD

LITERAL_QUERY = 'search <b>solar</b> panels & "cleaning" <img src=x onerror=alert(1)>'
"""A query that must reach the card verbatim, as text, never as markup."""


def first_run(page, service) -> None:
    """Open the first-run link, set the password, land in the chat."""
    page.goto(service.setup_link)
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("Repeat the password").fill(PASSWORD)
    page.get_by_role("button", name="Set password and sign in").click()
    expect(page.locator("#chat-view")).to_be_visible()


def set_web_search(page, enabled: bool) -> None:
    switch = page.get_by_role("switch", name="Web search")
    expect(switch).to_be_enabled()
    if switch.is_checked() != enabled:
        switch.click()
    expect(switch).to_be_checked(checked=enabled)
    expect(switch).to_be_enabled()


def send(page, text: str) -> None:
    composer = page.locator("#composer-input")  # labelled in the household's language
    composer.fill(text)
    composer.press("Enter")


def ask_to_search(page) -> object:
    """Send the literal query and return the confirmation card."""
    send(page, LITERAL_QUERY)
    card = page.locator(".confirmation-card")
    expect(card).to_be_visible()
    return card


QUOTED_PASSAGE = (
    "A step-by-step guide to cleaning residential solar panels without voiding the warranty."
)
"""The first search result's snippet (the fake SearXNG's first hit), which the scripted model
selects after an approved search."""


def expect_quoted_answer(prose, passage: tuple[str, str] = (QUOTED_PASSAGE, "example.org")) -> None:
    """The answer after the scripted model's search: the passage it chose, word for word in
    a quote with its source's host, and nothing of the model's own after it."""
    text, host = passage
    expect(prose.locator("blockquote")).to_have_text(
        f"{text} \u2014 {host}", use_inner_text=True  # a line break between
    )
    expect(prose.locator(":scope > p")).to_have_count(0)
