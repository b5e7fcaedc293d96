"""Pi-hole's API seats: one shared session per device, renewed once on a 401, given back
at shutdown, and "no free seat" told to the household plainly (against a fake Pi-hole
that enforces ``webserver.api.max_sessions`` as FTL does)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from sovereign.capabilities import pihole
from sovereign.capabilities.pihole_session import SEATS_EXCEEDED, PiholeSession
from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.executor import AuditLog, ErrorCode, Executor, Registry, TurnState
from tests.fakes.pihole import FakePihole
from tests.spoken import deciding

PASSWORD = "app-password"
TURNS = 10


def write_settings(data_dir: Path, **settings: object) -> None:
    path = data_dir / "pihole.json"
    path.write_text(json.dumps(settings))
    os.chmod(path, 0o600)


@pytest.fixture
def fake():
    with FakePihole(password=PASSWORD, max_sessions=3) as server:
        server.delay_seconds = 0.02  # every answer takes a moment: the questions overlap
        yield server


@pytest.fixture
def registry():
    return Registry()


@pytest.fixture
def session(registry, tmp_path, fake):
    write_settings(tmp_path, password=PASSWORD, base_url=fake.base_url)
    return pihole.register(registry, data_dir=tmp_path)


@pytest.fixture
def executor(registry, session, tmp_path):
    return Executor(registry, audit=AuditLog(tmp_path))


async def summary(executor):
    return await executor.invoke("pihole.summary", 1, {}, policy={}, turn_state=TurnState())


def audit_outcomes(data_dir: Path) -> list[str]:
    lines = (data_dir / "capabilities" / "audit.jsonl").read_text().splitlines()
    return [json.loads(line)["outcome"] for line in lines]


def asks_pihole(messages: list[dict[str, Any]], tools: Any) -> Any:
    """A model deciding as the default (schema-mode) backend does: read Pi-hole's totals,
    then decide to answer (an empty reply), then write the answer when asked for it."""
    if tools is None:
        return "Here are the totals."
    return propose("pihole_summary") if deciding(messages) else ModelReply()


async def ten_turns(executor) -> list[Any]:
    loop = TurnLoop(executor, ScriptedBackend(asks_pihole))
    asking = [{"role": "user", "content": "how many ads were blocked today?"}]
    return await asyncio.gather(
        *(loop.process_turn(asking, policy={}, owner=f"session-{n}") for n in range(TURNS))
    )


async def test_ten_concurrent_invocations_share_one_login(fake, executor, session):
    outcomes = await asyncio.gather(*(summary(executor) for _ in range(TURNS)))
    assert all(outcome.ok for outcome in outcomes), [o.message for o in outcomes]
    assert fake.logins == 1 and session.logins == 1
    assert fake.peak_sessions == 1  # one seat, whatever the number of questions


async def test_ten_concurrent_turns_are_answered_within_the_seats(fake, executor, tmp_path):
    results = await ten_turns(executor)
    assert [r.receipts[0].outcome for r in results] == ["executed"] * TURNS
    assert all(r.facts for r in results)
    assert fake.logins == 1 and len(fake.sessions) == 1
    assert audit_outcomes(tmp_path).count("executed") == TURNS


async def test_seats_taken_by_others_is_said_plainly_to_every_turn(fake, executor, tmp_path):
    fake.take_seats(fake.max_sessions)  # browsers and other programs hold every seat
    results = await ten_turns(executor)
    for result in results:
        assert result.receipts[0].outcome == "failed"
        assert result.receipts[0].error_code == "EXECUTION_FAILED"
        assert result.text.startswith("Pi-hole has no free login for me")  # what to do
        assert "Close Pi-hole's web page where it is open" in result.text
    assert fake.login_attempts == 1  # the questions that waited share the refusal
    outcomes = audit_outcomes(tmp_path)
    assert outcomes.count("executing") == TURNS and outcomes.count("failed") == TURNS


async def test_a_freed_seat_is_used_by_the_next_question(fake, executor):
    others = fake.take_seats(fake.max_sessions)
    refused = await summary(executor)
    assert refused.error_code is ErrorCode.EXECUTION_FAILED
    assert refused.message == SEATS_EXCEEDED
    fake.sessions.discard(others[0])  # someone logged out of the web interface
    assert (await summary(executor)).ok
    assert fake.logins == 1


async def test_an_expired_session_is_renewed_once_for_all_waiting_invocations(
    fake, executor, session
):
    assert (await summary(executor)).ok
    fake.expire_sessions()
    outcomes = await asyncio.gather(*(summary(executor) for _ in range(TURNS)))
    assert all(outcome.ok for outcome in outcomes)
    assert fake.logins == 2 and len(fake.sessions) == 1


async def test_a_changed_password_logs_the_old_session_out_first(fake, executor, tmp_path):
    assert (await summary(executor)).ok
    (old,) = fake.sessions
    fake.password = "rotated"
    write_settings(tmp_path, password="rotated", base_url=fake.base_url)
    assert (await summary(executor)).ok
    assert fake.logged_out == [old]
    assert len(fake.sessions) == 1 and old not in fake.sessions


async def test_logout_gives_the_seat_back(fake, executor, session, registry):
    assert (await summary(executor)).ok
    (sid,) = fake.sessions
    await registry.close()
    assert fake.logged_out == [sid] and fake.sessions == set()
    assert session.logouts == 1
    deletes = [r for r in fake.requests if r.method == "DELETE"]
    assert [r.headers.get("x-ftl-sid") for r in deletes] == [sid]
    assert all("sid" not in r.query for r in deletes)


async def test_logout_without_a_session_asks_nothing(fake, session):
    await session.logout()
    assert fake.requests == []


async def test_logout_of_an_unreachable_pihole_does_not_raise(tmp_path):
    registry = Registry()
    with FakePihole(password=PASSWORD) as gone:
        write_settings(tmp_path, password=PASSWORD, base_url=gone.base_url)
        session = pihole.register(registry, data_dir=tmp_path)
        executor = Executor(registry)
        assert (await summary(executor)).ok
    await registry.close()  # the fake is gone: logged, not raised
    assert session.logouts == 0


async def test_a_session_pihole_already_ended_counts_as_logged_out(fake, executor, session):
    assert (await summary(executor)).ok
    fake.expire_sessions()
    await session.logout()
    assert session.logouts == 1  # 401: nothing left to give back


@pytest.mark.parametrize(
    ("status", "body", "words"),
    [
        (429, {"error": {"key": "api_seats_exceeded"}}, "webserver.api.max_sessions"),
        (429, {"error": {"key": "rate_limiting"}}, "limiting how often"),
        (429, None, "limiting how often"),
        (401, {"session": {"valid": False}}, "rejected the password"),
        (400, {"error": {"key": "bad_request"}}, "two-factor"),
        (500, None, "HTTP 500"),
    ],
)
def test_every_refused_login_has_its_own_sentence(status, body, words):
    from sovereign.capabilities._household_http import JsonReply
    from sovereign.capabilities.pihole_session import login_failure

    assert words in login_failure(JsonReply(status, body))


def test_a_new_session_holds_nothing():
    session = PiholeSession()
    assert (session.logins, session.logouts) == (0, 0)
