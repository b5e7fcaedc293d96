"""A reply the model did not finish is said to be cut off, wherever it was cut: a stream
without its terminal event (cut after any event, at any byte, closed cleanly or broken),
``finish_reason: "length"``, an embedded generation that hit its token limit. No call the
model did not finish runs, and none of the checks of a whole answer runs on a cut answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.base import ModelReply, ToolCall
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend, Sampling
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.voice.sentences import OWN_SENTENCES
from tests.fixtures import LLM, STREAMS
from tests.spoken import deciding

from .conftest import ON
from .replay_server import Canned, ReplayServer, chunks, completion, sse_bytes, start
from .token_model import FakeModel

CUT_OFF = OWN_SENTENCES["cut_off"]
ASK = [{"role": "user", "content": "search the web for the latest Raspberry Pi 5 firmware"}]
TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
    for n in ("web_search", "system_health")
]
STREAMS_ON = ServerFeatures(response_format="json_schema", streams=True, tool_calls="structured")
PROSE = json.loads((LLM / "llama-cpp-python-server_chatml-fc_stream_tool_call.json").read_text())
"""A captured llama-cpp-python server stream of prose, its terminal event and [DONE]."""
TOOL_STREAM = json.loads((STREAMS / "llama-server-b5500_tool_call.json").read_text())


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


def backend(server, mode: str = "native", features: ServerFeatures = STREAMS_ON) -> OpenAIBackend:
    return OpenAIBackend(server.base_url, "local", mode=mode, features=features)


def content_of(events: list[Any]) -> str:
    pieces = [e["choices"][0]["delta"].get("content") for e in events if isinstance(e, dict)]
    return "".join(p for p in pieces if isinstance(p, str))


def terminal_at(events: list[Any]) -> int:
    return next(n for n, e in enumerate(events) if isinstance(e, dict)
                and e["choices"][0].get("finish_reason"))  # fmt: skip


class Sink:
    def __init__(self) -> None:
        self.pieces: list[str] = []

    async def __call__(self, piece: str) -> None:
        self.pieces.append(piece)


# --- where the stream ends ----------------------------------------------------------------


async def test_a_prose_stream_cut_after_any_event_is_cut_off_and_keeps_what_came(server):
    events = PROSE["events"]
    for cut in range(terminal_at(events)):  # every prefix without its terminal event
        server.queue(Canned(events=events[:cut]))
        sink = Sink()
        reply = await backend(server).complete(ASK, tools=None, on_token=sink)
        assert reply.cut_off, cut
        assert reply.content == content_of(events[:cut]) == "".join(sink.pieces), cut


async def test_a_whole_prose_stream_is_not_cut_off_with_or_without_done(server):
    events = PROSE["events"]
    end = terminal_at(events) + 1
    for served in (events, events[:end]):
        server.queue(Canned(events=served))
        reply = await backend(server).complete(ASK, tools=None, on_token=Sink())
        assert not reply.cut_off and reply.content == content_of(events)


async def test_done_without_a_finish_reason_is_no_terminal_event(server):
    server.queue(chunks("Paris", " is", finish=None))
    reply = await backend(server).complete(ASK, tools=None, on_token=Sink())
    assert reply.cut_off and reply.content == "Paris is"


@pytest.mark.parametrize("reason", ["length", "max_tokens", "content_filter", "abort", "LENGTH"])
async def test_a_finish_reason_that_stops_early_is_cut_off(server, reason):
    server.queue(chunks("Paris", " is", finish=reason))
    reply = await backend(server).complete(ASK, tools=None, on_token=Sink())
    assert reply.cut_off


@pytest.mark.parametrize("reason", ["stop", "tool_calls", "eos_token", "stop_sequence"])
async def test_a_finish_reason_that_ends_the_answer_is_whole(server, reason):
    server.queue(chunks("Paris", " is", finish=reason))
    reply = await backend(server).complete(ASK, tools=None, on_token=Sink())
    assert not reply.cut_off


async def test_a_tool_call_stream_cut_after_any_event_proposes_only_a_finished_call(server):
    events = TOOL_STREAM["events"]
    end = terminal_at(events)  # the last argument piece is the event before it
    for cut in range(end + 1):
        server.queue(Canned(events=events[:cut]))
        reply = await backend(server).complete(ASK, tools=TOOLS, on_token=Sink())
        assert reply.cut_off, cut
        assert [c.name for c in reply.tool_calls] == (["web_search"] if cut == end else []), cut


@pytest.mark.parametrize("chunked", [False, True], ids=["closed", "broken"])
async def test_a_stream_cut_at_any_byte_never_fails_and_is_cut_off_until_its_end(server, chunked):
    events = chunks("Paris", " is the", " capital.").events
    assert events is not None
    body = sse_bytes(events)
    whole = len(sse_bytes(events[: terminal_at(events) + 1]))  # the terminal event's last byte
    for cut in range(len(body) + 1):
        server.queue(Canned(events=events, cut_at_byte=cut, chunked=chunked))
        sink = Sink()
        reply = await backend(server).complete(ASK, tools=None, on_token=sink)
        assert reply.cut_off is (cut < whole), cut
        assert "Paris is the capital.".startswith(reply.content), cut
        assert "".join(sink.pieces) == reply.content, cut


async def test_a_whole_body_with_finish_reason_length_is_cut_off(server):
    quiet = ServerFeatures(response_format=None, streams=False, tool_calls="structured")
    body = completion("Paris is").body
    body["choices"][0]["finish_reason"] = "length"
    server.queue(Canned(body=body))
    reply = await backend(server, features=quiet).complete(ASK, tools=None)
    assert reply.cut_off and reply.content == "Paris is"


async def test_a_whole_body_without_a_finish_reason_is_whole(server):
    quiet = ServerFeatures(response_format=None, streams=False, tool_calls="structured")
    server.queue(completion("Paris."))
    reply = await backend(server, features=quiet).complete(ASK, tools=None)
    assert not reply.cut_off


async def test_a_decision_cut_before_its_json_closed_is_no_decision_and_no_error(server):
    body = completion('{"action": "web_search", "arguments": {"query": "latest Ra').body
    body["choices"][0]["finish_reason"] = "length"
    server.queue(Canned(body=body))
    reply = await backend(server, mode="schema").complete(ASK, tools=TOOLS)
    assert reply == ModelReply(cut_off=True)


async def test_a_whole_decision_padded_to_the_limit_still_counts(server):
    body = completion('{"action": "system_health", "arguments": {}}' + " " * 40).body
    body["choices"][0]["finish_reason"] = "length"
    server.queue(Canned(body=body))
    reply = await backend(server, mode="schema").complete(ASK, tools=TOOLS)
    assert reply.tool_calls == (ToolCall("call_0", "system_health", {}),)


# --- the embedded backend -------------------------------------------------------------------


def embedded(fake: FakeModel, **sampling: Any) -> EmbeddedBackend:
    return EmbeddedBackend(loader=lambda _load: fake, sampling=Sampling(**sampling))


async def test_an_embedded_answer_that_reaches_its_token_limit_is_cut_off():
    pieces = ["The", " firmware", " was", " updated", " in", " November"]
    sink = Sink()
    reply = await embedded(FakeModel(pieces=pieces), answer_max_tokens=3).complete(
        ASK, tools=None, on_token=sink
    )
    assert reply.cut_off and reply.content == "The firmware was" == "".join(sink.pieces)


async def test_an_embedded_answer_that_ends_before_its_limit_is_whole():
    reply = await embedded(FakeModel(pieces=["Yes", "."]), answer_max_tokens=3).complete(
        ASK, tools=None
    )
    assert not reply.cut_off and reply.content == "Yes."


async def test_an_embedded_decision_cut_before_its_json_closed_is_no_decision():
    fake = FakeModel(replies=['{"action": "web_search", "arguments": {"query": "latest'])
    reply = await embedded(fake, decision_max_tokens=20).complete(ASK, tools=TOOLS)
    assert reply == ModelReply(cut_off=True)


@pytest.mark.parametrize(("finish", "cut"), [("stop", False), ("length", True), (None, True)])
async def test_an_embedded_native_answer_is_cut_off_by_its_finish_reason(finish, cut):
    fake = FakeModel(pieces=["Pa", "ris"], finish=finish)
    reply = await EmbeddedBackend(loader=lambda _load: fake, mode="native").complete(
        ASK, tools=None
    )
    assert reply.cut_off is cut and reply.content == "Paris"


# --- what the household is told -------------------------------------------------------------


async def test_the_turn_says_a_streamed_answer_was_cut_off_after_what_streamed(server, world):
    server.queue(chunks("Paris", " is the", finish=None))
    loop = TurnLoop(world.executor, backend(server), pending=world.pending)
    sink = Sink()
    result = await loop.process_turn(ASK, policy=ON, owner="s1", on_token=sink)
    assert result.text == f"Paris is the\n\n{CUT_OFF}"
    assert "".join(sink.pieces).strip() == result.text
    assert len(server.requests) == 1  # never asked again


def cut_after_a_search(figure: str) -> Any:
    """A model that searches, then writes an answer that stops at its token limit."""

    def script(messages: list[dict[str, Any]], tools: Any) -> Any:
        if deciding(messages) and tools:
            return propose("web_search", {"query": "pi firmware"})
        return ModelReply(content=f"The update came out on {figure} and it", cut_off=True)

    return script


async def test_a_cut_reply_after_a_search_keeps_its_receipt_and_is_not_asked_again(world):
    # After a search the answer is what the model quotes; a cut-off reply quoted nothing,
    # so the answer lists what was found, and none of the cut prose is shown.
    loop, model = world.loop(cut_after_a_search("14 March 2031"))
    first = await loop.process_turn(ASK, policy=ON, owner="s1")
    token = first.pending_confirmation.token
    result = await loop.resume_turn(token, True, policy=ON, owner="s1")
    assert "2031" not in result.text and "Pi 5 firmware notes" in result.text
    assert [r.outcome for r in result.receipts] == ["executed"]
    assert result.citations
    assert len(model.requests) == 2  # the decision and the cut reply: no retry


async def test_a_cut_answer_after_a_household_read_says_what_came_and_that_it_was_cut(tmp_path):
    from .one_capability import loop_over, registry_with

    script = [
        propose("device_status"),
        ModelReply(content="The device is fine and", cut_off=True),
    ]
    loop, model = loop_over(script, tmp_path, registry_with("device.status", {"ok": True}))
    result = await loop.process_turn(ASK, policy=ON, owner="s1")
    assert result.text == f"The device is fine and\n\n{CUT_OFF}"
    assert len(model.requests) == 2


async def test_an_empty_cut_reply_is_said_to_be_cut_off_not_asked_again(world):
    loop, model = world.loop([ModelReply(cut_off=True)])
    result = await loop.process_turn(ASK, policy=ON, owner="s1")
    assert result.text == CUT_OFF and len(model.requests) == 1
