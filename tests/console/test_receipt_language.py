"""The receipt under an answer in the answer's language (present.js shownReceipt, chat.js).

The product says the receipt (the wire's ``receipt``: headline, lines, stayed_local) from
its message catalogs; the Console shows it as said, and composes it in English, as
before, for an answer that carries none or one that disagrees with its receipts. The
English the service says is the English the Console composes, for every kind of line.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from sovereign.conversation.results import Receipt
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.language import SURE, best_guess
from sovereign.conversation.voice.receipts import say_receipt

from .console_steps import first_run, send, set_web_search

MESSAGE_PATH = "**/api/v1/conversation/message"
SEARCH = {"capability": "web.search", "locality": "external", "outcome": "executed"}
HEALTH = {"capability": "system.health", "locality": "local", "outcome": "executed"}
SEARCH_SAID_DE = {
    "headline": "Von diesem Gerät gesendet an: die Suchmaschinen.",
    "lines": ["Websuche: gesendet an die Suchmaschinen"],
    "stayed_local": False,
}
SEARCH_IN_ENGLISH = {
    "stayedLocal": False,
    "headline": "Left this device: the search engines.",
    "lines": ["Web search: sent to the search engines"],
}


def shown(js, said, receipts, calls=(), citations=()):
    """The receipt shownReceipt gives, without its ``label`` (what the receipt is called:
    tests/console/test_words_around_answers.py)."""
    receipt = js("present.js", "shownReceipt", said, list(receipts), list(calls), list(citations))
    del receipt["label"]
    return receipt


def test_the_receipt_is_shown_as_the_product_said_it(js):
    assert shown(js, SEARCH_SAID_DE, [SEARCH]) == {
        "stayedLocal": False,
        "headline": "Von diesem Gerät gesendet an: die Suchmaschinen.",
        "lines": ["Websuche: gesendet an die Suchmaschinen"],
    }


@pytest.mark.parametrize(
    "said",
    [
        None,
        {},
        {**SEARCH_SAID_DE, "headline": "  "},
        {**SEARCH_SAID_DE, "lines": [7]},
        {**SEARCH_SAID_DE, "lines": "web.search: gesendet"},
        {key: value for key, value in SEARCH_SAID_DE.items() if key != "stayed_local"},
        "Von diesem Gerät gesendet",
    ],
    ids=["none", "empty", "blank", "not-text", "not-a-list", "no-verdict", "a-string"],
)
def test_without_a_well_formed_receipt_the_console_composes_it_in_english(js, said):
    assert shown(js, said, [SEARCH]) == SEARCH_IN_ENGLISH


def test_a_said_receipt_that_disagrees_with_its_receipts_is_not_shown(js):
    stayed = {**SEARCH_SAID_DE, "stayed_local": True, "headline": "Alles ist geblieben."}
    assert shown(js, stayed, [SEARCH]) == SEARCH_IN_ENGLISH  # something left: it says so
    assert shown(js, SEARCH_SAID_DE, [SEARCH, SEARCH]) == {  # one line per receipt
        "stayedLocal": False,
        "headline": "Left this device: the search engines.",
        "lines": ["Web search: sent to the search engines"] * 2,
    }


CASES = [
    Receipt("system.health", "local", "executed"),
    Receipt("pihole.summary", "local", "failed", "EXECUTION_FAILED"),
    Receipt("system.health", "local", "denied"),
    Receipt("web.search", "external", "executed"),
    Receipt("web.fetch", "external", "executed", host="example.org:8443"),
    Receipt("web.fetch", "external", "failed", "FETCH_FAILED", host="example.org:8443"),
    Receipt("web.search", "external", "failed", "EXECUTION_FAILED", sent=False),
    Receipt("web.fetch", "external", "failed", "FETCH_FAILED", sent=False),
    Receipt("web.search", "external", "refused", "POLICY_DISABLED"),
    Receipt("web.fetch", "external", "refused", "SITE_NOT_ALLOWED"),
    Receipt("web.search", "external", "refused", "NOT_ASKED"),
    Receipt("web.search", "external", "refused", "AUDIT_UNAVAILABLE"),
    Receipt("web.search", "external", "refused", "SOMETHING_NEW"),
    Receipt("web.search", "external", "denied"),
    Receipt("web.fetch", "external", "expired"),
    Receipt("mail.send", "external", "executed"),
]
FETCHED = [{"capability": "web.fetch", "arguments": {"url": "https://example.org:8443/a"}}]


@pytest.mark.parametrize(
    "receipts",
    [CASES[:3], CASES[6:8], CASES[5:8], CASES[3:6], CASES[8:15], CASES],
    ids=["local", "nothing-left", "may-have-left", "left", "never-ran", "all"],
)
def test_the_english_the_service_says_is_the_english_the_console_composes(js, receipts):
    said = say_receipt(receipts, Voice("en"))
    wire = [receipt.to_wire() for receipt in receipts]
    assert js("present.js", "receiptSummary", wire, FETCHED, []) == {
        "stayedLocal": said.stayed_local,
        "headline": said.headline,
        "lines": said.lines,
    }


def answer_with(page, status: int, event: str, body: dict) -> None:
    """Answer the next /message request with one ``result`` or ``error`` event."""
    frame = f"event: {event}\ndata: {json.dumps(body)}\n\n"
    page.route(
        MESSAGE_PATH,
        lambda route: route.fulfill(status=status, content_type="text/event-stream", body=frame),
        times=1,
    )


def expect_receipt(message, headline: str, lines: list[str], where: str | None = None) -> None:
    """The receipt under ``message`` reads ``headline`` and ``lines``; ``where`` is
    ``stayed-local`` or ``left-device`` when given."""
    expect(message.locator(".receipt-headline")).to_have_text(headline)
    expect(message.locator(".receipt-lines li")).to_have_text(lines)
    if where is not None:
        expect(message.locator(".receipts")).to_have_class(f"receipts {where}")


def choose_language(page, language: str, name: str) -> None:
    page.get_by_role("button", name="Settings").click()
    page.get_by_label(
        "Language of the Console, and of answers when a question is too short to tell"
    ).select_option(language)
    page.get_by_role("button", name="Save language").click()
    expect(page.locator("#household-settings-status")).to_contain_text(name)
    page.locator("#nav-chat").click()  # named in the household's language from now on


def test_an_answer_s_receipt_is_shown_in_its_language_and_an_older_one_in_english(page, service):
    first_run(page, service)
    said = {
        "headline": "Tutto è rimasto su questo apparecchio.",
        "lines": ["Stato di questo apparecchio: eseguito su questo apparecchio"],
        "stayed_local": True,
    }
    answer = {"text": "La CPU è a 48 °C.", "pending_confirmation": None, "citations": [],
              "receipts": [HEALTH], "facts": [], "receipt": said}  # fmt: skip
    answer_with(page, 200, "result", answer)
    send(page, "Quanto è calda la CPU?")
    italian = page.locator(".message.assistant").last
    expect_receipt(italian, said["headline"], said["lines"], "stayed-local")

    older = {key: value for key, value in answer.items() if key != "receipt"}
    answer_with(page, 200, "result", older)  # a service that says no receipt
    send(page, "E il disco?")
    english = page.locator(".message.assistant").last
    expect_receipt(english, "Stayed on this device.", ["This device's health: ran on this device"])


def test_a_failed_turn_s_receipt_is_shown_in_its_language(page, service):
    first_run(page, service)
    error = {
        "error": {"code": "MODEL_UNAVAILABLE", "message": "The language model cannot be reached."},
        "citations": [],
        "receipts": [SEARCH],
        "receipt": SEARCH_SAID_DE,
    }
    answer_with(page, 200, "error", error)
    send(page, "Such nach Solarmodulen")
    failed = page.locator(".message.assistant.failed")
    expect_receipt(failed, SEARCH_SAID_DE["headline"], SEARCH_SAID_DE["lines"], "left-device")


def test_a_real_answer_in_italian_has_its_receipt_in_italian(page, service):
    first_run(page, service)
    choose_language(page, "it", "Italiano")
    send(page, "how hot")  # two words the language detector cannot place
    answer = page.locator(".message.assistant").last
    expect(answer.locator(".facts h4")).to_have_text("Cosa ha riportato l'apparecchio")
    expect_receipt(
        answer,
        "Tutto è rimasto su questo apparecchio.",
        ["Stato di questo apparecchio: eseguito su questo apparecchio"],
    )


SHORT_SEARCH = "search pannelli"
"""A search the scripted model proposes, in two words the language detector cannot place
(checked below), so the household's language setting decides the answer's."""


def search_card_in(page, service, language: str, name: str):
    """The card for :data:`SHORT_SEARCH`, asked with web search on and the household's
    language set to ``language`` (named ``name`` in itself), once it is shown."""
    first_run(page, service)
    set_web_search(page, True)
    choose_language(page, language, name)
    send(page, SHORT_SEARCH)
    card = page.locator(".confirmation-card")
    expect(card).to_be_visible()
    return card


def test_the_short_search_here_is_one_the_detector_cannot_place():
    guess = best_guess(SHORT_SEARCH)
    assert guess is not None and guess[1] < SURE


def test_an_approved_search_s_receipt_says_what_left_in_the_answer_s_language(page, service):
    card = search_card_in(page, service, "it", "Italiano")
    card.get_by_role("button", name="Approva", exact=True).click()
    answer = page.locator(".message.assistant").last
    expect_receipt(
        answer,
        "Uscito da questo apparecchio verso: i motori di ricerca.",
        ["Ricerca sul web: inviato verso i motori di ricerca"],
        "left-device",
    )
    assert service.searxng.queries == [SHORT_SEARCH]


def test_a_card_withdrawn_under_activity_shows_its_receipt_in_the_turn_s_language(page, service):
    search_card_in(page, service, "de", "Deutsch")
    page.get_by_role("button", name="Aktivität").click()  # the Console's words, in German
    waiting = page.locator(".pending-card")
    waiting.get_by_role("button", name="Ablehnen").click()  # the card in the turn's language
    expect(waiting.locator(".pending-outcome")).to_have_text(
        "Zurückgezogen: Es wurde nichts gesendet."  # the Console's own words, in German
    )
    expect(waiting.locator(".receipt-headline")).to_have_text(
        "Alles ist auf diesem Gerät geblieben."
    )
    assert service.searxng.queries == []
