"""The executor's flag-check hook (DESIGN §4): run on every call about to ask, its flags
on the outcome, only their kinds in the ask's audit record; and validate() alone."""

from __future__ import annotations

import json
import logging

from sovereign.executor import (
    AuditLog,
    ErrorCode,
    Executor,
    Locality,
    Registry,
    TurnState,
)
from sovereign.executor.audit import flag_kinds

from .conftest import make_capability

FLAG = {"argument": "text", "start": 0, "end": 4, "kind": "private_word", "reason": "r"}


def executor(tmp_path, check, **capability):
    registry = Registry()
    registry.add(make_capability(**capability))
    return Executor(registry, audit=AuditLog(tmp_path), flag_check=check)


def records(tmp_path):
    path = tmp_path / "capabilities" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_an_ask_carries_the_flags_and_its_record_only_their_kinds(tmp_path):
    seen = []

    def check(name, arguments):
        seen.append((name, arguments))
        return [FLAG, {**FLAG, "kind": "email_address", "start": 1}]

    ex = executor(tmp_path, check, locality=Locality.EXTERNAL)
    outcome = await ex.invoke("test.echo", 1, {"text": "maya"}, policy={}, turn_state=TurnState())
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
    assert outcome.flags == (FLAG, {**FLAG, "kind": "email_address", "start": 1})
    assert seen == [("test.echo", {"text": "maya"})]  # the canonical arguments
    [ask] = records(tmp_path)
    assert ask["flags"] == ["email_address", "private_word"]
    assert "maya" not in json.dumps(ask)


async def test_calls_that_do_not_ask_are_not_checked_and_carry_no_flags_field(tmp_path):
    calls = []
    ex = executor(tmp_path, lambda n, a: calls.append(n) or [FLAG])
    outcome = await ex.invoke("test.echo", 1, {"text": "hi"}, policy={}, turn_state=TurnState())
    assert outcome.ok and outcome.flags == () and calls == []
    assert all("flags" not in record for record in records(tmp_path))


async def test_a_failing_check_is_logged_and_the_card_carries_no_flags(tmp_path, caplog):
    def broken(name, arguments):
        raise RuntimeError("boom")

    ex = executor(tmp_path, broken, locality=Locality.EXTERNAL)
    with caplog.at_level(logging.ERROR):
        outcome = await ex.invoke("test.echo", 1, {"text": "x"}, policy={}, turn_state=TurnState())
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED and outcome.flags == ()
    assert "flag check failed" in caplog.text
    assert records(tmp_path)[0]["flags"] == []


async def test_a_call_s_own_check_follows_the_executor_s_on_the_card_and_in_the_record(tmp_path):
    dictated = {**FLAG, "kind": "from_a_result", "start": 0, "end": 4}
    seen = []

    def own(name, arguments):
        seen.append((name, arguments))
        return [dictated]

    ex = executor(tmp_path, lambda n, a: [FLAG], locality=Locality.EXTERNAL)
    outcome = await ex.invoke(
        "test.echo", 1, {"text": "maya"}, policy={}, turn_state=TurnState(), flag_check=own
    )
    assert outcome.flags == (FLAG, dictated)
    assert seen == [("test.echo", {"text": "maya"})]
    [ask] = records(tmp_path)
    assert ask["flags"] == ["from_a_result", "private_word"]
    assert "maya" not in json.dumps(ask)


async def test_a_call_s_own_check_runs_only_when_it_asks_and_fails_on_its_own(tmp_path, caplog):
    calls = []
    ex = executor(tmp_path, None)
    own = lambda n, a: calls.append(n) or [FLAG]  # noqa: E731
    done = await ex.invoke(
        "test.echo", 1, {"text": "hi"}, policy={}, turn_state=TurnState(), flag_check=own
    )
    assert done.ok and done.flags == () and calls == []

    def broken(name, arguments):
        yield {**FLAG, "kind": "from_a_result"}
        raise RuntimeError("boom")

    ex = executor(tmp_path, lambda n, a: [FLAG], locality=Locality.EXTERNAL)
    with caplog.at_level(logging.ERROR):
        asked = await ex.invoke(
            "test.echo", 1, {"text": "x"}, policy={}, turn_state=TurnState(), flag_check=broken
        )
    assert asked.flags == (FLAG,)  # the executor's own, nothing half-found
    assert "flag check failed" in caplog.text
    assert records(tmp_path)[-1]["flags"] == ["private_word"]


def test_only_fixed_labels_reach_the_audit_log():
    assert flag_kinds(["b_kind", "a", "b_kind", "Jane Doe", "x@y", "", 5, "ok"]) == [
        "a", "b_kind", "ok",
    ]  # fmt: skip


async def test_validate_runs_stages_one_and_two_and_audits_nothing(tmp_path):
    ex = executor(tmp_path, None, locality=Locality.EXTERNAL)
    assert ex.validate("test.echo", 1, {"text": "ok"}).arguments == {"text": "ok"}
    bad = ex.validate("test.echo", 1, {"text": ""})
    assert not bad.ok and bad.error_code is ErrorCode.INVALID_ARGUMENTS and bad.message
    assert ex.validate("nope", 1, {}).error_code is ErrorCode.UNKNOWN_CAPABILITY
    assert not (tmp_path / "capabilities" / "audit.jsonl").exists()
