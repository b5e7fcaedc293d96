"""The approval card and the note its decision leaves, in the turn's language (card.js,
card-edit.js, card-words.js, chat.js).

The product says the card's words (``pending_confirmation.words``); the Console shows them
as said, fills in each argument verbatim, says a time window as a window, and keeps its
English only for a service that sends none; the English the service says is the English
the Console keeps. Whatever the words, the card still approves, denies and edits exactly
what it shows.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from sovereign.conversation.voice.card import card_words
from sovereign.conversation.voice.catalogs import Voice

from .console_steps import first_run, send
from .test_receipt_language import SHORT_SEARCH, answer_with, search_card_in

ZOO = "Öffnungszeiten Berliner Zoos heute"
PENDINGS = [
    {"capability": "web.search",
     "arguments": {"query": ZOO, "time_range": "day", "language": "auto", "safesearch": 1}},
    {"capability": "web.search", "edited": True,
     "arguments": {"query": "solar", "language": "de", "safesearch": 2}},
    {"capability": "web.fetch", "arguments": {"url": "https://zoo.example/", "start_index": 9}},
    {"capability": "home_assistant.states", "arguments": {"entity_id": "sensor.kitchen"}},
]  # fmt: skip


@pytest.mark.parametrize("pending", PENDINGS, ids=lambda p: p["capability"])
def test_the_english_the_service_says_is_the_english_the_console_keeps(js, pending):
    said = card_words(pending["capability"], pending["arguments"], Voice("en"),
                      edited=pending.get("edited", False))  # fmt: skip
    assert js("card-words.js", "englishCardWords", pending) == said


def test_words_the_product_said_are_shown_and_missing_ones_are_english(js):
    pending = {**PENDINGS[0], "words": {"deny": "Ablehnen", "labels": {"query": "Suchwörter"},
                                        "approve": "", "notes": "not a map"}}  # fmt: skip
    shown = js("card-words.js", "shownCardWords", pending)
    assert (shown["deny"], shown["approve"]) == ("Ablehnen", "Approve")
    assert shown["labels"] == {"query": "Suchwörter", "time_range": "Time window"}
    assert shown["notes"]["approved"] == "You approved: search the web for {query}, {time_range}."


def test_a_value_filled_in_is_never_read_again_for_placeholders(js):
    filled = js("card-words.js", "filledText", "Sie haben abgelehnt. Ihr Grund: „{reason}“",
                {"reason": "{query} und {reason}."})  # fmt: skip
    assert filled == "Sie haben abgelehnt. Ihr Grund: „{query} und {reason}.“"


def test_a_german_card_speaks_german_and_a_denial_s_note_quotes_the_reason_once(page, service):
    card = search_card_in(page, service, "de", "Deutsch")
    expect(card.locator("h3")).to_have_text("Diese Anfrage freigeben?")
    expect(card.locator(".card-heading")).to_have_text("Im Web suchen nach:")
    expect(card.locator(".card-arguments dd")).to_have_text([SHORT_SEARCH])  # verbatim
    expect(card.locator(".card-search-settings")).to_have_text(
        "Gesucht wird in beliebiger Sprache (der Suchdienst wählt), SafeSearch mittel "
        "(Ihre Sucheinstellungen). Ändern"
    )
    expect(card.locator(".card-sentence")).to_have_text(
        "Wenn Sie freigeben, geht genau diese Suchanfrage aus diesem Gerät hinaus, an die "
        "Suchmaschinen."
    )
    expect(card.locator(".countdown")).to_have_text(re.compile(r"Läuft ab in [12]:\d\d"))
    expect(card.locator(".card-details summary")).to_have_text("Details")
    expect(card.locator(".card-details p")).to_have_text("Fähigkeit web.search, Version 1")
    card.get_by_label("Grund für die Ablehnung (optional)").fill("Das möchte ich doch nicht.")
    expect(card.get_by_role("button", name="Bearbeiten")).to_be_visible()
    expect(card.get_by_role("button", name="Freigeben", exact=True)).to_be_visible()
    card.get_by_role("button", name="Ablehnen").click()
    note = page.locator(".message.decision.denied")
    expect(note).to_have_text(
        f"Sie haben abgelehnt: im Web suchen nach „{SHORT_SEARCH}“. "
        "Ihr Grund: „Das möchte ich doch nicht.“"
    )
    expect(note.locator(".decision-argument")).to_have_text([f"„{SHORT_SEARCH}“"])
    expect(page.locator(".message.assistant").last).to_be_visible()
    assert service.searxng.queries == []


def test_a_german_card_s_edit_form_speaks_german_and_sends_the_edit(page, service):
    card = search_card_in(page, service, "de", "Deutsch")
    card.get_by_role("button", name="Bearbeiten").click()
    expect(card.locator(".card-edit .hint")).to_contain_text("Ändern Sie, was gesendet wird.")
    card.get_by_label("Suchwörter bearbeiten").fill("search Zoo Berlin")
    expect(card.get_by_role("button", name="Abbrechen")).to_be_visible()
    card.get_by_role("button", name="Geänderte Anfrage senden").click()
    note = page.locator(".message.decision.edited")
    expect(note).to_have_text(
        "Sie haben eine geänderte Anfrage gesendet: im Web suchen nach „search Zoo Berlin“."
    )
    expect(page.locator(".message.assistant").last).to_be_visible()
    assert service.searxng.queries == ["search Zoo Berlin"]


def test_an_italian_card_approves_and_its_note_is_italian(page, service):
    card = search_card_in(page, service, "it", "Italiano")
    expect(card.locator("h3")).to_have_text("Approvi questa richiesta?")
    card.get_by_role("button", name="Approva", exact=True).click()
    expect(page.locator(".message.decision.approved")).to_have_text(
        f"Hai approvato: cercare «{SHORT_SEARCH}» sul web."
    )
    expect(page.locator(".message.assistant .receipts").last).to_be_visible()
    assert service.searxng.queries == [SHORT_SEARCH]


def test_a_card_with_a_window_says_it_as_a_window_and_english_without_words(page, service):
    first_run(page, service)
    pending = {"token": "t" * 43, "capability": "web.search", "version": 1,
               "arguments": PENDINGS[0]["arguments"], "expires_in_seconds": 120,
               "flags": [], "edited": False}  # fmt: skip
    said = {**pending, "words": card_words("web.search", pending["arguments"], Voice("de"))}
    answer = {"text": "", "citations": [], "receipts": [], "facts": []}
    answer_with(page, 200, "result", {**answer, "pending_confirmation": said})
    send(page, "Öffnungszeiten Berliner Zoos heute?")
    card = page.locator(".confirmation-card")
    expect(card.locator(".card-arguments dt")).to_have_text(["Suchwörter", "Zeitraum"])
    expect(card.locator(".card-arguments dd")).to_have_text([ZOO, "aus dem letzten Tag"])
    expect(card.locator(".card-technical dd")).to_contain_text(["day"])  # the literal sent
    answer_with(page, 200, "result", {**answer, "text": "Ok.", "pending_confirmation": None})
    card.get_by_role("button", name="Freigeben", exact=True).click()
    expect(page.locator(".message.decision.approved")).to_have_text(
        f"Sie haben freigegeben: im Web suchen nach „{ZOO}“, aus dem letzten Tag."
    )
    answer_with(page, 200, "result", {**answer, "pending_confirmation": pending})  # no words
    send(page, "Öffnungszeiten Berliner Zoos heute?")
    card = page.locator(".confirmation-card")
    expect(card.locator("h3")).to_have_text("Approve this request?")
    expect(card.locator(".card-arguments dt")).to_have_text(["Words", "Time window"])
    expect(card.locator(".card-arguments dd")).to_have_text([ZOO, "from the last day"])
    card.get_by_label("Reason for denying (optional)").fill("Not now!")
    answer_with(page, 200, "result", {**answer, "text": "Ok.", "pending_confirmation": None})
    card.get_by_role("button", name="Deny").click()
    expect(page.locator(".message.decision.denied")).to_have_text(
        f"You denied: search the web for “{ZOO}”, from the last day. Your reason: “Not now!”"
    )


FLAGGED = {
    "capability": "web.search",
    "arguments": {"query": "mail maya@example.com", "language": "auto", "safesearch": 1},
    "flags": [
        {"argument": "query", "start": 5, "end": 21, "kind": "email_address",
         "reason": "looks like an e-mail address"},
        {"argument": "query", "start": 0, "end": 4, "kind": "added_by_assistant",
         "reason": "is not in what you wrote: the assistant added it"},
    ],
}  # fmt: skip


def test_the_english_of_a_flagged_card_is_the_service_s(js):
    said = card_words(FLAGGED["capability"], FLAGGED["arguments"], Voice("en"),
                      flags=FLAGGED["flags"])  # fmt: skip
    assert js("card-words.js", "englishCardWords", FLAGGED) == said


def test_a_german_card_s_flags_are_said_in_german_and_unsaid_ones_stay_english(js):
    words = card_words(FLAGGED["capability"], FLAGGED["arguments"], Voice("de"),
                       flags=FLAGGED["flags"])  # fmt: skip
    shown = js("card-words.js", "shownCardWords", {**FLAGGED, "words": words})
    flags = js("flags.js", "saidFlags", FLAGGED["flags"], shown["flag_reasons"])
    notes = js("flags.js", "flagNotes", FLAGGED["arguments"], flags)
    assert [js("flags.js", "flagSentence", note, shown) for note in notes] == [
        "„mail“ steht nicht in dem, was Sie geschrieben haben: Der Assistent hat es hinzugefügt.",
        "„maya@example.com“ sieht aus wie eine E-Mail-Adresse.",
    ]
    assert js("flags.js", "flagTitles", FLAGGED["flags"], shown) == [
        words["flag_titles"]["household"], words["flag_titles"]["added_by_assistant"]]
    # a reason the product did not say (or not as text) is the flag's own English
    unsaid = js("flags.js", "saidFlags", FLAGGED["flags"], {"email_address": 5})
    assert [f["reason"] for f in unsaid] == [f["reason"] for f in FLAGGED["flags"]]
    assert js("flags.js", "saidFlags", FLAGGED["flags"], None)[0]["reason"] == (
        "looks like an e-mail address")


@pytest.mark.parametrize(
    ("language", "joined"),
    [("en", "a, b, and c"), ("de", "a, b und c"), ("fr", "a, b et c"), ("it", "a, b e c")],
)
def test_reasons_are_joined_as_the_language_joins_a_list(js, language, joined):
    patterns = card_words("web.search", {}, Voice(language))["list"]
    assert js("flags.js", "listed", ["a", "b", "c"], patterns) == joined
    assert js("flags.js", "listed", ["a", "b", "c", "d"], patterns).startswith("a, b, c")
    assert js("flags.js", "listed", ["a"], patterns) == "a"


def test_the_marks_in_a_value_speak_the_card_s_language(js):
    marks = card_words("web.search", {}, Voice("fr"))["marks"]
    assert js("argument.js", "spacesLabel", 1, marks) == "1 espace"
    assert js("argument.js", "spacesLabel", 3, marks) == "3 espaces"
    assert js("argument.js", "spacesLabel", 3) == "3 spaces"
    assert js("argument.js", "spacesLabel", 1, {"space_one": ""}) == "1 space"


def test_a_german_card_s_flags_and_a_refused_edit_speak_german(page, service):
    from sovereign.service.private_words import PrivateWordsStore

    PrivateWordsStore(service.data_dir).add("pannelli")
    card = search_card_in(page, service, "de", "Deutsch")
    mark = card.locator(".card-arguments mark.flagged")
    expect(mark).to_have_text("pannelli")
    expect(mark).to_have_attribute("title", "steht auf der Liste privater Wörter Ihres Haushalts")
    expect(card.locator(".card-flags-title")).to_have_text(
        "Bevor Sie freigeben: Das könnte den Suchmaschinen oder der Website etwas über Ihren "
        "Haushalt verraten."
    )
    expect(card.locator(".card-flags li")).to_have_text(
        ["„pannelli“ steht auf der Liste privater Wörter Ihres Haushalts."]
    )
    card.get_by_role("button", name="Bearbeiten").click()
    card.get_by_label("Suchwörter bearbeiten").fill("a\u200bb")
    card.get_by_role("button", name="Geänderte Anfrage senden").click()
    error = card.locator(".edit-error")
    expect(error).to_contain_text(
        "Die geänderte Anfrage wurde nicht angenommen: so, wie sie geschrieben ist, kann sie "
        "nicht gesendet werden. Die ursprüngliche Anfrage wartet weiter auf Ihre Antwort."
    )
    expect(error).to_have_attribute("lang", "de")
    expect(error.locator(".edit-error-detail")).to_have_text(
        "query enthält an Stelle 2 ein Zeichen, das die Karte nicht zeigen kann "
        "(U+200B ZERO WIDTH SPACE)."
    )
    expect(error.locator(".edit-error-detail")).to_have_attribute("lang", "de")
    card.get_by_role("button", name="Abbrechen").click()
    card.get_by_role("button", name="Trotzdem freigeben").click()
    expect(page.locator(".message.decision.approved")).to_be_visible()
    expect(page.locator(".message.assistant .citations").last).to_be_visible()  # it ran
    assert service.searxng.queries == ["search pannelli"]
