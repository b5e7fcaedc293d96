"""invoke(): every stage and every error code it yields (DESIGN §2)."""

from __future__ import annotations

import asyncio
import json

import pytest

from sovereign.executor import (
    CapabilityError,
    Effect,
    ErrorCode,
    Locality,
    OutcomeKind,
    Stage,
    TurnState,
)

from .conftest import make_capability, never_finishes

EXTERNAL = {"locality": Locality.EXTERNAL, "policy_key": "external_enabled"}
ON = {"external_enabled": True}


async def call(executor, arguments, *, name="test.echo", version=1, policy=None, **kwargs):
    return await executor.invoke(
        name,
        version,
        arguments,
        policy=policy if policy is not None else {},
        turn_state=kwargs.pop("turn_state", TurnState()),
        **kwargs,
    )


async def test_an_automatic_capability_executes(build):
    outcome = await call(build(make_capability()), {"text": "hi"})
    assert outcome.ok
    assert outcome.kind is OutcomeKind.EXECUTED
    assert outcome.stage is Stage.SHAPE
    assert outcome.result == {"echo": "hi"}
    assert outcome.error_code is None


@pytest.mark.parametrize(("name", "version"), [("test.nope", 1), ("test.echo", 2), (None, 1),
                                               ("test.echo", "1")])
async def test_an_unknown_capability_stops_at_resolve(build, name, version):
    outcome = await call(build(make_capability()), {"text": "hi"}, name=name, version=version)
    assert (outcome.stage, outcome.error_code) == (Stage.RESOLVE, ErrorCode.UNKNOWN_CAPABILITY)
    assert outcome.kind is OutcomeKind.REFUSED


@pytest.mark.parametrize(
    "arguments",
    [{}, {"text": ""}, {"text": 5}, {"text": "x" * 51}, {"text": "ok", "extra": 1}, "text", None,
     ["text"]],
)
async def test_arguments_that_break_the_schema_stop_at_validate(build, arguments):
    capability = make_capability()
    outcome = await call(build(capability), arguments)
    assert (outcome.stage, outcome.error_code) == (Stage.VALIDATE, ErrorCode.INVALID_ARGUMENTS)
    assert outcome.message
    assert capability.calls == []


async def test_the_extra_argument_check_runs_after_the_schema(build):
    def no_shouting(arguments):
        if arguments["text"].isupper():
            raise ValueError("text: no shouting")

    capability = make_capability(validate_arguments=no_shouting)
    executor = build(capability)
    refused = await call(executor, {"text": "HEY"})
    assert refused.error_code is ErrorCode.INVALID_ARGUMENTS
    assert refused.message == "text: no shouting"
    assert (await call(executor, {"text": "hey"})).ok


@pytest.mark.parametrize("policy", [{}, {"external_enabled": False}, {"external_enabled": "yes"},
                                    {"external_enabled": 1}, {"other_key": True}])
async def test_policy_denies_unless_the_key_is_true(build, policy):
    capability = make_capability(**EXTERNAL)
    executor = build(capability)
    outcome = await call(executor, {"text": "hi"}, policy=policy)
    assert (outcome.stage, outcome.error_code) == (Stage.POLICY, ErrorCode.POLICY_DISABLED)
    assert "external_enabled" in outcome.message


async def test_policy_is_checked_before_confirmation_so_no_token_is_ever_issued(build):
    executor = build(make_capability(**EXTERNAL))
    token = executor.confirmations.issue("test.echo", 1, {"text": "hi"})
    outcome = await call(executor, {"text": "hi"}, policy={}, confirmation_token=token)
    assert outcome.error_code is ErrorCode.POLICY_DISABLED
    # the refused call never reached the confirmation stage, so the token is still unspent
    assert executor.confirmations.consume(token, "test.echo", 1, {"text": "hi"})


async def test_a_required_capability_without_a_token_asks_for_confirmation(build):
    capability = make_capability(**EXTERNAL)
    outcome = await call(build(capability), {"text": "hi"}, policy=ON)
    assert (outcome.stage, outcome.error_code) == (Stage.CONFIRM, ErrorCode.CONFIRMATION_REQUIRED)
    assert outcome.kind is OutcomeKind.CONFIRMATION_REQUIRED
    assert capability.calls == []


async def test_a_mutating_local_capability_also_needs_confirmation(build):
    capability = make_capability(effect=Effect.MUTATING)
    outcome = await call(build(capability), {"text": "hi"})
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED


async def test_a_valid_token_lets_the_call_run_once(build):
    capability = make_capability(**EXTERNAL)
    executor = build(capability)
    token = executor.confirmations.issue("test.echo", 1, {"text": "hi"})
    first = await call(executor, {"text": "hi"}, policy=ON, confirmation_token=token)
    assert first.ok
    again = await call(executor, {"text": "hi"}, policy=ON, confirmation_token=token)
    assert again.error_code is ErrorCode.INVALID_CONFIRMATION
    assert capability.calls == [{"text": "hi"}]


@pytest.mark.parametrize(
    ("issued_for", "called_with"),
    [
        ({"text": "hi"}, {"text": "hi there"}),
        ({"text": "a"}, {"text": "b"}),
    ],
)
async def test_a_token_is_bound_to_the_exact_arguments(build, issued_for, called_with):
    capability = make_capability(**EXTERNAL)
    executor = build(capability)
    token = executor.confirmations.issue("test.echo", 1, issued_for)
    outcome = await call(executor, called_with, policy=ON, confirmation_token=token)
    assert (outcome.stage, outcome.error_code) == (Stage.CONFIRM, ErrorCode.INVALID_CONFIRMATION)
    assert capability.calls == []


