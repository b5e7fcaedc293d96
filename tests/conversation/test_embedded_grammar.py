"""The schema the embedded backend turns into a llama.cpp grammar (keywords llama.cpp rejects)."""

from __future__ import annotations

import json

from sovereign.capabilities import home_assistant, web_fetch
from sovereign.conversation import ToolCatalog
from sovereign.conversation.backends.decision import decision_schema
from sovereign.conversation.backends.embedded_load import grammar_schema
from sovereign.executor import Registry


def keywords(schema: object) -> set[str]:
    if isinstance(schema, dict):
        return set(schema) | {k for value in schema.values() for k in keywords(value)}
    if isinstance(schema, list):
        return {k for item in schema for k in keywords(item)}
    return set()


def test_patterns_and_max_lengths_are_left_out_at_every_depth():
    schema = {
        "anyOf": [
            {"type": "object", "properties": {
                "entity_id": {"type": "string", "pattern": r"^[a-z]+\.[a-z]+$", "maxLength": 255},
                "url": {"type": "string", "minLength": 1, "maxLength": 8192},
            }},
        ]
    }  # fmt: skip

    cleaned = grammar_schema(schema)

    assert cleaned == {
        "anyOf": [
            {"type": "object", "properties": {
                "entity_id": {"type": "string"},
                "url": {"type": "string", "minLength": 1},
            }},
        ]
    }  # fmt: skip
    assert "pattern" in schema["anyOf"][0]["properties"]["entity_id"]  # the input is untouched


def test_a_property_named_pattern_is_kept():
    schema = {"type": "object", "properties": {"pattern": {"type": "string", "pattern": "^a$"}}}

    assert grammar_schema(schema) == {
        "type": "object",
        "properties": {"pattern": {"type": "string"}},
    }


def test_the_decision_schema_of_web_fetch_and_home_assistant_loses_only_those_keywords(tmp_path):
    registry = Registry()
    web_fetch.register(registry)
    home_assistant.register(registry, data_dir=tmp_path)
    schema = decision_schema(ToolCatalog.from_registry(registry).tools())
    assert {"pattern", "maxLength"} <= keywords(schema)  # what made llama.cpp crash

    cleaned = grammar_schema(schema)

    assert keywords(cleaned) == keywords(schema) - {"pattern", "maxLength"}
    assert json.loads(json.dumps(cleaned)) == cleaned
