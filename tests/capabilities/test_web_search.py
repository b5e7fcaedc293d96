"""web.search v1 against a replaying fake SearXNG: every success and failure class."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import httpx
import pytest

from sovereign.capabilities import web_search
from sovereign.egress import SearchSettings
from sovereign.executor import (
    AuditLog,
    Confirmation,
    ErrorCode,
    Executor,
    OutcomeKind,
    Registry,
    TurnState,
)
from tests.fakes.searxng import FakeSearxng, Reply

QUERY = "solar panel cleaning"
POLICY_ON = {"external_enabled": True}
FIXED_NOW = datetime(2026, 8, 22, 10, 30, tzinfo=UTC)


@pytest.fixture
def fake():
    with FakeSearxng() as server:
        yield server


def build(tmp_path, base_url, **options):
    registry = Registry()
    web_search.register(registry, base_url=base_url, clock=lambda: FIXED_NOW, **options)
    return Executor(registry, audit=AuditLog(tmp_path))


@pytest.fixture
def executor(tmp_path, fake):
    return build(tmp_path, fake.base_url)


async def search(executor, arguments, policy=POLICY_ON):
    """Invoke web.search as an approved call: propose it, issue the token for the canonical
    arguments of the validate stage (as the turn loop does), then invoke with it."""
    proposed = await executor.invoke(
        "web.search", 1, arguments, policy=policy, turn_state=TurnState()
    )
    if proposed.arguments is None:
        return proposed
    token = executor.confirmations.issue("web.search", 1, proposed.arguments)
    return await executor.invoke(
        "web.search", 1, arguments, policy=policy, turn_state=TurnState(),
        confirmation_token=token,
    )


def fixture_results(name):
    return Reply.from_fixture(name).body["results"]


# --- contract -------------------------------------------------------------------------


def test_web_search_is_read_only_external_required_behind_external_enabled():
    registry = Registry()
    web_search.register(registry)
    capability = registry.get("web.search", 1)
    assert capability.classification() == {
        "effect": "read_only", "locality": "external", "confirmation": "required",
    }
    assert capability.confirmation is Confirmation.REQUIRED
    assert capability.policy_key == "external_enabled"
    assert capability.timeout_seconds == 10.0
    assert capability.max_invocations_per_turn == 1


@pytest.mark.parametrize("base_url", ["ftp://127.0.0.1:8093", "127.0.0.1:8093", "http://"])
def test_register_rejects_a_base_url_that_is_not_http(base_url):
    with pytest.raises(ValueError, match="http"):
        web_search.register(Registry(), base_url=base_url)


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"query": ""},
        {"query": "x" * 501},
        {"query": "   \t\n "},
        {"query": "solar\x00panels"},
        {"query": QUERY, "time_range": "fortnight"},
        {"query": QUERY, "time_range": "hour"},
        {"query": QUERY, "categories": "images"},
        {"query": 42},
    ],
    ids=["missing", "empty", "501-chars", "whitespace-only", "control-char", "fortnight", "hour",
         "extra-key", "not-a-string"],
)
async def test_bad_arguments_are_invalid_and_nothing_is_sent(executor, fake, arguments):
    outcome = await executor.invoke(
        "web.search", 1, arguments, policy=POLICY_ON, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert fake.requests == []


async def test_policy_off_refuses_before_any_confirmation_or_request(executor, fake):
    outcome = await executor.invoke(
        "web.search", 1, {"query": QUERY}, policy={}, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.POLICY_DISABLED
    assert fake.requests == []


async def test_without_approval_the_query_is_not_sent(executor, fake):
    outcome = await executor.invoke(
        "web.search", 1, {"query": QUERY}, policy=POLICY_ON, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
    assert fake.requests == []


# --- success --------------------------------------------------------------------------


async def test_happy_path_keeps_the_first_five_of_nine_results(executor, fake):
    fake.answer("/search", "search_capability_shape")
    outcome = await search(executor, {"query": QUERY})

    assert outcome.kind is OutcomeKind.EXECUTED
    expected = [
        {"title": r["title"], "url": r["url"], "snippet": r["content"]}
        for r in fixture_results("search_capability_shape")[:5]
    ]
    assert outcome.result == {
        "query": QUERY,
        "results": expected,
        "result_count": 5,
        "retrieved_at": "2026-08-22T10:30:00+00:00",
        "failed_engine_count": 0,
    }


async def test_request_is_a_json_get_with_english_messages_and_no_time_range(executor, fake):
    await search(executor, {"query": QUERY})
    (request,) = fake.requests
    assert request.method == "GET"
    assert request.path == "/search"
    assert request.params == {
        "q": [QUERY], "format": ["json"], "categories": ["general"], "locale": ["en"],
        "language": ["auto"], "safesearch": ["1"],  # the household's defaults, always sent
    }


@pytest.mark.parametrize("time_range", ["day", "week", "month", "year"])
async def test_time_range_is_passed_to_searxng(executor, fake, time_range):
    # SearXNG takes day, week, month and year (searx/webadapter.py); no week was captured
    fake.answer("/search", f"search_time_range_{'month' if time_range == 'week' else time_range}")
    outcome = await search(executor, {"query": QUERY, "time_range": time_range})
    assert outcome.kind is OutcomeKind.EXECUTED
    assert fake.requests[0].params["time_range"] == [time_range]
    assert outcome.result["result_count"] == 5


async def test_the_households_settings_are_sent_as_language_and_safesearch(tmp_path, fake):
    settings = SearchSettings("de", 1)
    executor = build(tmp_path, fake.base_url, search_settings=lambda: settings)
    fake.answer("/search", "search_language_de")
    outcome = await search(executor, {"query": QUERY})
    assert outcome.kind is OutcomeKind.EXECUTED
    assert outcome.arguments == {"query": QUERY, "language": "de", "safesearch": 1}
    assert fake.requests[0].params["language"] == ["de"]
    assert fake.requests[0].params["safesearch"] == ["1"]


async def test_zero_results_with_no_failed_engine_is_a_success(executor, fake):
    fake.answer("/search", "search_no_results")
    outcome = await search(executor, {"query": "solar noresults"})
    assert outcome.kind is OutcomeKind.EXECUTED
    assert outcome.result["results"] == []
    assert outcome.result["result_count"] == 0
    assert outcome.result["failed_engine_count"] == 0


@pytest.mark.parametrize(
    "fixture",
    [
        "search_partial_failure_http500",
        "search_partial_failure_timeout",
        "search_partial_failure_connection_refused",
        "search_partial_failure_parsing_error",
        "search_partial_failure_access_denied_403",
        "search_partial_failure_too_many_requests_429",
        "search_partial_failure_localized_fr",
        "search_engine_suspended_after_error",
    ],
)
async def test_partial_failure_is_a_success_that_counts_the_failed_engines(
    executor, fake, fixture
):
    fake.answer("/search", fixture)
    outcome = await search(executor, {"query": "solar upstream500"})
    assert outcome.kind is OutcomeKind.EXECUTED
    assert outcome.result["failed_engine_count"] == 1
    assert 0 < outcome.result["result_count"] <= 5
    assert outcome.result["results"][0]["url"] == fixture_results(fixture)[0]["url"]


async def test_unicode_query_is_sent_as_utf8_and_echoed_unchanged(executor, fake):
    query = "café Zürich 東京 солнце 🌞"
    fake.answer("/search", "search_unicode_q")
    outcome = await search(executor, {"query": query})
    assert outcome.result["query"] == query
    assert fake.requests[0].q == query
    assert "caf%C3%A9" in fake.requests[0].raw_query.replace("%c3%a9", "%C3%A9")


async def test_a_500_character_query_is_sent_whole(executor, fake):
    query = ("how often should a household clean rooftop solar panels " * 10)[:500]
    assert len(query) == 500
    fake.answer("/search", "search_long_q_500")
    outcome = await search(executor, {"query": query})
    assert outcome.kind is OutcomeKind.EXECUTED
    assert fake.requests[0].q == query.strip()
    assert outcome.result["query"] == query.strip()


async def test_fields_searxng_adds_or_drops_are_tolerated(executor, fake):
    body = Reply.from_fixture("search_basic").body
    results = [dict(r) for r in body["results"][:4]]
    del results[0]["content"]
    results[1]["title"] = None
    results[2]["url"] = "javascript:alert(1)"
    results[3]["brand_new_field"] = {"nested": True}
    trimmed = {"query": QUERY, "results": results, "added_in_a_later_version": 1}
    fake.answer("/search", Reply(200, {"content-type": "application/json"}, trimmed))

    outcome = await search(executor, {"query": QUERY})

    assert outcome.kind is OutcomeKind.EXECUTED
    got = outcome.result["results"]
    assert [r["url"] for r in got] == [results[0]["url"], results[1]["url"], results[3]["url"]]
    assert got[0]["snippet"] == ""
    assert got[1]["title"] == results[1]["url"]
    assert outcome.result["failed_engine_count"] == 0


# --- failures -------------------------------------------------------------------------


async def failure(executor, arguments):
    outcome = await search(executor, arguments)
    assert outcome.kind is OutcomeKind.FAILED, outcome
    return outcome


@pytest.mark.parametrize(
    "fixture",
    [
        "search_all_engines_fail",
        "search_all_engines_fail_refused_and_timeout",
        "search_all_engines_suspended",
        "search_shipped_default_engines_offline",
        "search_shipped_default_engines_offline_suspended",
    ],
)
async def test_every_engine_failing_is_a_failure_not_empty_results(executor, fake, fixture):
    fake.answer("/search", fixture)
    outcome = await failure(executor, {"query": "solar allfail"})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "all search engines failed" in outcome.message
    for engine, _reason in Reply.from_fixture(fixture).body["unresponsive_engines"]:
        assert engine in outcome.message


@pytest.mark.parametrize(
    "fixture", ["error_json_format_not_enabled", "error_format_csv_not_enabled"]
)
async def test_403_explains_that_json_must_be_in_search_formats(executor, fake, fixture, caplog):
    fake.answer("/search", fixture)
    outcome = await failure(executor, {"query": QUERY})
    assert "403" in outcome.message
    assert "search.formats" not in outcome.message  # the repair is the owner's: the log's
    assert "search.formats" in caplog.text and "json" in caplog.text
    assert outcome.sent is True and outcome.reason == "searxng: json_disabled"
    assert "may have left this device" in outcome.message


@pytest.mark.parametrize(
    "fixture",
    [
        "limiter_on_with_valkey_curl_ua",
        "limiter_on_with_valkey_accept_json_only",
        "limiter_on_with_valkey_python_urllib_ua",
    ],
)
async def test_429_says_the_limiter_is_on(executor, fake, fixture, caplog):
    fake.answer("/search", fixture)
    outcome = await failure(executor, {"query": QUERY})
    assert "limiter" in outcome.message
    assert "server.limiter: false" in caplog.text and "server.limiter" not in outcome.message


@pytest.mark.parametrize(
    "fixture",
    [
        "error_empty_q",
        "error_missing_q",
        "error_invalid_language",
        "error_invalid_pageno_0",
        "error_invalid_pageno_text",
        "error_invalid_safesearch",
        "error_invalid_time_range",
    ],
)
async def test_400_reports_searxngs_own_reason(executor, fake, fixture):
    fake.answer("/search", fixture)
    outcome = await failure(executor, {"query": QUERY})
    assert "400" in outcome.message
    assert Reply.from_fixture(fixture).body["error"] in outcome.message


async def test_other_http_errors_and_html_answers_are_failures(executor, fake):
    fake.answer("/search", "not_found")
    outcome = await failure(executor, {"query": QUERY})
    assert "HTTP 404" in outcome.message

    fake.answer("/search", "search_format_unknown_is_html")
    outcome = await failure(executor, {"query": QUERY})
    assert "JSON" in outcome.message


async def test_a_302_bang_redirect_is_not_followed(executor, fake):
    with FakeSearxng() as tripwire:
        target = f"{tripwire.base_url}/search/solar+panel+cleaning"
        redirect = Reply.from_fixture("search_external_bang_redirect")
        fake.answer("/search", redirect.with_changes(headers={**redirect.headers,
                                                             "location": target}))
        outcome = await failure(executor, {"query": QUERY})
        assert tripwire.requests == []
    assert "redirect" in outcome.message
    assert "not followed" in outcome.message
    assert tripwire.base_url not in outcome.message


async def test_a_refused_connection_to_searxng_says_nothing_left_in_one_plain_sentence(
    tmp_path, caplog
):
    with FakeSearxng() as closed:
        base_url = closed.base_url
    executor = build(tmp_path, base_url)
    outcome = await failure(executor, {"query": QUERY})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert outcome.sent is False
    assert outcome.message == (
        "The device's search service is not running, so nothing was searched and nothing "
        "left this device."
    )
    assert outcome.reason == "searxng: unreachable"
    assert base_url in caplog.text and "start-searxng" in caplog.text  # the owner's repair
    record = json.loads((tmp_path / "capabilities" / "audit.jsonl").read_text().splitlines()[-1])
    assert record["outcome"] == "failed" and record["sent"] is False


async def test_a_connection_that_breaks_after_the_request_went_may_have_left(tmp_path):
    def broken(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadError("connection reset after the request was sent")

    executor = build(tmp_path, "http://127.0.0.1:8093", transport=httpx.MockTransport(broken))
    outcome = await failure(executor, {"query": QUERY})
    assert outcome.sent is None
    assert outcome.message.endswith("The query may have left this device.")


async def test_a_refused_connection_is_told_apart_from_a_timeout_to_connect(tmp_path):
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused")

    def slow_to_connect(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("connect timed out")

    for handler in (refused, slow_to_connect):
        transport = httpx.MockTransport(handler)
        executor = build(tmp_path, "http://127.0.0.1:8093", transport=transport)
        outcome = await failure(executor, {"query": QUERY})
        assert outcome.sent is False, handler.__name__


async def test_slower_than_the_deadline_is_a_timeout(tmp_path, fake):
    executor = build(tmp_path, fake.base_url, timeout_seconds=0.3)
    fake.answer("/search", "search_basic", delay_seconds=5)
    started = time.monotonic()
    outcome = await failure(executor, {"query": QUERY})
    assert outcome.error_code is ErrorCode.TIMEOUT
    assert time.monotonic() - started < 3
    assert len(fake.requests) == 1


async def test_environment_proxies_are_ignored(executor, fake, monkeypatch):
    with FakeSearxng() as proxy:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.base_url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        outcome = await search(executor, {"query": QUERY})
        assert proxy.requests == []
    assert outcome.kind is OutcomeKind.EXECUTED
    assert len(fake.requests) == 1


async def test_answer_larger_than_the_cap_is_refused(executor, fake, monkeypatch):
    monkeypatch.setattr("sovereign.capabilities.searxng.MAX_RESPONSE_BYTES", 1024)
    outcome = await failure(executor, {"query": QUERY})
    assert "1024 bytes" in outcome.message


# --- the audit log --------------------------------------------------------------------

CANARY = "canary-4d1e-household-query"


async def test_audit_log_never_contains_the_query(tmp_path, fake):
    executor = build(tmp_path, fake.base_url)
    arguments = {"query": f"{CANARY} solar"}
    await executor.invoke("web.search", 1, arguments, policy={}, turn_state=TurnState())
    await executor.invoke("web.search", 1, arguments, policy=POLICY_ON, turn_state=TurnState())
    await search(executor, arguments)
    fake.answer("/search", "search_all_engines_fail")
    await search(executor, arguments)
    fake.answer("/search", "error_invalid_time_range")
    await search(executor, arguments)
    fake.answer("/search", "search_basic")
    await search(executor, {"query": f"!!{CANARY}"})
    await executor.invoke("web.search", 1, {"query": CANARY * 30}, policy=POLICY_ON,
                          turn_state=TurnState())

    audit = (tmp_path / "capabilities" / "audit.jsonl").read_text()
    lines = [json.loads(line) for line in audit.splitlines()]
    lines = [line for line in lines if line["outcome"] != "executing"]
    assert [line["outcome"] for line in lines] == [
        "refused", "confirmation_required",
        "confirmation_required", "executed", "confirmation_required", "failed",
        "confirmation_required", "failed", "confirmation_required", "executed",
        "refused",
    ]
    assert CANARY not in audit
    assert "solar" not in audit
    assert all(q.q is None or CANARY in q.q for q in fake.requests)