async def test_a_token_for_another_capability_is_rejected(build):
    executor = build(make_capability(**EXTERNAL), make_capability(name="test.other", **EXTERNAL))
    token = executor.confirmations.issue("test.other", 1, {"text": "hi"})
    outcome = await call(executor, {"text": "hi"}, policy=ON, confirmation_token=token)
    assert outcome.error_code is ErrorCode.INVALID_CONFIRMATION


async def test_a_made_up_token_is_rejected(build):
    outcome = await call(
        build(make_capability(**EXTERNAL)), {"text": "hi"}, policy=ON, confirmation_token="guess"
    )
    assert outcome.error_code is ErrorCode.INVALID_CONFIRMATION


async def test_an_expired_token_is_rejected(build, clock):
    executor = build(make_capability(**EXTERNAL))
    token = executor.confirmations.issue("test.echo", 1, {"text": "hi"})
    clock.advance(120.0)
    outcome = await call(executor, {"text": "hi"}, policy=ON, confirmation_token=token)
    assert outcome.error_code is ErrorCode.INVALID_CONFIRMATION


async def test_approval_reruns_the_policy_stage(build):
    executor = build(make_capability(**EXTERNAL))
    token = executor.confirmations.issue("test.echo", 1, {"text": "hi"})
    outcome = await call(executor, {"text": "hi"}, policy={"external_enabled": False},
                         confirmation_token=token)
    assert outcome.error_code is ErrorCode.POLICY_DISABLED


async def test_the_per_turn_bound_counts_executions(build):
    capability = make_capability(max_invocations_per_turn=2)
    executor = build(capability)
    turn = TurnState()
    assert (await call(executor, {"text": "a"}, turn_state=turn)).ok
    assert (await call(executor, {"text": "b"}, turn_state=turn)).ok
    third = await call(executor, {"text": "c"}, turn_state=turn)
    assert (third.stage, third.error_code) == (Stage.POLICY, ErrorCode.INVOCATION_LIMIT_REACHED)
    assert (await call(executor, {"text": "d"}, turn_state=TurnState())).ok
    assert len(capability.calls) == 3


async def test_a_refused_call_does_not_count_against_the_turn(build):
    executor = build(make_capability())
    turn = TurnState()
    await call(executor, {"text": ""}, turn_state=turn)
    assert (await call(executor, {"text": "ok"}, turn_state=turn)).ok


async def test_the_deadline_is_enforced(build):
    executor = build(make_capability(execute=never_finishes, timeout_seconds=0.05))
    outcome = await asyncio.wait_for(call(executor, {"text": "hi"}), timeout=5)
    assert (outcome.stage, outcome.error_code) == (Stage.EXECUTE, ErrorCode.TIMEOUT)
    assert outcome.kind is OutcomeKind.FAILED


@pytest.mark.parametrize(
    "code", [ErrorCode.EXECUTION_FAILED, ErrorCode.FETCH_FAILED, ErrorCode.FETCH_TARGET_REJECTED]
)
async def test_a_capability_error_keeps_its_code_and_message(build, code):
    async def fails(arguments):
        raise CapabilityError("the thing is unplugged", code)

    outcome = await call(build(make_capability(execute=fails)), {"text": "hi"})
    assert (outcome.stage, outcome.error_code) == (Stage.EXECUTE, code)
    assert outcome.message == "the thing is unplugged"


def test_a_capability_may_not_raise_a_gate_code():
    with pytest.raises(ValueError, match="may not raise"):
        CapabilityError("sneaky", ErrorCode.POLICY_DISABLED)


async def test_an_unexpected_exception_becomes_execution_failed_without_its_text(build):
    async def crashes(arguments):
        raise RuntimeError("secret internal detail")

    outcome = await call(build(make_capability(execute=crashes)), {"text": "hi"})
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "secret internal detail" not in outcome.message


@pytest.mark.parametrize("result", [{"echo": 5}, {}, ["echo"], None, "echo"])
async def test_a_result_that_breaks_its_schema_is_result_invalid(build, result):
    async def returns(arguments):
        return result

    outcome = await call(build(make_capability(execute=returns)), {"text": "hi"})
    assert (outcome.stage, outcome.error_code) == (Stage.SHAPE, ErrorCode.RESULT_INVALID)
    assert outcome.result is None


async def test_a_result_over_its_byte_cap_is_result_too_large(build):
    async def returns(arguments):
        return {"echo": "é" * 60}  # 120 bytes of UTF-8, 60 characters

    capability = make_capability(execute=returns, max_result_bytes=100)
    outcome = await call(build(capability), {"text": "hi"})
    assert (outcome.stage, outcome.error_code) == (Stage.SHAPE, ErrorCode.RESULT_TOO_LARGE)
    size = len(json.dumps({"echo": "é" * 60}, ensure_ascii=False).encode())
    assert str(size) in outcome.message


async def test_the_execute_callable_gets_a_copy_of_the_arguments(build):
    seen = []

    async def mutates(arguments):
        arguments["text"] = "changed"
        seen.append(arguments)
        return {"echo": "x"}

    arguments = {"text": "hi"}
    await call(build(make_capability(execute=mutates)), arguments)
    assert arguments == {"text": "hi"}
    assert seen == [{"text": "changed"}]
