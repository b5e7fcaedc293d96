"""Half an emoji from a model or a person never breaks a turn: what a model server sends
(a reply, a stream piece, call arguments, a decision) and what a person writes (the
question, history) is made valid where it enters a backend."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend
from sovereign.conversation.backends.jsontext import parse_arguments, sole_json_objects
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures

from .conftest import ON
from .replay_server import Canned, ReplayServer, completion, start
from .token_model import FakeModel

HALF = "\\ud83d"
"""A lone high surrogate as a JSON escape (what a server, or JSON.stringify, writes)."""
TOOLS = [
    {"type": "function", "function": {"name": "web_search", "parameters": {"type": "object"}}}
]
STREAMS = ServerFeatures(response_format="json_schema", streams=True, tool_calls="structured")
QUIET = ServerFeatures(response_format="json_schema", streams=False, tool_calls="structured")


def encodes(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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


def raw_reply(content_json: str) -> Canned:
    """A reply whose message content is the JSON text ``content_json`` (escapes kept)."""
    body = f'{{"choices": [{{"message": {{"role": "assistant", "content": {content_json}}}}}]}}'
    return Canned(raw=body)


async def test_a_reply_with_half_an_emoji_reads_as_a_replacement_character(server):
    server.queue(raw_reply(f'"Half {HALF} an emoji"'))
    reply = await OpenAIBackend(server.base_url, features=QUIET).complete(
        [{"role": "user", "content": "hi"}], tools=None
    )
    assert reply.content == "Half \ufffd an emoji"


async def test_a_stream_piece_with_half_an_emoji_reaches_the_sink_valid(server):
    events = [
        {"choices": [{"delta": {"content": "Half "}}]},
        "__RAW__",
        {"choices": [{"delta": {}, "finish_reason": "stop"}]},
        "[DONE]",
    ]
    raw = f'{{"choices": [{{"delta": {{"content": "{HALF} an emoji"}}}}]}}'
    server.queue(Canned(events=[raw if e == "__RAW__" else e for e in events]))
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    reply = await OpenAIBackend(server.base_url, features=STREAMS).complete(
        [{"role": "user", "content": "hi"}], tools=None, on_token=sink
    )
    assert "".join(pieces) == reply.content == "Half \ufffd an emoji"
    assert all(encodes(piece) for piece in pieces)


async def test_call_arguments_with_half_an_emoji_are_valid(server):
    arguments = json.dumps(f'{{"query": "pi {HALF} firmware"}}')[1:-1]
    call = {"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": "@"}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    body = json.dumps({"choices": [{"message": message}]}).replace('"@"', f'"{arguments}"')
    server.queue(Canned(raw=body))
    reply = await OpenAIBackend(server.base_url, features=QUIET, mode="native").complete(
        [{"role": "user", "content": "hi"}], tools=TOOLS
    )
    (call,) = reply.tool_calls
    assert call.arguments == {"query": "pi \ufffd firmware"}


async def test_a_decision_with_half_an_emoji_is_valid(server):
    decision = json.dumps(f'{{"action": "web_search", "arguments": {{"query": "x{HALF}"}}}}')
    server.queue(raw_reply(decision))
    reply = await OpenAIBackend(server.base_url, features=QUIET, mode="schema").complete(
        [{"role": "user", "content": "hi"}], tools=TOOLS
    )
    assert reply.tool_calls[0].arguments == {"query": "x\ufffd"}


@pytest.mark.parametrize("half", ["\ud83d", "\udcff", "\ude00"])
async def test_a_question_and_history_with_half_an_emoji_go_out_valid(server, half):
    server.queue(completion("ok"))
    messages = [
        {"role": "user", "content": f"earlier {half}"},
        {"role": "assistant", "content": f"said {half}"},
        {"role": "user", "content": f"now {half}"},
    ]
    await OpenAIBackend(server.base_url, features=QUIET).complete(messages, tools=None)
    sent = server.requests[0]["messages"]
    assert [m["content"] for m in sent[-3:]] == ["earlier \ufffd", "said \ufffd", "now \ufffd"]


async def test_the_embedded_model_is_given_valid_text_only():
    model = FakeModel(pieces=["ok"])
    backend = EmbeddedBackend(loader=lambda _load: model)
    reply = await backend.complete([{"role": "user", "content": "half \ud83d"}], tools=None)
    assert reply.content == "ok"
    assert all(encodes(prompt["text"]) for prompt in model.prompts)


def test_json_read_from_model_text_is_valid():
    assert parse_arguments(f'{{"q": "a{HALF}b"}}') == ({"q": "a\ufffdb"}, None)
    assert sole_json_objects(f'{{"name": "x{HALF}", "arguments": {{}}}}') == [
        {"name": "x\ufffd", "arguments": {}}
    ]


async def test_a_whole_turn_with_half_an_emoji_in_and_out_answers_valid(server, world):
    server.queue(raw_reply(f'"Here {HALF} is the answer"'))
    backend = OpenAIBackend(server.base_url, features=QUIET)
    loop = TurnLoop(world.executor, backend, pending=world.pending)
    result = await loop.process_turn(
        [{"role": "user", "content": "question \ud83d"}], policy=ON, owner="s1"
    )
    assert result.text == "Here \ufffd is the answer" and encodes(result.to_wire())
    assert server.requests[0]["messages"][-1]["content"] == "question \ufffd"
