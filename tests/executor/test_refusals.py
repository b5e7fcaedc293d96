"""Every refusal of stages 1-2 carries a stable, language-free code and the values its
sentence names (:class:`~sovereign.executor.Refusal`), beside the English sentence: a
client says it in the household's language without the executor knowing any."""

from __future__ import annotations

import pytest

from sovereign.executor import (
    REFUSALS,
    ArgumentRefused,
    CapabilityError,
    ErrorCode,
    Executor,
    Refusal,
    Registry,
)

from .conftest import make_capability

SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 2, "maxLength": 5},
        "size": {"type": "integer", "minimum": 1, "maximum": 9},
        "mode": {"enum": ["a", "b"]},
    },
    "required": ["text"],
    "additionalProperties": False,
}


def validate(arguments, hook=None, name="test.echo"):
    registry = Registry()
    registry.add(make_capability(arguments_schema=SCHEMA, validate_arguments=hook))
    return Executor(registry).validate(name, 1, arguments)


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ({}, Refusal("missing", {"argument": "text"})),
        ({"text": "abc", "colour": 1}, Refusal("unexpected", {"argument": "colour"})),
        ({"text": 5}, Refusal("wrong_type", {"argument": "text"})),
        ({"text": "abcdefg"}, Refusal("too_long", {"argument": "text", "limit": 5})),
        ({"text": "a"}, Refusal("too_short", {"argument": "text", "limit": 2})),
        ({"text": "abc", "size": 0}, Refusal("too_small", {"argument": "size", "limit": 1})),
        ({"text": "abc", "size": 10}, Refusal("too_large", {"argument": "size", "limit": 9})),
        ({"text": "abc", "mode": "c"}, Refusal("not_a_choice", {"argument": "mode"})),
    ],
)
def test_a_schema_refusal_names_its_argument_and_limit(arguments, refusal):
    checked = validate(arguments)
    assert checked.error_code is ErrorCode.INVALID_ARGUMENTS
    assert checked.refusal == refusal
    assert checked.message  # the English sentence stays


def test_a_hook_s_refusal_is_carried_and_any_other_is_not_accepted():
    def coded(arguments):
        raise ArgumentRefused("text: no words.", "no_words", argument="text")

    checked = validate({"text": "  "}, coded)
    assert checked.refusal == Refusal("no_words", {"argument": "text"})
    assert checked.message == "text: no words."

    def plain(arguments):
        raise ValueError("text: nope.")

    assert validate({"text": "ab"}, plain).refusal == Refusal("not_accepted")

    def rejected(arguments):
        raise CapabilityError("No.", ErrorCode.FETCH_TARGET_REJECTED, reason="deny: loopback")

    assert validate({"text": "ab"}, rejected).refusal == Refusal("destination_refused")
    assert validate({"text": "ab"}, name="no.such").refusal == Refusal("unknown_capability")
    assert validate({"text": "ab"}).refusal is None  # accepted


def test_a_refusal_code_must_be_one_of_the_list():
    assert "invisible_character" in REFUSALS
    with pytest.raises(ValueError, match="not a refusal code"):
        ArgumentRefused("x", "Too long")
