"""pihole.summary against a fake Pi-hole v6: totals only, session reuse and renewal, settings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sovereign.capabilities import pihole
from sovereign.executor import (
    AuditLog,
    Confirmation,
    ErrorCode,
    Executor,
    OutcomeKind,
    Registry,
    TurnState,
)
from tests.fakes.pihole import DATABASE_SUMMARY, SUMMARY, FakePihole

PASSWORD = "app-password"


def write_settings(data_dir: Path, mode: int = 0o600, **settings: object) -> Path:
    path = data_dir / "pihole.json"
    path.write_text(json.dumps(settings))
    os.chmod(path, mode)
    return path


@pytest.fixture
def fake():
    with FakePihole(password=PASSWORD) as server:
        yield server


@pytest.fixture
def registry(tmp_path):
    return Registry()


@pytest.fixture
def session(registry, tmp_path):
    return pihole.register(registry, data_dir=tmp_path)


@pytest.fixture
def executor(registry, session, tmp_path):
    return Executor(registry, audit=AuditLog(tmp_path))


async def summary(executor, arguments=None):
    return await executor.invoke(
        "pihole.summary", 1, arguments or {}, policy={}, turn_state=TurnState()
    )


async def test_pihole_summary_is_local_read_only_and_automatic(registry, session):
    capability = registry.get("pihole.summary", 1)
    assert capability.classification() == {
        "effect": "read_only",
        "locality": "local",
        "confirmation": "automatic",
    }
    assert capability.confirmation is Confirmation.AUTOMATIC
    assert capability.policy_key is None


async def test_summary_reports_the_live_totals_and_blocking_status(fake, executor, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    fake.blocking = "disabled"
    outcome = await summary(executor)
    assert outcome.ok, outcome.message
    result = outcome.result
    assert result["period"] == "last_24_hours"
    assert result["queries_total"] == SUMMARY["queries"]["total"]
    assert result["queries_blocked"] == SUMMARY["queries"]["blocked"]
    assert result["percent_blocked"] == round(100 * 3465 / 7497, 1)
    assert result["domains_on_blocklist"] == SUMMARY["gravity"]["domains_being_blocked"]
    assert result["blocking_status"] == "disabled"


async def test_summary_carries_totals_only_never_client_or_domain_data(fake, executor, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    outcome = await summary(executor)
    assert set(outcome.result) == {
        "period",
        "queries_total",
        "queries_blocked",
        "percent_blocked",
        "domains_on_blocklist",
        "blocking_status",
        "retrieved_at",
    }
    asked = {request.path for request in fake.requests}
    assert asked == {"/api/auth", "/api/stats/summary", "/api/dns/blocking"}


@pytest.mark.parametrize(("period", "days"), [("last_7_days", 7), ("last_30_days", 30)])
async def test_longer_periods_read_the_long_term_database_window(
    fake, executor, tmp_path, period, days
):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    outcome = await summary(executor, {"period": period})
    assert outcome.ok, outcome.message
    assert outcome.result["period"] == period
    assert outcome.result["queries_total"] == DATABASE_SUMMARY["sum_queries"]
    assert outcome.result["queries_blocked"] == DATABASE_SUMMARY["sum_blocked"]
    assert outcome.result["percent_blocked"] == 21.9
    (window,) = [r for r in fake.requests if r.path == "/api/stats/database/summary"]
    span = int(window.query["until"][0]) - int(window.query["from"][0])
    assert span == days * 86400


async def test_a_period_outside_the_enumerated_set_is_invalid(executor, fake, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    outcome = await summary(executor, {"period": "forever"})
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert fake.requests == []


async def test_the_session_is_reused_across_invocations(fake, executor, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    for _ in range(3):
        assert (await summary(executor)).ok
    assert fake.logins == 1


async def test_an_expired_session_is_renewed_once_on_401(fake, executor, session, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    assert (await summary(executor)).ok
    fake.expire_sessions()
    outcome = await summary(executor)
    assert outcome.ok, outcome.message
    assert fake.logins == 2
    assert session.logins == 2


async def test_a_401_after_renewal_fails_without_looping(fake, executor, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    fake.reject_all_sessions = True
    outcome = await summary(executor)
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert fake.logins == 2


async def test_a_changed_password_starts_a_new_session(fake, executor, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    assert (await summary(executor)).ok
    fake.password = "rotated-password"
    write_settings(tmp_path, password="rotated-password", base_url=fake.base_url)
    assert (await summary(executor)).ok
    assert fake.logins == 2


async def test_the_sid_travels_in_the_header_never_the_query_string(fake, executor, tmp_path):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    assert (await summary(executor)).ok
    stats = [r for r in fake.requests if r.path != "/api/auth"]
    assert stats and all(r.headers.get("x-ftl-sid") in fake.sessions for r in stats)
    assert all("sid" not in r.query for r in fake.requests)


async def test_a_pihole_without_a_password_needs_no_sid(executor, tmp_path):
    with FakePihole(password=None) as open_pihole:
        write_settings(tmp_path, password="", base_url=open_pihole.base_url)
        outcome = await summary(executor)
        assert outcome.ok, outcome.message
        assert all("x-ftl-sid" not in r.headers for r in open_pihole.requests)


async def test_a_wrong_password_fails_with_how_to_fix_it(fake, executor, tmp_path):
    write_settings(tmp_path, password="wrong", base_url=fake.base_url)
    outcome = await summary(executor)
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "app password" in outcome.message


async def test_not_configured_says_how_to_configure(executor, tmp_path):
    outcome = await summary(executor)
    assert outcome.kind is OutcomeKind.FAILED
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "not configured" in outcome.message
    assert str(tmp_path / "pihole.json") in outcome.message
    assert "0600" in outcome.message


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o644])
async def test_a_settings_file_others_can_read_is_refused(fake, executor, tmp_path, mode):
    write_settings(tmp_path, mode=mode, password=PASSWORD, base_url=fake.base_url)
    outcome = await summary(executor)
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "chmod 600" in outcome.message
    assert fake.requests == []


@pytest.mark.parametrize(
    "content",
    ["{not json", "[]", '{"base_url": "http://127.0.0.1:1"}', '{"password": 5}', "\xff"],
)
async def test_a_corrupt_settings_file_fails_clearly(executor, tmp_path, content):
    path = tmp_path / "pihole.json"
    path.write_text(content, encoding="latin-1")
    os.chmod(path, 0o600)
    outcome = await summary(executor)
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "pihole.json" in outcome.message


@pytest.mark.parametrize(
    "base_url",
    ["http://192.168.1.2:8080", "http://pi.hole", "ftp://127.0.0.1", "http://u:p@127.0.0.1"],
)
async def test_base_url_must_name_this_device(executor, tmp_path, base_url):
    write_settings(tmp_path, password=PASSWORD, base_url=base_url)
    outcome = await summary(executor)
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "base_url" in outcome.message


async def test_a_redirect_is_not_followed(executor, tmp_path):
    with FakePihole(password=PASSWORD) as target, FakePihole(password=PASSWORD) as fake:
        fake.redirect_to = target.base_url + "/api/auth"
        write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
        outcome = await summary(executor)
        assert outcome.error_code is ErrorCode.EXECUTION_FAILED
        assert "redirect" in outcome.message
        assert target.requests == []


async def test_an_unreachable_pihole_fails_cleanly(executor, tmp_path):
    with FakePihole() as gone:
        base_url = gone.base_url
    write_settings(tmp_path, password=PASSWORD, base_url=base_url)
    outcome = await summary(executor)
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert outcome.message.startswith("Could not reach Pi-hole")


async def test_environment_proxies_are_ignored(fake, executor, tmp_path, monkeypatch):
    with FakePihole() as proxy:
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.setenv(name, proxy.base_url)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
        assert (await summary(executor)).ok
        assert proxy.requests == []


async def test_a_reply_without_the_v6_fields_is_a_failure(executor, tmp_path, monkeypatch):
    with FakePihole(password=PASSWORD) as fake:
        monkeypatch.setitem(SUMMARY, "queries", {"total": "many"})
        write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
        outcome = await summary(executor)
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "v6" in outcome.message
