"""The audit log: fields, file mode, no argument text; an unwritable log refuses the call."""

from __future__ import annotations

import json
import stat

from sovereign.executor import AuditLog, ErrorCode, Locality, TurnState

from .conftest import make_capability

CANARY = "CANARY-7f3a-query-text"


def read_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_every_outcome_is_one_line_with_no_argument_text(build, tmp_path):
    capability = make_capability(locality=Locality.EXTERNAL, policy_key="external_enabled")
    executor = build(capability)
    policy = {"external_enabled": True}
    arguments = {"text": CANARY}
    await executor.invoke("test.echo", 1, arguments, policy={}, turn_state=TurnState())
    await executor.invoke("test.echo", 1, arguments, policy=policy, turn_state=TurnState())
    token = executor.confirmations.issue("test.echo", 1, arguments)
    await executor.invoke("test.echo", 1, arguments, policy=policy, turn_state=TurnState(),
                          confirmation_token=token)
    await executor.invoke(CANARY, 1, arguments, policy=policy, turn_state=TurnState())
    await executor.invoke("test.echo", 1, {"text": CANARY * 9}, policy=policy,
                          turn_state=TurnState())

    path = tmp_path / "capabilities" / "audit.jsonl"
    raw = path.read_text()
    assert CANARY not in raw
    lines = read_lines(path)
    assert [line["outcome"] for line in lines] == [
        "refused", "confirmation_required", "executing", "executed", "refused", "refused"
    ]
    assert [line["error_code"] for line in lines] == [
        "POLICY_DISABLED", "CONFIRMATION_REQUIRED", None, None, "UNKNOWN_CAPABILITY",
        "INVALID_ARGUMENTS",
    ]
    executing, executed = lines[2], lines[3]
    assert executed["started"] == f"{executing['run']}.{executing['seq']}"
    assert executed["capability"] == "test.echo"
    assert executed["classification"] == {
        "effect": "read_only", "locality": "external", "confirmation": "required"
    }
    assert lines[4]["capability"] == "unknown"
    assert set(lines[0]) == {
        "time", "boot", "run", "seq", "uptime_s", "capability", "version", "classification",
        "stage", "outcome", "error_code", "reason", "duration_ms", "asked", "started",
    }
    assert [line["seq"] for line in lines] == [1, 2, 3, 4, 5, 6]
    assert len({line["run"] for line in lines}) == 1


async def test_a_failure_message_is_not_written_either(build, tmp_path):
    from sovereign.executor import CapabilityError

    async def fails(arguments):
        raise CapabilityError(f"could not reach {arguments['text']}", ErrorCode.FETCH_FAILED)

    executor = build(make_capability(execute=fails))
    outcome = await executor.invoke("test.echo", 1, {"text": CANARY}, policy={},
                                    turn_state=TurnState())
    assert CANARY in outcome.message  # the household sees it ...
    assert CANARY not in (tmp_path / "capabilities" / "audit.jsonl").read_text()  # ... the log not


def test_the_directory_is_created_lazily_and_the_file_is_private(tmp_path):
    log = AuditLog(tmp_path / "data")
    assert not (tmp_path / "data").exists()
    log.record(make_capability(), version=1, stage="shape", outcome="executed")
    mode = stat.S_IMODE((tmp_path / "data" / "capabilities" / "audit.jsonl").stat().st_mode)
    assert mode == 0o600


def test_lines_are_appended_never_rewritten(tmp_path):
    log = AuditLog(tmp_path)
    for _ in range(3):
        log.record(make_capability(), version=1, stage="shape", outcome="executed")
    assert len(read_lines(tmp_path / "capabilities" / "audit.jsonl")) == 3


async def test_an_unwritable_log_refuses_the_call_instead_of_running_it(tmp_path, caplog):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data directory should be")
    from sovereign.executor import Executor, Registry

    registry = Registry()
    capability = make_capability()
    registry.add(capability)
    executor = Executor(registry, audit=AuditLog(blocker))
    outcome = await executor.invoke("test.echo", 1, {"text": "hi"}, policy={},
                                    turn_state=TurnState())
    assert outcome.error_code is ErrorCode.AUDIT_UNAVAILABLE
    assert capability.calls == []
    assert "did not run" in outcome.message and "audit record" in outcome.message
    assert "audit log" in caplog.text


def test_no_data_dir_means_no_log(tmp_path):
    log = AuditLog(None)
    log.record(None, version=1, stage="resolve", outcome="refused")
    assert log.path is None


async def test_a_capability_reason_label_is_audited(build, tmp_path):
    from sovereign.executor import CapabilityError

    async def refuses(arguments):
        raise CapabilityError(
            f"{arguments['text']} is not allowed", ErrorCode.FETCH_TARGET_REJECTED,
            reason="deny: loopback",
        )

    executor = build(make_capability(execute=refuses))
    await executor.invoke("test.echo", 1, {"text": CANARY}, policy={}, turn_state=TurnState())
    executing, line = read_lines(tmp_path / "capabilities" / "audit.jsonl")
    assert executing["outcome"] == "executing"
    assert (line["error_code"], line["reason"]) == ("FETCH_TARGET_REJECTED", "deny: loopback")
    assert CANARY not in (tmp_path / "capabilities" / "audit.jsonl").read_text()


def test_a_reason_must_be_a_fixed_label_not_free_text():
    import pytest

    from sovereign.executor import CapabilityError

    for bad in ("http://127.0.0.1:8080/", "x" * 81, "line\nbreak", ""):
        with pytest.raises(ValueError, match="fixed label"):
            CapabilityError("no", ErrorCode.FETCH_TARGET_REJECTED, reason=bad)
