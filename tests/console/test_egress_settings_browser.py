"""Settings > sites and search settings in real chromium: the household edits both, the
service stores exactly what the page shows, and the next search card shows the language
and safe search beside the query, which SearXNG then receives byte for byte."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from playwright.sync_api import expect

from .console_steps import expect_quoted_answer, first_run, send, set_web_search


def open_settings(page) -> None:
    page.get_by_role("button", name="Settings").click()
    expect(page.locator("#settings-view")).to_be_visible()


def stored(service, name: str) -> dict:
    return json.loads((service.data_dir / "capabilities" / name).read_text())


def test_the_household_edits_the_site_list(page, service):
    first_run(page, service)
    open_settings(page)
    allowed = page.locator("#site-list-allow .word")
    blocked = page.locator("#site-list-block .word")
    no_list = "No site list: the assistant may ask to read any public site"
    expect(page.get_by_label(no_list)).to_be_checked()

    page.get_by_label("Site to allow").fill("*.Wiki.example")
    page.get_by_role("button", name="Add to allowed sites").click()
    expect(allowed).to_have_text(["*.wiki.example"])  # canonical, as the service stored it
    page.get_by_label("Site to allow").fill("Bücher.example.")
    page.get_by_role("button", name="Add to allowed sites").click()
    expect(allowed).to_have_text(["*.wiki.example", "xn--bcher-kva.example"])
    page.get_by_label("Site to block").fill("ads.example")
    page.get_by_role("button", name="Add to blocked sites").click()
    expect(blocked).to_have_text(["ads.example"])
    page.get_by_label("Only the allowed sites").check()
    expect(page.get_by_label("Only the allowed sites")).to_be_checked()

    page.get_by_label("Site to allow").fill("*.co.uk")
    page.get_by_role("button", name="Add to allowed sites").click()
    expect(page.locator("#site-list-error")).to_contain_text("public suffix co.uk")
    expect(allowed).to_have_text(["*.wiki.example", "xn--bcher-kva.example"])

    page.get_by_role("button", name="Remove xn--bcher-kva.example").click()
    expect(allowed).to_have_text(["*.wiki.example"])
    assert stored(service, "sites.json") == {
        "mode": "allow-only",
        "allow": ["*.wiki.example"],
        "block": ["ads.example"],
    }

    page.reload()  # what the page shows is what the service keeps
    expect(page.locator("#chat-view")).to_be_visible()
    open_settings(page)
    expect(allowed).to_have_text(["*.wiki.example"])
    expect(page.get_by_label("Only the allowed sites")).to_be_checked()


def test_the_household_sets_the_search_language_and_the_card_and_wire_carry_it(page, service):
    first_run(page, service)
    open_settings(page)
    language = page.get_by_label("Language", exact=True)
    expect(language).to_have_value("auto")
    language.select_option("de")
    page.get_by_label("Safe search", exact=True).select_option(label="moderate")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#search-settings-status")).to_have_text(
        "Saved: searches go in German, safe search moderate."
    )
    assert stored(service, "search.json") == {"language": "de", "safesearch": 1}

    page.get_by_role("button", name="Chat").click()
    set_web_search(page, True)
    send(page, "search solar panel cleaning")
    card = page.locator(".confirmation-card")
    expect(card).to_be_visible()
    expect(card.locator(".card-search-settings")).to_contain_text(
        "Searched in German, safe search moderate (your search settings)."
    )
    expect(card.locator(".card-heading")).to_have_text("Search the web for:")
    expect(card.locator(".card-arguments dt")).to_have_text(["Words"])  # the rest: Details
    card.get_by_text("Details", exact=True).click()
    shown = dict(
        zip(
            card.locator(".card-technical dt").all_text_contents(),
            card.locator(".card-technical dd").all_text_contents(),
            strict=True,
        )
    )
    assert shown["language"] == "de" and shown["safesearch"] == "1"
    page.screenshot(path="test-artifacts/console/card-search-settings.png")
    expect(card.get_by_role("button", name="Edit")).to_be_visible()
    card.get_by_role("button", name="Edit").click()
    expect(card.get_by_label("Edit language")).to_have_count(0)  # set in Settings only
    card.get_by_role("button", name="Cancel").click()
    card.get_by_role("button", name="Approve").click()
    expect_quoted_answer(page.locator(".message.assistant .prose").last)
    (raw,) = service.searxng.raw_queries
    sent = parse_qs(raw.decode("ascii"))
    assert sent["language"] == [shown["language"]]
    assert sent["safesearch"] == [shown["safesearch"]]
    assert sent["q"] == [shown["query"]]
