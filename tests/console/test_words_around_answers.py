"""The Console's words around an answer in the answer's language (present.js, progress.js,
chat.js).

The product says them from its catalogs and sends them beside what they name: the
progress line's words and Stop button (each ``progress`` event), the receipt's accessible
name (``receipt.label``), the sources' heading (each citation's ``heading``) and the
notes for an approval whose answer broke off (a card's ``approval_notes``). The Console
shows them as said and keeps its English only for a service that sends none; the English
the service says is the English the Console keeps.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from sovereign.conversation.results import Citation, citations_wire
from sovereign.conversation.voice.around import approval_notes, say_progress
from sovereign.conversation.voice.catalogs import Voice

from .console_steps import first_run, send
from .test_console_recovery import break_the_next_approval_stream, lose_the_next_approval_outcome
from .test_receipt_language import choose_language, search_card_in

SEARCH = {"capability": "web.search", "locality": "external", "outcome": "executed"}
SAID = {"headline": "Alles ist auf diesem Gerät geblieben.", "lines": [], "stayed_local": True}


@pytest.mark.parametrize(
    "citation",
    [
        Citation("web.search", "Solar", "https://solar.example/a", "Module.", "2026-12-04"),
        Citation("web.fetch", "Menu", "https://school.example/menu", "page read", "2026-12-04"),
        Citation(
            "web.fetch", "Old", "https://a.example/", "redirect, not followed", "2026-12-04",
            redirected=True, final_url="https://b.example/",
        ),
        Citation(
            "web.fetch", "Old", "https://a.example/", "redirect, not followed", "2026-12-04",
            redirected=True, final_url="https://c.example/", redirect_allowed=False,
        ),
    ],
)  # fmt: skip
def test_each_source_s_kind_is_shown_as_said_and_the_service_s_english_is_the_console_s(
    js, citation
):
    [english] = citations_wire([citation], Voice("en"))
    [italian] = citations_wire([citation], Voice("it"))
    unsaid = {k: v for k, v in english.items() if k != "kind"}
    assert js("present.js", "citationEntries", [unsaid])[0]["kind"] == english["kind"]
    [shown] = js("present.js", "citationEntries", [italian])
    assert shown["kind"] == italian["kind"] != english["kind"]
    assert shown["page"] is (citation.capability == "web.fetch" and not citation.redirected)


def test_the_receipt_is_named_as_the_product_named_it_else_receipt(js):
    assert js("present.js", "shownReceipt", {**SAID, "label": "Beleg"}, [])["label"] == "Beleg"
    for said in (SAID, {**SAID, "label": "  "}, {**SAID, "label": 3}, None):
        assert js("present.js", "shownReceipt", said, [])["label"] == "Receipt"
    disagreeing = {**SAID, "label": "Beleg"}  # says nothing left, but a search ran
    assert js("present.js", "shownReceipt", disagreeing, [SEARCH])["label"] == "Receipt"


def test_the_sources_are_headed_as_the_product_said_else_sources(js):
    cited = [{"title": "a", "heading": ""}, {"title": "b", "heading": "Quellen"}]
    assert js("present.js", "sourcesHeading", cited) == "Quellen"
    assert js("present.js", "sourcesHeading", [{"title": "a"}]) == "Sources"
    assert js("present.js", "sourcesHeading", None) == "Sources"


@pytest.mark.parametrize(
    ("outcome", "kept"), [("executed", "ran"), ("failed", "failed"), ("denied", "not_run")]
)
def test_the_note_after_a_broken_answer_is_the_card_s_for_the_kept_outcome(js, outcome, kept):
    notes = approval_notes("web.search", Voice("nl"))
    receipts = [{**SEARCH, "outcome": outcome}]
    assert js("present.js", "recoveredNote", receipts, "web.search", notes) == notes[kept]
    english = approval_notes("web.search", Voice("en"))
    assert js("present.js", "recoveredNote", receipts, "web.search") == english[kept]
    assert js("present.js", "recoveredNote", receipts, "web.search", {}) == english[kept]


def test_the_note_when_the_outcome_is_lost_is_the_card_s_else_english(js):
    notes = approval_notes("web.fetch", Voice("es"))
    assert js("present.js", "lostOutcomeNote", "web.fetch", notes) == notes["lost"]
    english = approval_notes("web.fetch", Voice("en"))["lost"]
    assert js("present.js", "lostOutcomeNote", "web.fetch", None) == english
    assert js("present.js", "lostOutcomeNote", "web.fetch", {"lost": ""}) == english


STAGES = [
    ("queued", None),
    ("loading_model", None),
    ("choosing", None),
    ("writing", None),
    ("checking", "web.search"),
    ("checking", "web.fetch"),
    ("checking", "system.health"),
    ("checking", "pihole.summary"),
    ("checking", "home_assistant.states"),
    ("checking", "web.other"),
    ("checking", "mail.send"),
]


@pytest.mark.parametrize(("stage", "capability"), STAGES)
def test_a_stage_is_shown_as_said_and_the_service_s_english_is_the_console_s(js, stage, capability):
    event = {"stage": stage, "capability": capability}
    english = say_progress(stage, capability, Voice("en"))["words"]
    assert js("progress.js", "stageWords", event) == english
    german = {**event, **say_progress(stage, capability, Voice("de"))}
    assert js("progress.js", "stageWords", german) == german["words"]


@pytest.mark.parametrize(
    ("seconds", "language", "words"),
    [
        (1, "en", "1 second"),
        (12, "en", "12 seconds"),
        (12, "de", "12 Sekunden"),
        (1, "fr", "1 seconde"),
        (12, "it", "12 secondi"),
        (-3, "nl", "0 seconden"),
        (12, "not a language!", "12 seconds"),
    ],
)
def test_the_time_waited_is_said_in_the_turn_s_language(js, seconds, language, words):
    # CLDR puts a no-break space between number and unit in some languages
    assert js("progress.js", "elapsedWords", seconds, language).replace("\xa0", " ") == words


def test_minutes_waited_are_said_in_the_turn_s_language(js):
    german = js("progress.js", "elapsedWords", 125, "de")
    assert german.startswith("2 Min") and "5 Sek" in german
    assert js("progress.js", "elapsedWords", 125) == js("progress.js", "elapsedWords", 125, "en")
    assert js("progress.js", "elapsedWords", 125, "es") != js("progress.js", "elapsedWords", 125)


def test_the_progress_line_and_its_stop_button_speak_the_turn_s_language(page, service):
    first_run(page, service)
    choose_language(page, "de", "Deutsch")
    service.backend.before_reply.clear()
    send(page, "how hot")  # two words the language detector cannot place
    progress = page.locator("#thinking")
    expect(progress.locator(".progress-words")).to_have_text(
        "Ich lese Ihre Frage und wähle aus, was ich nachsehe…"
    )
    expect(progress.locator(".progress-elapsed")).to_have_text(re.compile(r"^· \d+ Sekunden?$"))
    stop = progress.get_by_role("button", name="Anhalten")
    expect(stop).to_be_visible()
    stop.click()
    expect(progress.locator(".progress-words")).to_have_text("Wird angehalten…")
    stopped = page.locator(".message.assistant.stopped")
    expect(stopped).to_be_visible()
    service.backend.before_reply.set()
    expect(stopped.locator(".stopped-note")).to_have_text(
        "Angehalten. Nachdem Sie auf „Anhalten“ gedrückt haben, wurde nichts mehr getan."
    )
    # cut short, it is still an answer: its receipt says nothing left, in German
    expect(stopped.get_by_role("note", name="Beleg")).to_contain_text(
        "Alles ist auf diesem Gerät geblieben."
    )
    expect(stopped).to_have_attribute("lang", "de")  # read aloud in a German voice


def test_after_a_broken_answer_the_note_sources_and_receipt_are_in_italian(page, service):
    card = search_card_in(page, service, "it", "Italiano")
    break_the_next_approval_stream(page)
    card.get_by_role("button", name="Approva", exact=True).click()
    answer = page.locator(".message.assistant").last
    expect(answer.locator(".recovered")).to_have_text(
        "La connessione si è interrotta dopo che hai approvato web.search; l'apparecchio ha "
        "tenuto traccia di quello che è successo: è stato eseguito."
    )
    expect(answer).to_have_attribute("lang", "it")
    sources = answer.get_by_role("region", name="Fonti")
    expect(sources.locator("h4")).to_have_text("Fonti")
    expect(sources.locator(".citation-kind").first).to_have_text(
        "estratto di un risultato di ricerca"
    )
    expect(answer.get_by_role("note", name="Resoconto")).to_contain_text(
        "Uscito da questo apparecchio verso: i motori di ricerca."
    )
    assert len(service.searxng.queries) == 1, "the retry must not search again"


def test_when_the_outcome_is_lost_the_console_says_so_in_the_turn_s_language(page, service):
    card = search_card_in(page, service, "it", "Italiano")
    lose_the_next_approval_outcome(page)
    card.get_by_role("button", name="Approva", exact=True).click()
    alert = page.locator(".message.assistant.failed .error")
    expect(alert).to_have_text(approval_notes("web.search", Voice("it"))["lost"])


def hold_the_next_message(page) -> list:
    """Hold the next /message request unanswered (the service has said nothing yet)."""
    held: list = []
    page.route("**/api/v1/conversation/message", lambda route: held.append(route), times=1)
    return held


def answer_held(held: list, text: str) -> None:
    result = {"text": text, "pending_confirmation": None, "citations": [], "receipts": []}
    held[0].fulfill(status=200, content_type="text/event-stream",
                    body=f"event: result\ndata: {json.dumps(result)}\n\n")  # fmt: skip


def test_before_the_service_says_anything_the_line_speaks_the_household_s_language(
    page, service
):
    first_run(page, service)
    progress = page.locator("#thinking")
    held = hold_the_next_message(page)
    send(page, "how hot")
    expect(progress.locator(".progress-words")).to_have_text("Sending your question…")
    expect(progress).to_have_attribute("lang", "en")
    answer_held(held, "ok")
    expect(page.locator(".message.assistant .prose")).to_have_text("ok")

    choose_language(page, "de", "Deutsch")  # saving it changes the words at once
    held = hold_the_next_message(page)
    send(page, "wie warm")
    expect(progress.locator(".progress-words")).to_have_text("Ihre Frage wird gesendet…")
    expect(progress).to_have_attribute("lang", "de")
    expect(progress.locator(".progress-elapsed")).to_have_text(re.compile(r"^· \d+ Sekunden?$"))
    answer_held(held, "gut")
    expect(page.locator(".message.assistant .prose").last).to_have_text("gut")

    page.reload()  # a Console opened later asks for them when it starts
    expect(page.locator("#chat-view")).to_be_visible()
    held = hold_the_next_message(page)
    send(page, "und jetzt")
    expect(progress.locator(".progress-words")).to_have_text("Ihre Frage wird gesendet…")
    answer_held(held, "gut")


def test_words_the_console_cannot_use_leave_the_line_in_english(page, service):
    said = {"language": "de\"><img src=x>", "words": {"sending": 5, "stop": "  "}}
    page.route("**/api/v1/conversation/words", lambda route: route.fulfill(json=said))
    first_run(page, service)
    held = hold_the_next_message(page)
    send(page, "how hot")
    progress = page.locator("#thinking")
    expect(progress.locator(".progress-words")).to_have_text("Sending your question…")
    expect(progress).to_have_attribute("lang", "en")
    answer_held(held, "ok")
