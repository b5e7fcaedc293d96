"""Unit tests of the Console's pure presentation logic (present.js), run in chromium."""

from __future__ import annotations

import pytest

from .conftest import MODULE_ORIGIN

SEARCH = {"capability": "web.search", "locality": "external", "outcome": "executed"}
FETCH = {"capability": "web.fetch", "locality": "external", "outcome": "executed"}
HEALTH = {"capability": "system.health", "locality": "local", "outcome": "executed"}


def receipts(js, items, calls=(), citations=()):
    return js("present.js", "receiptSummary", list(items), list(calls), list(citations))


def test_an_answer_that_used_no_capability_stayed_on_this_device(js):
    summary = receipts(js, [])
    assert summary == {"stayedLocal": True, "headline": "Stayed on this device.", "lines": []}


def test_an_answer_that_used_only_local_capabilities_stayed_on_this_device(js):
    summary = receipts(js, [HEALTH])
    assert summary["stayedLocal"] is True
    assert summary["headline"] == "Stayed on this device."
    assert summary["lines"] == ["This device's health: ran on this device"]


def test_an_executed_search_names_the_search_engines_as_destination(js):
    summary = receipts(js, [HEALTH, SEARCH])
    assert summary["stayedLocal"] is False
    assert summary["headline"] == "Left this device: the search engines."
    assert "Web search: sent to the search engines" in summary["lines"]


def test_an_executed_fetch_names_the_host_from_the_approved_url(js):
    calls = [{"capability": "web.fetch", "arguments": {"url": "https://example.org:8443/a?b"}}]
    summary = receipts(js, [FETCH], calls)
    assert summary["headline"] == "Left this device: example.org:8443."


def test_a_fetch_host_falls_back_to_the_cited_page(js):
    citations = [{"capability": "web.fetch", "url": "https://docs.example.net/page"}]
    summary = receipts(js, [FETCH], [], citations)
    assert summary["headline"] == "Left this device: docs.example.net."


def test_a_failed_external_call_still_counts_as_having_left(js):
    failed = {**SEARCH, "outcome": "failed", "error_code": "TIMEOUT"}
    summary = receipts(js, [failed])
    assert summary["stayedLocal"] is False
    assert summary["lines"] == ["Web search: tried to reach the search engines and failed"]


def test_a_failed_call_alone_says_the_request_may_have_left(js):
    failed = {**SEARCH, "outcome": "failed", "error_code": "EXECUTION_FAILED"}
    summary = receipts(js, [failed])
    assert summary["headline"] == "May have left this device: the search engines."


def test_a_search_that_never_reached_the_search_service_says_nothing_left(js):
    refused = {**SEARCH, "outcome": "failed", "error_code": "EXECUTION_FAILED", "sent": False}
    summary = receipts(js, [refused])
    assert summary["stayedLocal"] is True
    assert summary["headline"] == (
        "Nothing left this device: the device's search service is not running."
    )
    assert summary["lines"] == [
        "Web search: failed before anything left this device "
        "(the device's search service is not running)"
    ]


def test_a_failure_that_may_have_been_sent_still_says_may_have_left_beside_one_that_was_not(js):
    refused = {**SEARCH, "outcome": "failed", "error_code": "EXECUTION_FAILED", "sent": False}
    broken = {**FETCH, "outcome": "failed", "error_code": "FETCH_FAILED"}
    calls = [{"capability": "web.fetch", "arguments": {"url": "http://a.example/"}}]
    summary = receipts(js, [refused, broken], calls)
    assert summary["headline"] == "May have left this device: a.example."


def test_one_call_that_ran_makes_the_headline_certain_even_beside_a_failure(js):
    failed = {**FETCH, "outcome": "failed", "error_code": "FETCH_FAILED"}
    calls = [{"capability": "web.fetch", "arguments": {"url": "http://a.example/"}}]
    summary = receipts(js, [SEARCH, failed], calls)
    assert summary["headline"] == "Left this device: the search engines, a.example."


@pytest.mark.parametrize(
    ("outcome", "line"),
    [
        ("denied", "Web search: denied by you; nothing was sent"),
        ("expired", "Web search: approval expired; nothing was sent"),
        ("refused", "Web search: refused; nothing was sent"),
    ],
)
def test_an_external_call_that_never_ran_stayed_on_this_device(js, outcome, line):
    summary = receipts(js, [{**SEARCH, "outcome": outcome}])
    assert summary["stayedLocal"] is True
    assert summary["lines"] == [line]


