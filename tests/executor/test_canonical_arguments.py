"""Stage 2 yields the canonical arguments; every later stage uses them (DESIGN §4)."""

from __future__ import annotations

from sovereign.executor import CapabilityError, ErrorCode, Locality, OutcomeKind, Stage, TurnState

from .conftest import make_capability

EXTERNAL = {"locality": Locality.EXTERNAL, "policy_key": "external_enabled"}
ON = {"external_enabled": True}



def squeeze_spaces(arguments):
    return {"text": " ".join(part for part in arguments["text"].split(" ") if part)}


async def propose(executor, arguments, token=None):
    return await executor.invoke(
        "test.echo", 1, arguments, policy=ON, turn_state=TurnState(), confirmation_token=token
    )


async def test_the_outcome_carries_the_canonical_arguments_of_the_validate_stage(build):
    executor = build(make_capability(validate_arguments=squeeze_spaces, **EXTERNAL))
    outcome = await propose(executor, {"text": "  two   words "})
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
    assert outcome.arguments == {"text": "two words"}


async def test_a_token_for_the_canonical_arguments_executes_exactly_them(build):
    capability = make_capability(validate_arguments=squeeze_spaces, **EXTERNAL)
    executor = build(capability)
    proposed = await propose(executor, {"text": "  two   words "})
    token = executor.confirmations.issue("test.echo", 1, proposed.arguments)
    outcome = await propose(executor, {"text": "  two   words "}, token)
    assert outcome.kind is OutcomeKind.EXECUTED
    assert capability.calls == [{"text": "two words"}]
    assert outcome.result == {"echo": "two words"}
    assert outcome.arguments == {"text": "two words"}


async def test_a_token_bound_to_the_models_spelling_is_not_valid_for_the_canonical_call(build):
    capability = make_capability(validate_arguments=squeeze_spaces, **EXTERNAL)
    executor = build(capability)
    token = executor.confirmations.issue("test.echo", 1, {"text": "  two   words "})
    outcome = await propose(executor, {"text": "  two   words "}, token)
    assert outcome.error_code is ErrorCode.INVALID_CONFIRMATION
    assert capability.calls == []


async def test_a_hook_returning_none_keeps_the_arguments_and_cannot_alias_them(build):
    def mutate_and_accept(arguments):
        arguments["text"] = "changed behind the executor's back"

    capability = make_capability(validate_arguments=mutate_and_accept)
    executor = build(capability)
    proposed = {"text": "as given"}
    outcome = await propose(executor, proposed)
    assert outcome.ok
    assert outcome.arguments == {"text": "as given"} == proposed
    assert capability.calls == [{"text": "as given"}]


async def test_canonical_arguments_that_break_the_schema_are_invalid(build):
    capability = make_capability(validate_arguments=lambda a: {"text": a["text"] * 40})
    outcome = await propose(build(capability), {"text": "long"})
    assert (outcome.stage, outcome.error_code) == (Stage.VALIDATE, ErrorCode.INVALID_ARGUMENTS)
    assert outcome.arguments is None
    assert capability.calls == []


async def test_a_hook_may_refuse_a_destination_at_the_validate_stage(build):
    def loopback_only(arguments):
        raise CapabilityError(
            "127.0.0.1 is not an allowed destination (deny: loopback)",
            code=ErrorCode.FETCH_TARGET_REJECTED,
            reason="deny: loopback",
        )

    capability = make_capability(validate_arguments=loopback_only, **EXTERNAL)
    executor = build(capability)
    outcome = await propose(executor, {"text": "http://127.0.0.1/"})
    assert (outcome.stage, outcome.error_code) == (Stage.VALIDATE, ErrorCode.FETCH_TARGET_REJECTED)
    assert outcome.kind is OutcomeKind.REFUSED
    assert outcome.reason == "deny: loopback"
    assert len(executor.confirmations) == 0
    assert capability.calls == []
