"""Answers stream from an OpenAI-compatible server as they are written, calls never do.

The replay server can hold a stream after its first events until the client shows
it received them, so "the first token arrives before the answer ends" is checked
as an order of events, not a timing.
"""

from __future__ import annotations

import pytest

from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.conversation.backends.openai.wire import ProseGate

from .conftest import ON
from .replay_server import Canned, ReplayServer, chunks, completion, start

ASK = [{"role": "user", "content": "What is the capital of France?"}]
TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
    for n in ("system_health", "web_search")
]
STREAMS = ServerFeatures(response_format="json_schema", streams=True, tool_calls="structured")
TEXT_CALLS = ServerFeatures(response_format=None, streams=True, tool_calls="text")


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


def backend(server, features=STREAMS, mode="native") -> OpenAIBackend:
    return OpenAIBackend(server.base_url, "local", mode=mode, features=features)


class Sink:
    """Collects pieces; releases a held stream at the first one."""

    def __init__(self, held: Canned | None = None) -> None:
        self.pieces: list[str] = []
        self.held = held

    async def __call__(self, piece: str) -> None:
        self.pieces.append(piece)
        if self.held is not None:
            self.held.release.set()


@pytest.mark.parametrize("mode", ["native", "schema"])
async def test_the_first_piece_reaches_the_sink_while_the_server_is_still_writing(server, mode):
    held = chunks("Paris", " is", " the", " capital.", hold_after=2)
    server.queue(held)
    sink = Sink(held)

    reply = await backend(server, mode=mode).complete(ASK, tools=None, on_token=sink)

    assert held.released_in_time is True  # the server waited for our first piece
    assert sink.pieces == ["Paris", " is", " the", " capital."]
    assert reply.content == "Paris is the capital." and server.requests[0]["stream"] is True


async def test_a_native_round_streams_its_prose_answer_and_says_so(server):
    held = chunks("Paris", " it is.", hold_after=2)
    server.queue(held)
    sink = Sink(held)

    reply = await backend(server).complete(ASK, tools=TOOLS, on_token=sink)

    assert held.released_in_time is True
    assert reply.streamed and reply.tool_calls == () and reply.content == "Paris it is."
    assert server.requests[0]["tools"] and server.requests[0]["stream"] is True


@pytest.mark.parametrize(
    "pieces",
    [
        ["```json\n", '{"name": "system_health", ', '"arguments": {}}\n```'],
        ["\n\n", '{"name": "system_health", "arguments": {}}'],
        ["<tool_call>", '{"name": "system_health", "arguments": {}}', "</tool_call>"],
        ["[", '{"name": "system_health", "arguments": {}}]'],
    ],
)
async def test_a_call_written_as_text_is_never_streamed(server, pieces):
    server.queue(chunks(*pieces))
    sink = Sink()
    reply = await backend(server, TEXT_CALLS).complete(ASK, tools=TOOLS, on_token=sink)
    assert sink.pieces == []
    assert [c.name for c in reply.tool_calls] == ["system_health"] and not reply.streamed


async def test_text_that_only_looks_like_a_call_at_first_is_shown_at_the_end(server):
    server.queue(chunks("{", "Paris} is a brace-wrapped word."))
    sink = Sink()
    reply = await backend(server, TEXT_CALLS).complete(ASK, tools=TOOLS, on_token=sink)
    assert sink.pieces == [] and not reply.streamed  # held back, so the turn loop shows it
    assert reply.content == "{Paris} is a brace-wrapped word." and reply.tool_calls == ()


async def test_structured_call_deltas_stream_nothing(server):
    call = {"index": 0, "id": "c1", "function": {"name": "system_health", "arguments": "{}"}}
    events = [
        {"choices": [{"delta": {"role": "assistant", "content": None}}]},
        {"choices": [{"delta": {"tool_calls": [call]}}]},
        "[DONE]",
    ]
    server.queue(Canned(events=events))
    sink = Sink()
    reply = await backend(server).complete(ASK, tools=TOOLS, on_token=sink)
    assert sink.pieces == [] and [c.name for c in reply.tool_calls] == ["system_health"]


async def test_a_server_that_answers_a_stream_request_with_one_body_still_answers(server):
    server.queue(completion("Paris."))
    sink = Sink()
    reply = await backend(server).complete(ASK, tools=TOOLS, on_token=sink)
    assert sink.pieces == ["Paris."] and reply.content == "Paris." and reply.streamed


async def test_a_server_that_does_not_stream_is_never_asked_to(server):
    server.queue(completion("Paris."))
    quiet = ServerFeatures(response_format=None, streams=False, tool_calls="text")
    sink = Sink()
    reply = await backend(server, quiet).complete(ASK, tools=None, on_token=sink)
    assert "stream" not in server.requests[0] and reply.content == "Paris."


async def test_the_turn_loop_does_not_repeat_a_streamed_native_answer(server, world):
    server.queue(chunks("Paris", " it is."))
    loop = TurnLoop(world.executor, backend(server), pending=world.pending)
    sink = Sink()

    result = await loop.process_turn(ASK, policy=ON, owner="s1", on_token=sink)

    assert "".join(sink.pieces) == result.text == "Paris it is."
    assert len(server.requests) == 1


async def test_a_held_back_native_answer_reaches_the_sink_once_at_the_end(server, world):
    server.queue(chunks("{Paris}", " is the answer."))
    loop = TurnLoop(world.executor, backend(server, TEXT_CALLS), pending=world.pending)
    sink = Sink()
    result = await loop.process_turn(ASK, policy=ON, owner="s1", on_token=sink)
    assert sink.pieces == ["{Paris} is the answer."] and result.text == "{Paris} is the answer."


async def test_a_schema_decision_is_never_streamed(server):
    server.queue(completion('{"action": "answer"}'))
    sink = Sink()
    reply = await backend(server, mode="schema").complete(ASK, tools=TOOLS, on_token=sink)
    assert sink.pieces == [] and "stream" not in server.requests[0]
    assert reply.content == "" and reply.tool_calls == ()


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (["  ", "\n", "Hello"], ["  \nHello"]),
        (["Hello", " there"], ["Hello", " there"]),
        (["  ", "{", "x"], []),
        (["`", "``"], []),
    ],
)
async def test_the_prose_gate_decides_at_the_first_visible_character(pieces, expected):
    sink = Sink()
    gate = ProseGate(sink, hold=True)
    for piece in pieces:
        await gate.feed(piece)
    assert sink.pieces == expected and gate.streamed is bool(expected)


async def test_a_prose_gate_closes_when_a_structured_call_starts_first():
    sink = Sink()
    gate = ProseGate(sink, hold=True)
    await gate.feed("", calls_started=True)
    await gate.feed("Paris")
    assert sink.pieces == [] and not gate.streamed