def test_a_policy_refusal_says_the_setting_is_off(js):
    refused = {**SEARCH, "outcome": "refused", "error_code": "POLICY_DISABLED"}
    line = receipts(js, [refused])["lines"][0]
    assert line == "Web search: refused (switched off in the web search setting); nothing was sent"


def test_each_destination_is_named_once(js):
    calls = [{"capability": "web.fetch", "arguments": {"url": "http://a.example/"}}]
    summary = receipts(js, [SEARCH, SEARCH, FETCH], calls)
    assert summary["headline"] == "Left this device: the search engines, a.example."


def test_citations_are_numbered_and_tell_page_read_from_search_snippet(js):
    entries = js(
        "present.js",
        "citationEntries",
        [
            {
                "capability": "web.search",
                "title": "T",
                "url": "https://s.example/1",
                "snippet": "words",
                "retrieved_at": "2026-01-01T00:00:00Z",
            },
            {
                "capability": "web.fetch",
                "title": "https://p.example/",
                "url": "https://p.example/",
                "snippet": "page read",
                "retrieved_at": "2026-01-01T00:00:00Z",
            },
        ],
    )
    assert [(e["number"], e["kind"], e["snippet"]) for e in entries] == [
        (1, "search result snippet", "words"),
        (2, "page read", ""),
    ]


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.domain)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "not a url",
        "",
    ],
)
def test_a_citation_with_a_non_http_url_is_shown_but_never_linked(js, url):
    entry = js(
        "present.js",
        "citationEntries",
        [{"capability": "web.search", "title": "x", "url": url, "snippet": "", "retrieved_at": ""}],
    )[0]
    assert entry["link"] is None
    assert entry["url"] == url


def test_a_redirected_fetch_offers_its_http_target_only(js):
    base = {"capability": "web.fetch", "title": "u", "url": "https://a.example/", "snippet": ""}
    good, bad = js(
        "present.js",
        "citationEntries",
        [
            {**base, "redirected": True, "final_url": "https://b.example/new"},
            {**base, "redirected": True, "final_url": "javascript:alert(1)"},
        ],
    )
    assert good["redirectTarget"] == "https://b.example/new"
    assert bad["redirectTarget"] is None


def test_arguments_are_shown_verbatim_and_non_strings_as_json(js):
    entries = js(
        "present.js",
        "argumentEntries",
        {"query": "  <b>what's new</b> in SearXNG?  ", "time_range": None, "n": 3},
    )
    assert entries == [
        ["query", "  <b>what's new</b> in SearXNG?  "],
        ["time_range", "null"],
        ["n", "3"],
    ]


def test_the_card_sentence_says_approving_sends_it_outside_the_device(js):
    def sentence(pending):
        words = js("card-words.js", "englishCardWords", pending)
        return js("card-words.js", "leavingSentence", words, pending)

    search = sentence({"capability": "web.search", "arguments": {"query": "q"}})
    fetch = sentence({"capability": "web.fetch", "arguments": {"url": "https://h.example/p"}})
    assert "outside this device" in search and "search engines" in search
    assert "outside this device" in fetch and "h.example" in fetch


@pytest.mark.parametrize(
    ("seconds", "text"), [(125, "2:05"), (60, "1:00"), (0.2, "0:01"), (0, "0:00"), (-3, "0:00")]
)
def test_countdown_is_minutes_and_seconds_rounded_up(js, seconds, text):
    assert js("present.js", "formatCountdown", seconds) == text


def test_the_setup_token_is_read_from_the_location_hash(js):
    assert js("present.js", "setupTokenFromHash", "#setup=abc-DEF_1") == "abc-DEF_1"
    assert js("present.js", "setupTokenFromHash", "#other=1") is None
    assert js("present.js", "setupTokenFromHash", "") is None


def test_a_failure_prefers_the_services_own_sentence(js):
    body = {"error": {"code": "BAD_CREDENTIALS", "message": "That password is not right."}}
    assert js("present.js", "describeFailure", 401, body) == "That password is not right."
    assert "could not be reached" in js("present.js", "describeFailure", 0, None)
    assert "Too many" in js("present.js", "describeFailure", 429, {"detail": "x"})


def test_the_audit_table_has_a_row_per_capability_and_zero_for_missing_counters(js):
    summary = {
        "days": 7,
        "since": "2026-01-01T00:00:00Z",
        "unreadable_lines": 2,
        "capabilities": {"web.search": {"proposed": 3, "denied": 1}, "system.health": {}},
        "totals": {"proposed": 3, "denied": 1},
    }
    table = js("present.js", "auditTable", summary)
    keys = [c["key"] for c in table["columns"]]
    assert [row["capability"] for row in table["rows"]] == ["system.health", "web.search"]
    search = dict(zip(keys, table["rows"][1]["counts"], strict=True))
    assert search["proposed"] == 3 and search["denied"] == 1 and search["executed"] == 0
    assert table["unreadableLines"] == 2


