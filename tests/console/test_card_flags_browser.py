"""The card's household-identifier warnings and its Edit choice, in real chromium.

The household adds a private word in Settings, asks to search for it, sees the word
highlighted with its reason, edits the query and approves: SearXNG receives the
edited query, byte for byte. A refused edit is said on the card, which stays
answerable.
"""

from __future__ import annotations

from playwright.sync_api import expect

from .console_steps import expect_quoted_answer, first_run, send, set_web_search

ASKED = "search westbrook primary term dates"
EDITED = "search primary school term dates"


def add_private_word(page, word: str) -> None:
    page.get_by_role("button", name="Settings").click()
    expect(page.locator("#settings-view")).to_be_visible()
    page.get_by_label("Add a word or phrase").fill(word)
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.locator("#private-words-list .word")).to_have_text([word])
    page.get_by_role("button", name="Chat").click()


def flagged_card(page, service):
    first_run(page, service)
    set_web_search(page, True)
    add_private_word(page, "Westbrook Primary")
    send(page, ASKED)
    card = page.locator(".confirmation-card")
    expect(card).to_be_visible()
    return card


def test_the_flagged_span_is_highlighted_with_its_reason_then_edited_and_approved(page, service):
    card = flagged_card(page, service)

    mark = card.locator(".card-arguments mark.flagged")
    expect(mark).to_have_text("westbrook primary")
    expect(mark).to_have_attribute("title", "is on your household's list of private words")
    expect(card.locator(".card-flags li")).to_have_text(
        ["\u201cwestbrook primary\u201d is on your household's list of private words."]
    )
    expect(card.locator(".card-flags-title")).to_have_text(
        "Before you approve: this may tell the search engines or the site something about "
        "your household."
    )
    expect(card.get_by_role("button", name="Approve anyway")).to_be_visible()
    page.screenshot(path="test-artifacts/console/card-flagged.png")

    card.get_by_role("button", name="Edit").click()
    field = card.get_by_label("Edit query")
    expect(field).to_have_value(ASKED)
    field.fill(EDITED)
    card.get_by_role("button", name="Send edited request").click()

    answer = page.locator(".message.assistant .prose").last
    expect_quoted_answer(answer)
    expect(page.locator(".confirmation-card")).to_have_count(0)
    expect(page.locator(".message.decision.edited")).to_contain_text(EDITED)
    assert service.searxng.queries == [EDITED]


def test_a_refused_edit_is_said_on_the_card_which_can_still_be_approved(page, service):
    card = flagged_card(page, service)
    card.get_by_role("button", name="Edit").click()
    card.get_by_label("Edit query").fill("   ")
    card.get_by_role("button", name="Send edited request").click()

    error = card.locator(".edit-error")
    expect(error).to_contain_text("The edited request was not accepted")
    expect(error).to_contain_text("still waiting for your answer")
    assert service.searxng.queries == []

    card.get_by_role("button", name="Cancel").click()
    card.get_by_role("button", name="Approve anyway").click()
    expect_quoted_answer(page.locator(".message.assistant .prose").last)
    assert service.searxng.queries == [ASKED]


def test_private_words_can_be_removed_in_settings(page, service):
    first_run(page, service)
    add_private_word(page, "Juniper Lane")
    page.get_by_role("button", name="Settings").click()
    page.get_by_role("button", name="Remove Juniper Lane").click()
    expect(page.locator("#private-words-list")).to_have_text("No private words yet.")
    assert (service.data_dir / "private-words.json").read_text().count("Juniper") == 0
