"""The schema every backend hands to a grammar compiler (what llama.cpp cannot compile is gone)."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sovereign.capabilities import home_assistant, pihole, system, web_fetch, web_search
from sovereign.conversation import ToolCatalog
from sovereign.conversation.backends.decision import decision_schema
from sovereign.conversation.backends.grammar_schema import (
    ANY_VALUE,
    LENGTH_LIMIT,
    REPETITION_LIMIT,
    grammar_schema,
    literal_safe,
)
from sovereign.executor import Registry

from .llama_runtime import llama_grammar_accepts


def keywords(schema: object) -> set[str]:
    """Every keyword used at any depth (property names are not keywords)."""
    if isinstance(schema, list):
        return {k for item in schema for k in keywords(item)}
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key == "properties":
            found |= {k for sub in value.values() for k in keywords(sub)}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            found |= keywords(value)
    return found


def product_decision_schema(tmp_path) -> dict:
    registry = Registry()
    system.register(registry)
    web_search.register(registry)
    web_fetch.register(registry)
    pihole.register(registry, data_dir=tmp_path)
    home_assistant.register(registry, data_dir=tmp_path)
    return decision_schema(ToolCatalog.from_registry(registry).tools())


def test_patterns_and_upper_bounds_are_left_out_at_every_depth():
    schema = {
        "anyOf": [
            {"type": "object", "properties": {
                "entity_id": {"type": "string", "pattern": r"^[a-z]+\.[a-z]+$", "maxLength": 255},
                "url": {"type": "string", "minLength": 1, "maxLength": 8192, "format": "uri"},
                "tags": {"type": "array", "items": {"type": "string", "pattern": r"\w+"},
                         "maxItems": 5000, "minItems": 1},
            }, "additionalProperties": {"type": "string", "pattern": "x\\"}},
        ]
    }  # fmt: skip

    cleaned = grammar_schema(schema)

    assert cleaned == {
        "anyOf": [
            {"type": "object", "properties": {
                "entity_id": {"type": "string"},
                "url": {"type": "string", "minLength": 1},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            }, "additionalProperties": {"type": "string"}},
        ]
    }  # fmt: skip
    assert "pattern" in schema["anyOf"][0]["properties"]["entity_id"]  # the input is untouched


def test_a_property_named_like_a_keyword_is_kept():
    schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "pattern": "^a$"},
            "maxLength": {"type": "integer"},
            "description": {"type": "string", "description": "words"},
        },
        "required": ["pattern"],
    }

    assert grammar_schema(schema) == {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "maxLength": {"type": "integer"},
            "description": {"type": "string"},
        },
        "required": ["pattern"],
    }


@pytest.mark.parametrize(
    ("bound", "kept"),
    [(0, True), (1, True), (REPETITION_LIMIT, True), (REPETITION_LIMIT + 1, False)],
)
def test_lower_bounds_are_kept_only_while_small(bound, kept):
    assert ("minLength" in grammar_schema({"type": "string", "minLength": bound})) is kept
    assert ("minItems" in grammar_schema({"type": "array", "minItems": bound})) is kept


@pytest.mark.parametrize(
    ("keyword", "limit"), [("maxItems", REPETITION_LIMIT), ("maxLength", LENGTH_LIMIT)]
)
def test_upper_bounds_are_kept_only_while_small(keyword, limit):
    for bound, kept in [(0, True), (3, True), (limit, True), (limit + 1, False), (9000, False)]:
        assert (keyword in grammar_schema({keyword: bound, "type": "array"})) is kept


@pytest.mark.parametrize("keyword", ["minLength", "maxLength", "maxItems"])
@pytest.mark.parametrize("bound", [True, 1.5, "3", None, -1.0, -1])
def test_a_bound_that_is_not_an_integer_is_dropped(keyword, bound):
    assert grammar_schema({"type": "string", keyword: bound}) == {"type": "string"}


@pytest.mark.parametrize("bound", [True, 1.5, "3", None, -1.0])
def test_a_bound_that_is_not_an_integer_is_dropped_from_arrays(bound):
    assert grammar_schema({"type": "array", "maxItems": bound}) == {"type": "array"}


@pytest.mark.parametrize(
    "value", ['say "hi"', "back\\slash", "new\nline", "tab\t", "nul\x00", "bell\x07"]
)
def test_constants_a_grammar_literal_cannot_spell_are_dropped(value):
    assert grammar_schema({"type": "string", "const": value}) == {"type": "string"}
    assert grammar_schema({"type": "string", "enum": ["fine", value]}) == {"type": "string"}


@pytest.mark.parametrize("value", ["web_search", "café", "日本", 3, 2.5, True, None])
def test_plain_constants_are_kept(value):
    assert grammar_schema({"const": value}) == {"const": value}
    assert literal_safe(value)


def test_an_object_whose_property_names_need_escapes_is_left_open():
    schema = {
        "type": "object",
        "properties": {'a"b': {"type": "string"}, "ok": {"type": "string"}},
        "required": ['a"b'],
        "additionalProperties": False,
    }
    assert grammar_schema(schema) == {"type": "object"}


def test_a_subschema_that_keeps_no_keyword_admits_any_value_not_only_objects():
    assert grammar_schema({"pattern": "^x$"}) == ANY_VALUE
    assert grammar_schema({"$ref": "https://schemas.example/x.json"}) == ANY_VALUE
    assert grammar_schema({}) == {}


def test_the_product_decision_schema_loses_only_what_the_grammar_cannot_hold(tmp_path):
    schema = product_decision_schema(tmp_path)
    assert {"pattern", "maxLength"} <= keywords(schema)  # what made llama.cpp crash

    cleaned = grammar_schema(schema)

    dropped = {"pattern", "minimum", "maximum", "description"}
    bounds = {"maxLength", "maxItems"}  # cut to what a grammar holds, or added (choices)
    assert keywords(cleaned) - bounds == keywords(schema) - dropped - bounds
    assert "maxItems" in keywords(cleaned)  # the facts a question asks about
    assert max(_bounds(schema, "maxLength")) > LENGTH_LIMIT  # a page address: 8192
    assert all(v <= LENGTH_LIMIT for v in _bounds(cleaned, "maxLength"))
    assert json.loads(json.dumps(cleaned)) == cleaned


_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_schemas = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "number", "boolean", "null"]),
            "pattern": st.text(max_size=6),
            "minLength": st.integers(0, 40),
            "maxLength": st.integers(0, 9000),
            "const": _json_scalars,
            "enum": st.lists(_json_scalars, min_size=1, max_size=3),
            "format": st.sampled_from(["uri", "date-time", "email"]),
        },
    ),
    lambda inner: st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("object")},
            optional={
                "properties": st.dictionaries(st.text(max_size=5), inner, max_size=3),
                "additionalProperties": st.one_of(st.booleans(), inner),
            },
        ),
        st.fixed_dictionaries(
            {"type": st.just("array"), "items": inner}, optional={"minItems": st.integers(0, 40)}
        ),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
    ),
    max_leaves=8,
)


def _values(schema: object):
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties":
                yield from value
                for sub in value.values():
                    yield from _values(sub)
            elif key == "const":
                yield value
            elif key == "enum":
                yield from value
            else:
                yield from _values(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _values(item)


@settings(max_examples=300, deadline=None)
@given(_schemas)
def test_any_schema_comes_out_loosened_with_no_literal_needing_an_escape(schema):
    cleaned = grammar_schema(schema)

    assert keywords(cleaned) <= {
        "type", "properties", "required", "additionalProperties", "items",
        "anyOf", "oneOf", "allOf", "const", "enum", "minLength", "minItems", "maxLength",
        "maxItems",
    }  # fmt: skip
    assert all(literal_safe(value) for value in _values(cleaned))
    for key in ("minLength", "minItems", "maxItems"):
        assert all(v <= REPETITION_LIMIT for v in _bounds(cleaned, key))
    assert all(v <= LENGTH_LIMIT for v in _bounds(cleaned, "maxLength"))
    jsonschema.Draft202012Validator.check_schema(cleaned)


def _bounds(schema: object, key: str):
    if isinstance(schema, dict):
        for name, value in schema.items():
            if name == key:
                yield value
            elif isinstance(value, (dict, list)):
                yield from _bounds(value, key)
    elif isinstance(schema, list):
        for item in schema:
            yield from _bounds(item, key)


# --- against llama.cpp's own grammar parser (vocabulary only, under a second) ----------------


def test_llama_cpp_compiles_the_product_decision_schema(tmp_path):
    assert llama_grammar_accepts(grammar_schema(product_decision_schema(tmp_path)))


HOSTILE = [
    {"type": "string", "pattern": r"^[a-z0-9_]+\.[a-z0-9_]+$"},
    {"type": "string", "pattern": r'\\"\d+(?:[.,]\d+)?\s*$'},
    {"type": "string", "maxLength": 8192},
    {"type": "string", "minLength": 5000},
    {"type": "array", "items": {"type": "string"}, "maxItems": 9000},
    {"type": "array", "items": {"enum": ["1.1", "1.2"]}, "maxItems": REPETITION_LIMIT},
    {"type": "string", "maxLength": LENGTH_LIMIT},
    {"type": "string", "minLength": -1, "maxLength": -1},
    {"type": "string", "const": 'a"b\\c'},
    {"type": "string", "enum": ["ok", 'quote"', "back\\", "nl\n"]},
    {"type": "object", "properties": {'we"ird': {"type": "string"}}, "required": ['we"ird']},
    {"type": "string", "format": "date-time"},
    {"type": "number", "minimum": 0, "maximum": math.pi},
]


@pytest.mark.parametrize("schema", HOSTILE, ids=[json.dumps(s)[:40] for s in HOSTILE])
def test_llama_cpp_compiles_every_hostile_schema_once_made_safe(schema):
    wrapped = {
        "type": "object",
        "properties": {"action": {"const": "x"}, "arguments": schema},
        "required": ["action", "arguments"],
    }
    assert llama_grammar_accepts(grammar_schema(wrapped))


def test_a_list_of_choices_holds_at_most_as_many_items_as_there_are_choices():
    # Unbounded, the model wrote one fact until its token limit: a reply with no call.
    facts = {"type": "array", "items": {"enum": ["queries", "blocked", "blocklist"]}}
    assert grammar_schema(facts)["maxItems"] == 3
    assert grammar_schema({**facts, "maxItems": 2})["maxItems"] == 2  # a tighter bound kept
    assert grammar_schema({**facts, "maxItems": 9})["maxItems"] == 3
    many = {"type": "array", "items": {"enum": [str(n) for n in range(40)]}}
    assert "maxItems" not in grammar_schema(many)  # past what a grammar holds: left open
    assert "maxItems" not in grammar_schema({"type": "array", "items": {"type": "string"}})
    assert facts == {"type": "array", "items": {"enum": ["queries", "blocked", "blocklist"]}}


def test_the_facts_of_every_household_read_are_bounded_in_the_decision_grammar(tmp_path):
    from sovereign.capabilities import pihole, system
    from sovereign.conversation import ToolCatalog
    from sovereign.conversation.backends.decision import decision_schema
    from sovereign.executor import Registry

    registry = Registry()
    system.register(registry, disk_path=tmp_path)
    pihole.register(registry, data_dir=tmp_path)
    tools = ToolCatalog.from_registry(registry).tools()
    for branch in grammar_schema(decision_schema(tools, required=True))["anyOf"]:
        facts = branch["properties"]["arguments"]["properties"]["facts"]
        assert facts["maxItems"] == len(facts["items"]["enum"])
    # The instructions show the capability's own schema, unchanged.
    for tool in tools:
        assert "maxItems" not in tool["function"]["parameters"]["properties"]["facts"]