def test_the_audit_window_start_is_shown_as_a_readable_utc_time(js):
    table = js("present.js", "auditTable", {"since": "2026-03-04T09:05:59Z", "capabilities": {}})
    assert table["since"] == "2026-03-04 09:05 UTC"
    assert table["rows"] == []
    assert js("present.js", "readableTime", "not a time") == "not a time"


def test_history_to_send_keeps_short_history_as_it_is(js):
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert js("present.js", "historyToSend", history) == history


def test_history_to_send_cuts_a_long_entry_and_keeps_the_newest_entries(js):
    limits = {"entries": 3, "chars": 10, "bytes": 10_000}
    history = [{"role": "user", "content": f"message {n}"} for n in range(5)]
    history.append({"role": "assistant", "content": "x" * 50})
    sent = js("present.js", "historyToSend", history, limits)
    assert sent == [
        {"role": "user", "content": "message 3"},
        {"role": "user", "content": "message 4"},
        {"role": "assistant", "content": "xxxxxxxxx…"},
    ]
    assert len(history) == 6  # the page's own history is untouched


def test_history_to_send_never_cuts_a_surrogate_pair_in_half(js):
    limits = {"entries": 10, "chars": 4, "bytes": 10_000}
    (sent,) = js("present.js", "historyToSend", [{"role": "user", "content": "ab😀cd"}], limits)
    assert sent["content"] == "ab…"


def test_history_to_send_fits_the_byte_budget_dropping_the_oldest_first(js):
    limits = {"entries": 100, "chars": 32000, "bytes": 70_000}
    history = [{"role": "assistant", "content": "é" * 31_000} for _ in range(3)]
    history.append({"role": "user", "content": "newest"})
    sent = js("present.js", "historyToSend", history, limits)
    assert [len(entry["content"]) for entry in sent] == [31_000, 6]  # 2 bytes per "é"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "read https://a.example/my page.html please",
            {
                "typed": "https://a.example/my page.html",
                "encoded": "https://a.example/my%20page.html",
            },
        ),
        (
            "https://a.example/a b/c d.pdf",
            {
                "typed": "https://a.example/a b/c d.pdf",
                "encoded": "https://a.example/a%20b/c%20d.pdf",
            },
        ),
        ("read https://a.example/page please", None),
        ("read https://a.example/page", None),
        ("no address here.html", None),
    ],
)
def test_an_address_that_goes_on_after_a_space_is_found_as_the_terminal_finds_it(js, text, found):
    from sovereign.terminal.session import spaced_address

    assert js("present.js", "spacedAddress", text) == found
    expected = spaced_address(text)
    assert (None if expected is None else {"typed": expected[0], "encoded": expected[1]}) == found


@pytest.mark.parametrize(
    ("capability", "args", "words"),
    [
        (
            "web.search",
            {"query": "q", "language": "de", "safesearch": 1},
            {"heading": "Search the web for", "shown": ["query"]},
        ),
        (
            "web.fetch",
            {"url": "https://a.example/"},
            {"heading": "Read this page", "shown": ["url"]},
        ),
        (
            "home_assistant.state",
            {"entity_id": "sensor.x"},
            {"heading": "Run this request", "shown": ["entity_id"]},
        ),
    ],
)
def test_the_card_speaks_in_household_words_and_keeps_the_rest_for_details(
    js, capability, args, words
):
    assert js("present.js", "cardWords", capability, args) == words


def test_a_sign_in_pause_says_when_it_ends_in_the_readers_clock(js, module_page):
    ends = module_page.evaluate(
        """async (origin) => {
          const { pauseSentence } = await import(origin + "/present.js");
          const now = new Date(2026, 0, 1, 10, 31, 50);
          return [pauseSentence("Paused.", 15, now), pauseSentence("Wrong.", 0, now)];
        }""",
        MODULE_ORIGIN,
    )
    assert ends == ["Paused. The pause ends at 10:32:05.", "Wrong."]


def test_the_english_fallback_names_every_capability_as_the_service_does(js):
    from sovereign.conversation.voice.receipts import CAPABILITY_NAMES

    for capability, name in CAPABILITY_NAMES.items():
        item = {"capability": capability, "locality": "local", "outcome": "executed"}
        assert receipts(js, [item])["lines"] == [f"{name}: ran on this device"], capability
