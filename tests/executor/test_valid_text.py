"""Unencodable text (lone surrogates: half an emoji) never breaks an invocation: results,
messages, arguments and audit lines come out valid, and a call that ran always ends
in an audited outcome, whatever a later stage raises."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sovereign.executor import (
    AuditLog,
    CapabilityError,
    ErrorCode,
    Locality,
    OutcomeKind,
    TurnState,
    valid_text,
    valid_value,
)

from .conftest import make_capability

HALVES = ["\ud83d", "\ude00", "\ud800", "\udfff", "\udcff"]
"""A high half, a low half, both ends of the range and a surrogateescape'd byte."""


def encodes(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def audit_lines(tmp_path) -> list[dict[str, Any]]:
    raw = (tmp_path / "capabilities" / "audit.jsonl").read_bytes()
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()]


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("at", ["start", "middle", "end"])
def test_a_lone_surrogate_becomes_one_replacement_character(half: str, at: str) -> None:
    text = {"start": f"{half}abc", "middle": f"ab{half}c", "end": f"abc{half}"}[at]
    fixed = valid_text(text)
    assert len(fixed) == len(text) and fixed.count("\ufffd") == 1
    assert fixed.replace("\ufffd", "") == "abc"


def test_a_surrogate_pair_written_as_two_code_points_becomes_its_character() -> None:
    assert valid_text("a\ud83d\ude00b") == "a\U0001f600b"
    assert valid_text("\ude00\ud83d") == "\ufffd\ufffd"  # the wrong order is no pair


def test_valid_text_is_returned_unchanged() -> None:
    text = "plain, ünïcödé and \U0001f600"
    assert valid_text(text) is text
    value = {"a": [text, 1, None, {"b": (2.5, True)}]}
    assert valid_value(value) is value


def test_every_string_of_a_value_is_made_valid_keys_included() -> None:
    value = {"k\ud83d": ["x\ude00", {"deep": ("t\ud800",)}], "n": 1, "ok": "fine"}
    fixed = valid_value(value)
    assert fixed == {"k\ufffd": ["x\ufffd", {"deep": ["t\ufffd"]}], "n": 1, "ok": "fine"}
    assert value["k\ud83d"][0] == "x\ude00"  # the original is left as it was


@pytest.mark.parametrize("depth", [1_000, 10_000, 100_000])
def test_a_deeply_nested_value_is_walked_without_recursion(depth: int) -> None:
    value: Any = "\ud83d"
    for _ in range(depth):
        value = [value]
    fixed = valid_value(value)
    for _ in range(depth):
        fixed = fixed[0]
    assert fixed == "\ufffd"


@pytest.mark.parametrize("half", HALVES)
async def test_a_result_holding_half_an_emoji_executes_and_is_audited(
    build, tmp_path, half
) -> None:
    async def returns_broken_text(arguments: dict[str, Any]) -> dict[str, Any]:
        return {"echo": f"snippet {half} end", f"key{half}": [half]}

    executor = build(make_capability(execute=returns_broken_text))
    outcome = await executor.invoke("test.echo", 1, {"text": "hi"}, policy={},
                                    turn_state=TurnState())  # fmt: skip
    assert outcome.kind is OutcomeKind.EXECUTED, outcome.message
    assert encodes(outcome.result)
    assert outcome.result["echo"] == "snippet \ufffd end"
    assert [line["outcome"] for line in audit_lines(tmp_path)] == ["executing", "executed"]


async def test_a_result_over_its_cap_only_once_made_valid_is_measured_valid(build) -> None:
    async def returns(arguments: dict[str, Any]) -> dict[str, Any]:
        return {"echo": "\ud83d" * 10}

    executor = build(make_capability(execute=returns, max_result_bytes=64))
    outcome = await executor.invoke("test.echo", 1, {"text": "hi"}, policy={},
                                    turn_state=TurnState())  # fmt: skip
    assert outcome.ok, outcome.message  # 10 x U+FFFD is 30 bytes, within the cap


@pytest.mark.parametrize("half", HALVES)
async def test_a_failure_message_with_half_an_emoji_is_valid(build, half) -> None:
    async def fails(arguments: dict[str, Any]) -> dict[str, Any]:
        raise CapabilityError(f"the server said {half}")

    executor = build(make_capability(execute=fails))
    outcome = await executor.invoke("test.echo", 1, {"text": "hi"}, policy={},
                                    turn_state=TurnState())  # fmt: skip
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert outcome.message == "the server said \ufffd"


@pytest.mark.parametrize("half", HALVES)
async def test_arguments_holding_half_an_emoji_are_canonical_and_valid(build, half) -> None:
    capability = make_capability()
    executor = build(capability)
    outcome = await executor.invoke("test.echo", 1, {"text": f"a{half}b"}, policy={},
                                    turn_state=TurnState())  # fmt: skip
    assert outcome.ok
    assert outcome.arguments == {"text": "a\ufffdb"}
    assert capability.calls == [{"text": "a\ufffdb"}]  # what ran is what is shown


class Unserialisable:
    """A value no JSON encoder takes: the shape stage fails on it with a TypeError."""


@pytest.mark.parametrize(
    "result",
    [{"echo": "x", "extra": Unserialisable()}, {"echo": "x", "n": {1, 2}}],
    ids=["object", "set"],
)
async def test_a_stage_that_raises_after_the_call_ran_still_closes_its_audit_record(
    build, tmp_path, result
) -> None:
    async def returns(arguments: dict[str, Any]) -> dict[str, Any]:
        return result

    executor = build(make_capability(execute=returns, locality=Locality.EXTERNAL,
                                     policy_key=None))  # fmt: skip
    outcome = await executor.invoke(
        "test.echo", 1, {"text": "hi"}, policy={}, turn_state=TurnState(),
        confirmation_token=executor.confirmations.issue("test.echo", 1, {"text": "hi"}),
    )
    assert outcome.error_code is ErrorCode.RESULT_INVALID
    executing, closed = audit_lines(tmp_path)
    assert executing["outcome"] == "executing"
    assert closed["started"] is not None and closed["outcome"] == "failed"


async def test_a_capability_raising_a_unicode_error_is_a_failure_not_a_crash(build, tmp_path):
    async def encodes_badly(arguments: dict[str, Any]) -> dict[str, Any]:
        "\ud83d".encode()
        return {"echo": "never"}

    executor = build(make_capability(execute=encodes_badly))
    outcome = await executor.invoke("test.echo", 1, {"text": "hi"}, policy={},
                                    turn_state=TurnState())  # fmt: skip
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert [line["outcome"] for line in audit_lines(tmp_path)] == ["executing", "failed"]


def test_an_audit_line_is_valid_utf8_whatever_text_reaches_it(tmp_path) -> None:
    log = AuditLog(tmp_path)
    log.record(make_capability(), version=1, stage="execute", outcome="failed",
               error_code=ErrorCode.EXECUTION_FAILED, reason="deny: \ud83d")  # fmt: skip
    (line,) = audit_lines(tmp_path)
    assert line["reason"] == "deny: \ufffd"
