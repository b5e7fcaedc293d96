"""The Capability contract: derived confirmation, definition errors, registry (DESIGN §2)."""

from __future__ import annotations

import pytest

from sovereign.executor import (
    CapabilityDefinitionError,
    Confirmation,
    Effect,
    Locality,
    Registry,
)

from .conftest import make_capability


@pytest.mark.parametrize(
    ("effect", "locality", "expected"),
    [
        (Effect.READ_ONLY, Locality.LOCAL, Confirmation.AUTOMATIC),
        (Effect.READ_ONLY, Locality.EXTERNAL, Confirmation.REQUIRED),
        (Effect.MUTATING, Locality.LOCAL, Confirmation.REQUIRED),
        (Effect.MUTATING, Locality.EXTERNAL, Confirmation.REQUIRED),
    ],
)
def test_confirmation_is_derived_from_classification(effect, locality, expected):
    capability = make_capability(effect=effect, locality=locality)
    assert capability.confirmation is expected
    assert capability.classification()["confirmation"] == str(expected)


def test_confirmation_cannot_be_set_by_hand():
    with pytest.raises(TypeError):
        make_capability(confirmation=Confirmation.AUTOMATIC)


def test_defaults_match_the_contract():
    capability = make_capability()
    assert capability.max_result_bytes == 65536
    assert capability.max_invocations_per_turn == 1
    assert capability.policy_key is None


@pytest.mark.parametrize(
    ("overrides", "complaint"),
    [
        ({"name": "echo"}, "dotted"),
        ({"name": "Test.Echo"}, "dotted"),
        ({"name": "test.echo; rm"}, "dotted"),
        ({"version": 0}, "version"),
        ({"version": True}, "version"),
        ({"version": "1"}, "version"),
        ({"arguments_schema": {"type": "nonsense"}}, "arguments schema"),
        ({"arguments_schema": {"type": "string"}}, "must be an object"),
        ({"result_schema": {"type": 12}}, "result schema"),
        ({"timeout_seconds": 0}, "timeout"),
        ({"timeout_seconds": -1.5}, "timeout"),
        ({"max_result_bytes": 0}, "bounds"),
        ({"max_invocations_per_turn": 0}, "bounds"),
    ],
)
def test_a_malformed_capability_raises_at_definition(overrides, complaint):
    with pytest.raises(CapabilityDefinitionError, match=complaint):
        make_capability(**overrides)


def test_registry_rejects_a_duplicate_name_and_version():
    registry = Registry()
    registry.add(make_capability())
    with pytest.raises(CapabilityDefinitionError, match="already registered"):
        registry.add(make_capability())
    registry.add(make_capability(version=2))
    assert len(registry) == 2


def test_registry_lookups():
    registry = Registry()
    registry.add(make_capability(version=1))
    registry.add(make_capability(version=3))
    assert registry.get("test.echo", 3).version == 3
    assert registry.get("test.echo", 2) is None
    assert registry.latest("test.echo").version == 3
    assert registry.latest("nothing.here") is None
    registry.remove("test.echo", 3)
    assert registry.latest("test.echo").version == 1


def test_tool_definitions_list_the_latest_version_with_its_schema():
    registry = Registry()
    registry.add(make_capability(version=1, description="old"))
    registry.add(make_capability(version=2, description="new"))
    registry.add(make_capability(name="test.other"))
    tools = registry.tool_definitions()
    assert [(t["name"], t["version"]) for t in tools] == [("test.echo", 2), ("test.other", 1)]
    assert tools[0]["description"] == "new"
    assert tools[0]["parameters"]["required"] == ["text"]
