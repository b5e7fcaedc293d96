"""Activity's sentences and notes said in the household's language (voice.activity):
counts formatted by Babel with the language's plural forms, lists joined as the language
joins them, and a summary that holds nonsense counted as nothing."""

from __future__ import annotations

import pytest

from sovereign.conversation.voice.activity import REPAIRS, say_activity
from sovereign.conversation.voice.catalogs import LANGUAGES, Voice
from sovereign.conversation.voice.receipts import capability_name

BUSY = {"days": 1, "totals": {"proposed": 1234, "confirmation_requested": 1, "approved": 1,
                              "executed": 1, "failed": 3, "refused_other": 2, "awaiting": 1},
        "may_have_left": {"web.fetch": 2}, "lost_records": 1}  # fmt: skip


def test_a_german_household_reads_its_activity_in_german():
    said = say_activity(BUSY, Voice("de"))
    assert said == {
        "language": "de",
        "sentences": [
            "In diesem Zeitraum (1 Tag) hat der Assistent 1.234 Anfragen vorgeschlagen.",
            "1 Anfrage wurde Ihnen zur Freigabe vorgelegt (eine geänderte Anfrage wird erneut "
            "vorgelegt); davon haben Sie 1 freigegeben.",
            "1 lief und 3 schlugen fehl.",
            "Nicht ausgeführt: 2 aus einem anderen Grund.",
        ],
        "notes": [
            "Webseite lesen: 2 Aufrufe haben das Gerät vielleicht verlassen — Ausgang unbekannt "
            "(der Dienst hielt an, während sie liefen).",
            "1 Freigabeanfrage wartet auf eine Antwort; eine Anfrage läuft 2 Minuten, nachdem "
            "sie gestellt wurde, ab.",
            "1 Eintrag des Prüfprotokolls ging verloren, während das Gerät ihn nicht schreiben "
            "konnte (sein Speicher war voll oder schreibgeschützt); die Zahlen oben enthalten "
            "ihn nicht.",
        ],
        "repairs": [],
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_says_every_sentence_and_note_with_its_numbers(language):
    everything = {"days": 2, "totals": {key: 2 for key in (
        "proposed", "confirmation_requested", "approved", "edited", "denied", "expired",
        "executed", "failed", "failed_nothing_left", "refused_by_policy", "rejected_target",
        "refused_other", "outcome_unknown", "awaiting")},
        "may_have_left": {"web.search": 2}, "clock_jumps": 2, "set_aside_lines": 2,
        "unreadable_lines": 2, "lost_records": 2}  # fmt: skip
    said = say_activity(everything, Voice(language))
    assert len(said["sentences"]) == 6 and len(said["notes"]) == 6
    for line in said["sentences"] + said["notes"]:
        assert "2" in line and "{" not in line


@pytest.mark.parametrize(
    "summary",
    [{}, {"days": "7", "totals": "x"}, {"days": -3, "totals": {"proposed": True}},
     {"days": float("nan"), "totals": {"expired": -1}, "may_have_left": ["web.search"]}],
)  # fmt: skip
def test_a_summary_that_holds_nonsense_counts_as_nothing(summary):
    said = say_activity(summary, Voice("fr"))
    assert said["sentences"] == [
        "Sur cette période (0 jour), l\u2019assistant a proposé 0 demande."
    ]
    assert said["notes"] == []


def test_an_unknown_language_says_it_in_english():
    said = say_activity({"days": 7, "totals": {"proposed": 2}}, Voice("tlh"))
    assert said["language"] == "en"
    assert said["sentences"] == ["In the last 7 days, the assistant suggested 2 requests."]


FAILING = {"days": 7, "repairs": [
    {"capability": "web.search", "reason": "searxng: unreachable", "count": 1234,
     "repair": REPAIRS["searxng: unreachable"]},
    {"capability": "web.search", "reason": "searxng: limiter", "count": 1,
     "repair": REPAIRS["searxng: limiter"]},
    {"capability": "mail.send", "reason": "searxng: timeout", "count": 2,
     "repair": REPAIRS["searxng: timeout"]},
]}  # fmt: skip


def test_a_german_household_reads_the_owner_s_repairs_in_german_by_the_household_s_name():
    assert say_activity(FAILING, Voice("de"))["repairs"] == [
        "Websuche: 1.234 Fehlschläge. Der Suchdienst des Geräts (SearXNG) lief nicht. Starten "
        "Sie ihn mit deploy/searxng/start-searxng (oder mit systemctl start sovereign-searxng, "
        "wo seine Unit installiert ist) und führen Sie dann sovereign doctor aus.",
        "Websuche: 1 Fehlschlag. Der Limiter von SearXNG hat die Suche abgewiesen: Setzen Sie "
        "server.limiter: false in seiner settings.yml und starten Sie es neu (es dient nur "
        "diesem Gerät).",
        "mail.send: 2 Fehlschläge. Der Suchdienst des Geräts (SearXNG) hat nicht rechtzeitig "
        "geantwortet. Prüfen Sie, ob er läuft, und die Internetverbindung des Geräts (sovereign "
        "doctor prüft beides).",
    ]


def test_an_english_household_reads_the_repairs_by_the_household_s_name_with_plurals():
    assert say_activity(FAILING, Voice("en"))["repairs"] == [
        f"Web search failed 1,234 times: {REPAIRS['searxng: unreachable']}",
        f"Web search failed 1 time: {REPAIRS['searxng: limiter']}",
        f"mail.send failed 2 times: {REPAIRS['searxng: timeout']}",
    ]


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_language_says_every_repair_in_its_own_words(language):
    summary = {"repairs": [{"capability": "web.search", "reason": reason, "count": 2}
                           for reason in REPAIRS]}  # fmt: skip
    lines = say_activity(summary, Voice(language))["repairs"]
    assert len(lines) == len(REPAIRS)
    for line, english in zip(lines, REPAIRS.values(), strict=True):
        assert line.startswith(capability_name("web.search", Voice(language)))
        assert not line.startswith("Web search") and "web.search" not in line
        assert english not in line and "2" in line and "{" not in line


@pytest.mark.parametrize(
    "repairs",
    [None, "x", [{"capability": "web.search", "reason": "searxng: nonsense", "count": 2}],
     [{"capability": "web.search", "reason": "searxng: timeout", "count": 0}], ["x"]],
)  # fmt: skip
def test_a_repair_without_a_known_reason_or_count_is_not_said(repairs):
    assert say_activity({"repairs": repairs}, Voice("it"))["repairs"] == []
