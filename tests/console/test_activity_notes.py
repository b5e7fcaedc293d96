"""Activity says what the counts cannot: calls whose outcome is unknown, a jumped clock."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from sovereign.conversation.voice.activity import say_activity
from sovereign.conversation.voice.catalogs import Voice
from sovereign.executor import AuditLog, Capability, Effect, Locality
from sovereign.executor.audit import kernel_boot_id, uptime_seconds

from .console_steps import first_run


async def _noop(arguments):
    return {}


SEARCH = Capability(
    name="web.search",
    version=1,
    description="d",
    arguments_schema={"type": "object"},
    result_schema={"type": "object"},
    effect=Effect.READ_ONLY,
    locality=Locality.EXTERNAL,
    policy_key="external_enabled",
    execute=_noop,
)


def test_the_notes_name_calls_that_may_have_left_waiting_approvals_and_clock_jumps(js):
    summary = {
        "since": "2026-01-01T00:00:00Z",
        "capabilities": {"web.search": {"outcome_unknown": 2, "awaiting": 1}},
        "totals": {"outcome_unknown": 2, "awaiting": 1},
        "may_have_left": {"web.search": 2},
        "clock_jumps": 1,
        "set_aside_lines": 1,
        "unreadable_lines": 0,
        "lost_records": 3,
    }
    table = js("present.js", "auditTable", summary)
    assert table["notes"] == [
        "Web search: 2 calls may have left — outcome unknown (the service stopped while they "
        "ran).",
        "1 approval request waits for an answer; a request expires 2 minutes after it was asked.",
        "The device's clock jumped 1 time. Calls are placed by the time since the device "
        "started, so the jump moves none of them in or out of this period.",
        "1 damaged line of the audit log set aside in audit.jsonl.corrupt.",
        "3 records of the audit log lost while the device could not write them (its "
        "storage was full or read-only); the counts above miss them.",
    ]
    keys = [column["key"] for column in table["columns"]]
    assert "outcome_unknown" in keys


def test_a_quiet_log_has_no_notes(js):
    table = js("present.js", "auditTable", {"since": "", "capabilities": {}, "totals": {}})
    assert table["notes"] == []


def test_activity_shows_a_search_cut_off_by_a_crash_and_the_clock_jump(page, service):
    boot = kernel_boot_id() or "this-boot"
    offsets = iter([0.0, 0.0, 3 * 86400.0])  # three days ahead for one record, then back
    log = AuditLog(
        service.data_dir,
        boot_id=boot,
        wall=lambda: time.time() + next(offsets),
        uptime=uptime_seconds,
    )
    ask = log.record(
        SEARCH,
        version=1,
        stage="confirm",
        outcome="confirmation_required",
        error_code="CONFIRMATION_REQUIRED",
    )
    log.begin(SEARCH, version=1, asked=ask)  # the service was killed while it ran
    log.record(SEARCH, version=1, stage="policy", outcome="refused", error_code="POLICY_DISABLED")
    first_run(page, service)
    page.get_by_role("button", name="Activity").click()
    expect(page.locator("#activity-summary p").first).to_have_text(
        "In the last 7 days, the assistant suggested 2 requests."
    )
    page.get_by_text("Counts per capability", exact=True).click()
    row = page.locator(".activity-table tbody tr", has_text="web.search")
    expect(row).to_be_visible()
    headers = page.locator(".activity-table thead th").all_inner_texts()
    cells = [row.locator("th").inner_text(), *row.locator("td").all_inner_texts()]
    counts = dict(zip(headers, cells, strict=True))
    assert (counts["You approved"], counts["Outcome unknown"], counts["Off by setting"]) == (
        "1",
        "1",
        "1",
    )
    hints = page.locator("#activity-table-wrap > p.hint")
    expect(hints.first).to_have_text(
        "Web search: 1 call may have left — outcome unknown (the service stopped while it ran)."
    )
    expect(hints.nth(1)).to_contain_text("clock jumped 2 times")


def test_the_period_is_told_in_sentences_with_plurals_that_fit(js):
    summary = {
        "days": 1,
        "totals": {
            "proposed": 1,
            "confirmation_requested": 3,
            "approved": 1,
            "edited": 1,
            "denied": 1,
            "executed": 1,
            "failed": 2,
            "failed_nothing_left": 1,
            "refused_by_policy": 1,
            "expired": 1,
        },
    }
    assert js("present.js", "activitySentences", summary) == [
        "In the last 1 day, the assistant suggested 1 request.",
        "3 requests were put to you for approval (an edited request is put to you again): "
        "you approved 1, edited 1, and denied 1.",
        "1 request went unanswered and expired: nothing was sent for it.",
        "1 ran and 2 failed (1 before anything left this device).",
        "Not run: 1 because a setting was off.",
    ]


def test_the_owner_repairs_are_said_apart_from_the_counts(js):
    summary = {
        "days": 7,
        "totals": {},
        "capabilities": {},
        "repairs": [
            {
                "capability": "web.search",
                "reason": "searxng: unreachable",
                "count": 1,
                "repair": "Start it.",
            }
        ],
    }
    table = js("present.js", "auditTable", summary)
    assert table["repairs"] == ["Web search failed 1 time: Start it."]
    assert table["repairsLanguage"] is None


def test_the_owner_repairs_are_shown_as_the_product_said_them_in_the_household_s_language(js):
    repair = {"capability": "web.search", "reason": "searxng: limiter", "count": 2}
    summary = {"days": 7, "totals": {}, "capabilities": {}, "repairs": [repair]}
    summary["said"] = say_activity(summary, Voice("de"))
    table = js("present.js", "auditTable", summary)
    assert table["repairs"] == [
        "Websuche: 2 Fehlschläge. Der Limiter von SearXNG hat die Suche abgewiesen: Setzen Sie "
        "server.limiter: false in seiner settings.yml und starten Sie es neu (es dient nur "
        "diesem Gerät)."
    ]
    assert table["repairsLanguage"] == "de"
    unnamed = {**summary, "repairs": [{**repair, "capability": "mail.send"}]}
    unnamed["said"] = say_activity(unnamed, Voice("de"))
    assert js("present.js", "auditTable", unnamed)["repairs"][0].startswith(
        "mail.send: 2 Fehlschläge. "
    )


def test_a_call_refused_for_want_of_an_audit_record_says_why_and_that_nothing_left(js):
    refused = {
        "capability": "web.search",
        "locality": "external",
        "outcome": "refused",
        "error_code": "AUDIT_UNAVAILABLE",
    }
    summary = js("present.js", "receiptSummary", [refused], [], [])
    assert summary["stayedLocal"] is True
    assert summary["lines"] == [
        "Web search: refused (the device could not keep its record of it); nothing was sent"
    ]


SUMMARIES = [
    {"days": 1, "totals": {"proposed": 1, "confirmation_requested": 3, "approved": 1,
                           "edited": 1, "denied": 1, "executed": 1, "failed": 2,
                           "failed_nothing_left": 1, "refused_by_policy": 1, "expired": 1}},
    {"days": 30, "totals": {"proposed": 12, "confirmation_requested": 1, "expired": 2,
                            "executed": 5, "rejected_target": 2, "refused_other": 1,
                            "refused_by_policy": 3, "outcome_unknown": 2, "awaiting": 2},
     "may_have_left": {"web.search": 1, "web.fetch": 3}, "clock_jumps": 2,
     "set_aside_lines": 2, "unreadable_lines": 1, "lost_records": 1},
    {"days": 7, "totals": {}},
]  # fmt: skip


@pytest.mark.parametrize("summary", SUMMARIES)
def test_the_english_the_service_says_is_the_english_the_console_keeps(js, summary):
    said = say_activity(summary, Voice("en"))
    table = js("present.js", "auditTable", {"capabilities": {}, **summary})
    assert (table["sentences"], table["notes"]) == (said["sentences"], said["notes"])
    shown = js("present.js", "auditTable", {"capabilities": {}, **summary, "said": said})
    assert shown["language"] == "en" and shown["sentences"] == said["sentences"]


def test_activity_is_shown_as_said_in_the_household_s_language_else_in_english(js):
    said = say_activity(SUMMARIES[1], Voice("de"))
    assert said["sentences"][0] == (
        "In diesem Zeitraum (30 Tage) hat der Assistent 12 Anfragen vorgeschlagen."
    )
    table = js("present.js", "auditTable", {"capabilities": {}, **SUMMARIES[1], "said": said})
    assert (table["language"], table["sentences"], table["notes"]) == (
        "de", said["sentences"], said["notes"])
    english = js("present.js", "auditTable", {"capabilities": {}, **SUMMARIES[1]})
    for broken in ({**said, "language": "de\"><x"}, {**said, "sentences": [1]},
                   {**said, "notes": "x"}, {**said, "sentences": []}, "Deutsch"):  # fmt: skip
        table = js("present.js", "auditTable", {"capabilities": {}, **SUMMARIES[1],
                                                "said": broken})  # fmt: skip
        assert (table["language"], table["sentences"]) == ("en", english["sentences"])


def test_the_activity_page_speaks_the_household_s_language(page, service):
    from sovereign.service.household_settings import HouseholdSettings, HouseholdSettingsStore

    HouseholdSettingsStore(service.data_dir).save(HouseholdSettings("it"))
    first_run(page, service)
    page.locator("#nav-activity").click()
    story = page.locator("#activity-summary p").first
    expect(story).to_have_text(
        "In questo periodo (7 giorni) l\u2019assistente ha proposto 0 richieste."
    )
    expect(story).to_have_attribute("lang", "it")
