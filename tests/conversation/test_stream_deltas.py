"""Streamed tool calls are assembled the same whatever the server's style: a name sent in
every delta, in parts or once, ids inside ``function`` or on the call, whole calls at one
index or at none (``tests/fixtures/streams``, written from each server's documented
behaviour, and the captures of ``tests/fixtures/llm``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.deltas import StreamAccumulator
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.conversation.backends.openai.wire import reply_from_message
from tests.fixtures import LLM, STREAMS

from .replay_server import Canned, ReplayServer, start

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
    for n in ("web_search", "system_health")
]
ASK = [{"role": "user", "content": "search the web for the latest Raspberry Pi 5 firmware"}]
STYLES = sorted(path.name for path in STREAMS.glob("*.json"))
STRUCTURED = ServerFeatures(response_format="json_schema", streams=True, tool_calls="structured")


def style(name: str) -> dict[str, Any]:
    return json.loads((STREAMS / name).read_text())


def chunk_events(events: list[Any]) -> list[dict[str, Any]]:
    return [event for event in events if isinstance(event, dict)]


def assembled(events: list[Any]) -> tuple[list[list[Any]], bool]:
    accumulator = StreamAccumulator()
    for event in chunk_events(events):
        accumulator.add(event)
    reply = reply_from_message(
        accumulator.message(), TOOLS, cut_off=accumulator.cut_off
    )
    return [[c.name, c.arguments] for c in reply.tool_calls], reply.cut_off


@pytest.fixture(scope="module")
def _running():
    state = ReplayServer()
    httpd = start(state)
    yield state
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def server(_running):
    _running.replies.clear()
    _running.requests.clear()
    return _running


def test_there_are_at_least_three_server_styles():
    servers = {style(name)["server"].split(",")[0].split(" (")[0] for name in STYLES}
    assert len(servers) >= 3 and len(STYLES) >= 8


@pytest.mark.parametrize("name", STYLES)
def test_every_style_assembles_the_calls_the_server_meant(name):
    fixture = style(name)
    calls, cut_off = assembled(fixture["events"])
    assert calls == fixture["expected_calls"]
    assert cut_off is False


@pytest.mark.parametrize("name", STYLES)
async def test_every_style_through_a_server_proposes_the_calls_and_shows_nothing(server, name):
    fixture = style(name)
    server.queue(Canned(events=fixture["events"]))
    shown: list[str] = []

    async def sink(piece: str) -> None:
        shown.append(piece)

    backend = OpenAIBackend(server.base_url, "local", mode="native", features=STRUCTURED)
    reply = await backend.complete(ASK, tools=TOOLS, on_token=sink)
    assert [[c.name, c.arguments] for c in reply.tool_calls] == fixture["expected_calls"]
    assert shown == [] and not reply.cut_off and server.requests[0]["stream"] is True


@pytest.mark.parametrize("name", STYLES)
def test_a_repeated_or_fragmented_name_never_doubles(name):
    calls, _ = assembled(style(name)["events"])
    assert all(n in ("web_search", "system_health") for n, _ in calls)


def test_ids_and_types_are_set_once_not_appended():
    accumulator = StreamAccumulator()
    for event in chunk_events(style("nvidia-nim-minimax_repeated_name.json")["events"]):
        accumulator.add(event)
    (call,) = accumulator.message()["tool_calls"]
    assert call["id"] == "call_0_f3e1a2b4" and call["type"] == "function"


def test_an_id_sent_inside_function_is_the_calls_id():
    accumulator = StreamAccumulator()
    for event in chunk_events(style("llama-server-b5478_repeated_name.json")["events"]):
        accumulator.add(event)
    (call,) = accumulator.message()["tool_calls"]
    assert call["id"] == "Xy7r2Wq9LmN4vB1cT8sK0dPfG3hJ6aZe"


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (["web_search", "web_search", "web_search"], "web_search"),  # repeated whole
        (["web_", "search"], "web_search"),  # in parts
        (["web_", "web_search"], "web_search"),  # growing: each piece the name so far
        (["web_search", ""], "web_search"),  # empty later (LM Studio)
        (["", "web_search"], "web_search"),  # empty first
        (["search_", "search"], "search_search"),  # a part that repeats the start
    ],
)
def test_name_pieces_merge_into_one_name(pieces, expected):
    accumulator = StreamAccumulator()
    for piece in pieces:
        part = {"index": 0, "function": {"name": piece, "arguments": ""}}
        accumulator.add({"choices": [{"delta": {"tool_calls": [part]}}]})
    assert accumulator.message()["tool_calls"][0]["function"]["name"] == expected


def test_arguments_sent_as_an_object_are_kept():
    part = {"index": 0, "id": "c", "function": {"name": "web_search", "arguments": {"query": "q"}}}
    calls, _ = assembled([{"choices": [{"delta": {"tool_calls": [part]},
                                        "finish_reason": "tool_calls"}]}])  # fmt: skip
    assert calls == [["web_search", {"query": "q"}]]


@pytest.mark.parametrize(
    "junk",
    [
        {"choices": []},  # a usage-only chunk (stream_options.include_usage)
        {"choices": None},
        {"choices": [{"delta": None}]},
        {"choices": [{"delta": {"tool_calls": None}}]},
        {"choices": [{"delta": {"tool_calls": ["x", 3, None]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": "web_search"}]}}]},
        {"choices": [{"delta": {"content": ["not", "text"]}}]},
    ],
)
def test_malformed_chunks_add_nothing_and_break_nothing(junk):
    accumulator = StreamAccumulator()
    assert accumulator.add(junk) == ""
    assert accumulator.message()["content"] == ""


def test_the_captured_llama_cpp_python_stream_is_whole():
    captured = LLM / "llama-cpp-python-server_chatml-fc_stream_tool_call.json"
    events = json.loads(captured.read_text())
    accumulator = StreamAccumulator()
    for event in chunk_events(events["events"]):
        accumulator.add(event)
    assert not accumulator.cut_off and accumulator.finish_reason == "stop"
