"""Normalising OpenAI-style replies: every quirk the captured servers showed."""

from __future__ import annotations

import pytest

from sovereign.conversation.backends.jsontext import json_objects, parse_arguments
from sovereign.conversation.backends.openai.deltas import StreamAccumulator
from sovereign.conversation.backends.openai.wire import (
    reply_from_message,
    system_first,
    wire_messages,
)

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
    for n in ("web_search", "system_health")
]


@pytest.mark.parametrize("raw", ['{"query": "q"}', {"query": "q"}, ' {"query":"q"} '])
def test_arguments_as_string_or_object_are_the_same(raw):
    (call,) = reply_from_message(
        {"content": None, "tool_calls": [{"function": {"name": "web_search", "arguments": raw}}]},
        TOOLS,
    ).tool_calls
    assert call.arguments == {"query": "q"} and call.id == "call_1"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [('{"query": ', "not valid JSON"), ("[1, 2]", "not an object"), (7, "not an object")],
)
def test_malformed_arguments_become_a_parse_error_not_an_exception(raw, problem):
    (call,) = reply_from_message(
        {"tool_calls": [{"id": "x", "function": {"name": "web_search", "arguments": raw}}]}, TOOLS
    ).tool_calls
    assert call.arguments is None and problem in call.parse_error


@pytest.mark.parametrize("raw", ["", None])
def test_empty_arguments_mean_an_empty_object(raw):
    assert parse_arguments(raw) == ({}, None)


def test_several_structured_calls_keep_their_order():
    message = {
        "content": "",
        "tool_calls": [
            {"id": "", "function": {"name": "system_health", "arguments": "{}"}},
            {"function": {"name": "web_search", "arguments": '{"query": "fans"}'}},
        ],
    }
    calls = reply_from_message(message, TOOLS).tool_calls
    assert [(c.id, c.name) for c in calls] == [
        ("call_1", "system_health"),
        ("call_2", "web_search"),
    ]


@pytest.mark.parametrize(
    "content",
    [
        '<tool_call>\n{"name": "system_health", "arguments": {}}\n</tool_call>',
        '{"function": {"name": "system_health", "arguments": "{}"}}',
        '[{"name": "system_health", "arguments": {}}]',
        '{{"name": "system_health", "arguments": {}}}}',
    ],
)
def test_calls_written_in_content_are_read_for_declared_tools(content):
    reply = reply_from_message({"content": content}, TOOLS)
    assert [c.name for c in reply.tool_calls] == ["system_health"] and reply.content == ""


def test_several_calls_in_content_are_all_read():
    content = (
        '{"name": "system_health", "arguments": {}}\n'
        '{"name": "web_search", "arguments": {"query": "fans"}}'
    )
    calls = reply_from_message({"content": content}, TOOLS).tool_calls
    assert [c.name for c in calls] == ["system_health", "web_search"]


def test_content_json_is_no_call_when_no_tools_were_offered_and_is_not_shown():
    content = '{"name": "system_health", "arguments": {}}'
    reply = reply_from_message({"content": content}, None)
    assert reply.tool_calls == () and reply.content == ""


def test_json_objects_ignore_prose_and_brackets():
    assert json_objects('see [1] and {not json} then {"a": 1}') == [{"a": 1}]


def test_history_goes_out_with_string_content_and_json_arguments():
    sent = wire_messages(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"function": {"name": "web_search", "arguments": {"query": "q"}}}],
            },
            {"role": "assistant", "content": None},
        ]
    )
    assert sent[0]["content"] == "" and sent[1]["content"] == ""
    assert sent[0]["tool_calls"][0] == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "web_search", "arguments": '{"query": "q"}'},
    }
    assert "tool_calls" not in sent[1]


def test_stream_accumulator_joins_content_and_tool_call_deltas():
    acc = StreamAccumulator()
    chunks = [
        {"choices": [{"delta": {"role": "assistant", "content": None}}]},
        {"choices": [{"delta": {"content": "Hi"}}]},
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "function": {"name": "web_", "arguments": '{"qu'},
                            }
                        ]
                    }
                }
            ]
        },
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "function": {"name": "search", "arguments": 'ery": "x"}'}}
                        ]
                    }
                }
            ]
        },
        {"choices": []},
    ]
    assert [acc.add(c) for c in chunks] == ["", "Hi", "", "", ""]
    (call,) = reply_from_message(acc.message(), TOOLS).tool_calls
    assert (call.id, call.name, call.arguments) == ("c1", "web_search", {"query": "x"})


def test_every_system_message_is_folded_into_one_at_the_start():
    messages = [
        {"role": "system", "content": "You are Sovereign."},
        {"role": "user", "content": "Two things?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        {"role": "system", "content": "Decide now only for the next part."},
    ]
    assert system_first(messages) == [
        {"role": "system", "content": "You are Sovereign.\n\nDecide now only for the next part."},
        *messages[1:4],
    ]
    plain = messages[:2]
    assert system_first(plain) == plain and system_first(plain) is not plain
    late = [{"role": "user", "content": "hi"}, {"role": "system", "content": "note"}]
    assert system_first(late) == [{"role": "system", "content": "note"}, late[0]]
