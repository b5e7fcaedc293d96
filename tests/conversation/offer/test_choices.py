"""What the model is offered beyond a capability's arguments: the facts it may name and
the values an argument can take (offer.choices)."""

from __future__ import annotations

import json

import pytest

from sovereign.capabilities import home_assistant
from sovereign.conversation import ToolCatalog
from sovereign.conversation.offer.choices import FACTS, split_facts, with_choices
from sovereign.executor import Capability, Choice, Effect, Locality, Registry


def capability(**extra) -> Capability:
    async def execute(_arguments):
        return {}

    return Capability(
        name="test.read",
        version=1,
        description="test",
        arguments_schema=extra.pop("arguments_schema", {"type": "object", "properties": {}}),
        result_schema={"type": "object"},
        effect=Effect.READ_ONLY,
        locality=Locality.LOCAL,
        execute=execute,
        **extra,
    )


def test_a_capability_with_several_facts_offers_them_as_an_enum(tmp_path):
    registry = Registry()
    from sovereign.capabilities import system

    system.register(registry, disk_path=tmp_path)
    (tool,) = ToolCatalog.from_registry(registry).tools()
    facts = tool["function"]["parameters"]["properties"][FACTS]
    assert facts["items"]["enum"] == ["temperature", "load", "memory", "disk", "uptime"]
    assert "free and used memory" in facts["description"]


def test_the_facts_are_taken_out_before_the_executor_sees_the_call(tmp_path):
    registry = Registry()
    from sovereign.capabilities import system

    system.register(registry, disk_path=tmp_path)
    health = registry.get("system.health", 1)
    arguments, topics = split_facts(health, {FACTS: ["memory", "gossip", "memory"]})
    assert arguments == {} and topics == ("memory",)
    assert split_facts(health, {FACTS: "memory"}) == ({}, ())
    assert split_facts(None, {FACTS: ["memory"]}) == ({FACTS: ["memory"]}, ())
    assert split_facts(health, None) == (None, ())


def test_an_argument_with_choices_becomes_an_enum_shown_with_the_households_names(tmp_path):
    settings = {
        "enabled": True,
        "base_url": "http://127.0.0.1:9",
        "token": "t",
        "allowlist": ["lock.back_door", "sensor.kitchen_temperature"],
    }
    path = tmp_path / "home-assistant.json"
    path.write_text(json.dumps(settings))
    path.chmod(0o600)
    registry = Registry()
    home_assistant.register(registry, data_dir=tmp_path)
    tools = {
        t["function"]["name"]: t["function"]["parameters"]
        for t in ToolCatalog.from_registry(registry).tools()
    }
    entity = tools["home_assistant_get_state"]["properties"]["entity_id"]
    assert entity["enum"] == ["lock.back_door", "sensor.kitchen_temperature"]
    assert "lock.back_door (back door)" in entity["description"]


def test_choices_that_cannot_be_read_leave_the_argument_as_it_was():
    def broken():
        raise OSError("settings unreadable")

    schema = {"type": "object", "properties": {"entity_id": {"type": "string"}}}
    offered = with_choices(schema, capability(arguments_schema=schema, choices=broken))
    assert offered == schema
    empty = with_choices(schema, capability(arguments_schema=schema, choices=lambda: {}))
    assert empty == schema
    listed = with_choices(
        schema,
        capability(
            arguments_schema=schema,
            choices=lambda: {"entity_id": [Choice(value="a.b", label="A B")]},
        ),
    )
    assert listed["properties"]["entity_id"]["enum"] == ["a.b"]


def test_a_capability_argument_called_facts_is_refused_before_any_model_sees_it():
    schema = {"type": "object", "properties": {FACTS: {"type": "string"}}}
    with pytest.raises(ValueError, match="may not be called"):
        with_choices(schema, capability(arguments_schema=schema))
