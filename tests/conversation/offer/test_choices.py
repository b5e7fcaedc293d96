"""What the model is offered beyond a capability's arguments: the facts it may name and
the values an argument can take (offer.choices)."""

from __future__ import annotations

import json

import pytest

from sovereign.capabilities import home_assistant
from sovereign.conversation import ToolCatalog
from sovereign.conversation.offer.choices import (
    ALSO_ASKED,
    FACTS,
    Chosen,
    split_product_parameters,
    with_choices,
)
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
    chosen = split_product_parameters(
        health, {FACTS: ["memory", "gossip", "memory"], ALSO_ASKED: "nothing_else"}
    )
    assert chosen == Chosen({}, ("memory",), rest_asked=False)
    assert split_product_parameters(health, {FACTS: "memory"}) == Chosen({}, ())
    assert split_product_parameters(None, {FACTS: ["memory"]}) == Chosen({FACTS: ["memory"]})
    assert split_product_parameters(health, None) == Chosen(None)


@pytest.mark.parametrize("said", [None, "something_else", "nothing", "NOTHING_ELSE", ["x"]])
def test_anything_but_nothing_else_means_the_question_asks_more(tmp_path, said):
    registry = Registry()
    from sovereign.capabilities import system

    system.register(registry, disk_path=tmp_path)
    health = registry.get("system.health", 1)
    arguments = {} if said is None else {ALSO_ASKED: said}
    assert split_product_parameters(health, arguments).rest_asked is True


def test_every_capability_with_facts_must_say_whether_the_question_asks_more(tmp_path):
    registry = Registry()
    from sovereign.capabilities import system

    system.register(registry, disk_path=tmp_path)
    (tool,) = ToolCatalog.from_registry(registry).tools()
    parameters = tool["function"]["parameters"]
    assert parameters["properties"][ALSO_ASKED]["enum"] == ["nothing_else", "something_else"]
    assert ALSO_ASKED in parameters["required"]


def test_a_capability_without_facts_is_offered_no_product_parameter():
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert with_choices(schema, capability(arguments_schema=schema)) == schema


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


@pytest.mark.parametrize("name", [FACTS, ALSO_ASKED])
def test_a_capability_argument_named_like_a_product_parameter_is_refused(name):
    schema = {"type": "object", "properties": {name: {"type": "string"}}}
    with pytest.raises(ValueError, match="may not be called"):
        with_choices(schema, capability(arguments_schema=schema))
