"""Citations from web.fetch outcomes: a page read, or a redirect that was not followed;
and the fact of a household read, with its panel's heading in the household's language."""

from __future__ import annotations

import pytest

from sovereign.conversation.approval.provenance import citations_for, fact_for
from sovereign.conversation.voice.catalogs import Voice
from sovereign.executor import OutcomeKind, Stage
from sovereign.executor.invoke import Outcome

FETCHED = {
    "url": "http://a.example/old",
    "final_url": "http://a.example/old",
    "content_type": "text/html",
    "text": "words",
    "truncated": False,
    "redirected": False,
    "retrieved_at": "2026-01-01T00:00:00Z",
}


def fetch_outcome(result):
    return Outcome("web.fetch", 1, Stage.SHAPE, OutcomeKind.EXECUTED, result=result)


def test_a_page_read_is_cited_as_read():
    (citation,) = citations_for(fetch_outcome(FETCHED))
    wire = citation.to_wire()
    assert wire == {
        "capability": "web.fetch",
        "title": "http://a.example/old",
        "url": "http://a.example/old",
        "snippet": "page read",
        "retrieved_at": "2026-01-01T00:00:00Z",
    }


def test_a_page_with_a_title_is_cited_by_its_title():
    (citation,) = citations_for(fetch_outcome({**FETCHED, "title": "Old page"}))
    assert (citation.to_wire()["title"], citation.to_wire()["url"]) == (
        "Old page", "http://a.example/old")


def test_a_redirect_is_cited_with_its_target_and_nothing_read():
    result = {**FETCHED, "text": "", "redirected": True, "final_url": "https://b.example/new"}
    (citation,) = citations_for(fetch_outcome(result))
    wire = citation.to_wire()
    assert wire["redirected"] is True
    assert wire["final_url"] == "https://b.example/new"
    assert wire["url"] == "http://a.example/old"
    assert wire["snippet"] == "redirect, not followed"


def test_a_failed_fetch_cites_nothing():
    failed = Outcome("web.fetch", 1, Stage.EXECUTE, OutcomeKind.FAILED, "FETCH_FAILED", "no")
    assert citations_for(failed) == []


HEADINGS = {
    "en": "What the device reported",
    "de": "Was das Gerät gemeldet hat",
    "fr": "Ce que l'appareil a indiqué",
    "es": "Lo que indicó el aparato",
    "nl": "Wat het apparaat meldde",
    "it": "Cosa ha riportato l'apparecchio",
}


@pytest.mark.parametrize("language", sorted(HEADINGS))
def test_a_fact_carries_the_panel_s_heading_in_the_household_s_language(language):
    read = Outcome("pihole.summary", 1, Stage.SHAPE, OutcomeKind.EXECUTED, result={"n": 1})
    wire = fact_for(read, Voice(language)).to_wire()
    assert wire == {
        "capability": "pihole.summary",
        "result": {"n": 1},
        "lines": [],
        "heading": HEADINGS[language],
    }


def test_a_language_the_product_does_not_speak_gets_the_english_heading():
    read = Outcome("system.health", 1, Stage.SHAPE, OutcomeKind.EXECUTED, result={"n": 1})
    assert fact_for(read, Voice("tlh")).heading == "What the device reported"
