"""Every approval asked is closed in the audit exactly once: approved, denied or expired.

Also when nobody answers (the token lapses), and when a restart forgets it.
"""

from __future__ import annotations

import json

from sovereign.executor import AuditLog, Locality, OutcomeKind, TurnState
from sovereign.executor.audit import RESTART_REASON, unanswered_asks
from sovereign.executor.audit_file import read_records

from .conftest import make_capability

POLICY = {"external_enabled": True}
ARGS = {"text": "hello"}


def records(tmp_path):
    text = (tmp_path / "capabilities" / "audit.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def ref(record):
    return f"{record['run']}.{record['seq']}"


async def ask(executor):
    """Propose the external echo; returns (outcome, token) as the turn loop would."""
    outcome = await executor.invoke("test.echo", 1, ARGS, policy=POLICY, turn_state=TurnState())
    token = executor.confirmations.issue("test.echo", 1, ARGS, asked=outcome.audit_id)
    return outcome, token


def external():
    return make_capability(locality=Locality.EXTERNAL, policy_key="external_enabled")


async def test_every_record_of_an_approved_call_names_the_ask(build, tmp_path):
    executor = build(external())
    asked, token = await ask(executor)
    await executor.invoke("test.echo", 1, ARGS, policy=POLICY, turn_state=TurnState(),
                          confirmation_token=token)
    first, executing, executed = records(tmp_path)
    assert first["outcome"] == "confirmation_required" and ref(first) == asked.audit_id
    assert executing["asked"] == executed["asked"] == asked.audit_id
    assert unanswered_asks(read_records(tmp_path / "capabilities" / "audit.jsonl")) == {}


async def test_a_denial_is_recorded_once_and_names_the_ask(build, tmp_path):
    capability = external()
    executor = build(capability)
    asked, token = await ask(executor)
    executor.record_answer(capability, OutcomeKind.DENIED, token)
    executor.record_answer(capability, OutcomeKind.DENIED, token)
    executor.confirmations.discard(token)
    _, denied = records(tmp_path)
    assert (denied["outcome"], denied["asked"]) == ("denied", asked.audit_id)


async def test_an_approval_nobody_answers_is_closed_as_expired_when_it_lapses(
    build, tmp_path, clock
):
    capability = external()
    executor = build(capability)
    asked, token = await ask(executor)
    clock.advance(executor.confirmations.ttl_seconds + 1)
    assert len(executor.confirmations) == 0  # the sweep notices the lapse
    executor.record_answer(capability, OutcomeKind.EXPIRED, token)  # a late answer: no second
    _, expired = records(tmp_path)
    assert (expired["outcome"], expired["asked"], expired["stage"]) == (
        "expired", asked.audit_id, "confirm"
    )


async def test_a_forgotten_unanswered_approval_is_closed_as_expired(build, tmp_path):
    executor = build(external())
    asked, token = await ask(executor)
    executor.confirmations.discard(token)  # the paused turn was forgotten
    _, expired = records(tmp_path)
    assert (expired["outcome"], expired["asked"]) == ("expired", asked.audit_id)


async def test_an_approval_refused_by_policy_meanwhile_still_answers_the_ask(build, tmp_path):
    executor = build(external())
    asked, token = await ask(executor)
    await executor.invoke("test.echo", 1, ARGS, policy={}, turn_state=TurnState(),
                          confirmation_token=token)
    executor.confirmations.discard(token)  # the turn loop discards the token afterwards
    outcomes = [(r["outcome"], r["error_code"], r["asked"]) for r in records(tmp_path)]
    assert outcomes == [
        ("confirmation_required", "CONFIRMATION_REQUIRED", None),
        ("refused", "POLICY_DISABLED", asked.audit_id),
    ]


async def test_start_up_closes_what_an_earlier_run_left_unanswered(build, tmp_path):
    executor = build(external())
    open_ask, _ = await ask(executor)
    answered, token = await ask(executor)
    await executor.invoke("test.echo", 1, ARGS, policy=POLICY, turn_state=TurnState(),
                          confirmation_token=token)
    restarted = AuditLog(tmp_path)
    report = restarted.prepare(close_open_asks=True)
    assert report.open_asks_closed == 1
    closing = records(tmp_path)[-1]
    assert (closing["outcome"], closing["asked"], closing["reason"]) == (
        "expired", open_ask.audit_id, RESTART_REASON
    )
    assert closing["run"] == restarted.run
    assert closing["classification"]["locality"] == "external"
    assert AuditLog(tmp_path).prepare(close_open_asks=True).open_asks_closed == 0
    assert answered.audit_id not in {r["asked"] for r in records(tmp_path)[-1:]}


async def test_start_up_leaves_its_own_runs_asks_open(build, tmp_path):
    executor = build(external())
    await ask(executor)
    assert executor.audit.prepare(close_open_asks=True).open_asks_closed == 0
    assert len(records(tmp_path)) == 1
