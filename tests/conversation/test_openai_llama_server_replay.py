"""The openai backend against what llama-server build 11312 sent it, replayed.

The fixtures ``llama-server-b11312_*`` were recorded by
``tests/fixtures/llm/record_llama_server.py`` from the llama-server that
``scripts/setup-llama-server`` builds (the verified Qwen2.5-Coder-1.5B, greedy,
``--jinja``): the backend's own probe and requests, a stream of tool-call deltas,
and the requests it refuses. Each test replays one recorded answer to the request
the backend makes now, so a change to either side shows here; the live tests
(``test_openai_llama_server_live.py``) run the server itself.
"""

from __future__ import annotations

import pytest

from sovereign.conversation.backends.base import ContextTooLong, ModelRejected
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures

from .replay_server import ReplayServer, captured, fixture, start

PREFIX = "llama-server-b11312_qwen2.5-coder-1.5b_"
TEXT_CALLS = ServerFeatures(response_format="json_schema", streams=True, tool_calls="text")
"""What the probe found this server and model to do (see the first test)."""
STRUCTURED = ServerFeatures(response_format="json_schema", streams=True, tool_calls="structured")
OUR_REFUSAL = "the model server refused the request (HTTP {status}); the service log has its reply"


def recorded(name: str) -> dict:
    return fixture(f"{PREFIX}{name}.json")


def replay(name: str, key: str | None = None):
    return captured(f"{PREFIX}{name}.json", key)


def request_of(name: str) -> dict:
    """The request the recorder's backend sent, whose answer the fixture holds."""
    return recorded(name)["request"]


def asked(name: str) -> tuple[list[dict], list[dict] | None]:
    """What the recorder asked its backend: the conversation and the tools offered."""
    question = recorded(name)["asked"]
    return question["messages"], question["tools"]


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


def backend(server, mode: str, features: ServerFeatures | None = TEXT_CALLS) -> OpenAIBackend:
    return OpenAIBackend(
        server.base_url, mode=mode, max_tokens=96, temperature=0.0, features=features
    )


class Sink:
    def __init__(self) -> None:
        self.pieces: list[str] = []

    async def __call__(self, piece: str) -> None:
        self.pieces.append(piece)


async def test_the_recorded_probe_leads_auto_to_schema_decisions_read_strictly(server):
    probe = recorded("probe")
    answers = [key for key in probe if key not in ("server", "plan")]
    server.queue(*(replay("probe", key) for key in answers))
    model = backend(server, "auto", features=None)

    plan = await model.plan()

    assert server.requests == [probe[key]["request"] for key in answers]  # the same probe
    assert (plan.mode, plan.response_format, plan.history, plan.stream) == (
        "schema", "json_schema", "text", True
    )  # fmt: skip
    assert model.features.tool_calls == "text"
    assert "the call came back as text" in model.features.notes[-1]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("schema_health", ("system_health", {})),
        ("schema_search", ("web_search", {"query": "latest Raspberry Pi 5 firmware"})),
        ("native_health", ("system_health", {})),
        ("native_search", ("web_search", {"query": "latest Raspberry Pi 5 firmware"})),
    ],
)
async def test_recorded_decisions_and_text_calls_become_one_call(server, name, expected):
    messages, tools = asked(name)
    server.queue(replay(name))

    reply = await backend(server, name.split("_")[0]).complete(messages, tools=tools)

    assert server.requests == [request_of(name)]  # the request it answered, unchanged
    (call,) = reply.tool_calls
    assert (call.name, call.arguments, call.parse_error) == (*expected, None)
    assert reply.content == ""


@pytest.mark.parametrize("name", ["schema_control", "native_control"])
async def test_recorded_answers_without_a_tool_stay_answers(server, name):
    messages, tools = asked(name)
    server.queue(replay(name))
    reply = await backend(server, name.split("_")[0]).complete(messages, tools=tools)
    assert server.requests == [request_of(name)]
    assert reply.tool_calls == ()


async def test_a_streamed_native_round_never_shows_the_call_it_writes(server):
    messages, tools = asked("native_stream_search")
    server.queue(replay("native_stream_search"))
    sink = Sink()

    reply = await backend(server, "native").complete(messages, tools=tools, on_token=sink)

    assert sink.pieces == [] and not reply.streamed
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("web_search", {"query": "latest Raspberry Pi 5 firmware"})
    ]
    assert server.requests == [request_of("native_stream_search")]


async def test_even_a_required_call_streams_as_text_that_is_read_and_never_shown(server):
    # With tool_choice "required", this build still lets the model write its call as
    # fenced JSON in content deltas (no tool_calls deltas at all): what a backend that
    # trusted "structured" would have to cope with.
    events = recorded("stream_required_search")["events"]
    deltas = [e["choices"][0]["delta"] for e in events if isinstance(e, dict)]
    assert not any("tool_calls" in d for d in deltas)
    request = request_of("stream_required_search")
    server.queue(replay("stream_required_search"))
    sink = Sink()

    reply = await backend(server, "native", STRUCTURED).complete(
        request["messages"], tools=request["tools"], on_token=sink
    )

    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("web_search", {"query": "latest Raspberry Pi 5 firmware"})
    ]
    assert sink.pieces == [] and not reply.streamed


@pytest.mark.parametrize("name", ["stream_answer", "followup_answer"])
async def test_recorded_answers_reach_the_sink_piece_by_piece(server, name):
    events = recorded(name)["events"]
    expected = "".join(
        e["choices"][0]["delta"].get("content") or "" for e in events if isinstance(e, dict)
    )
    messages, _ = asked(name)
    server.queue(replay(name))
    sink = Sink()

    reply = await backend(server, "schema").complete(messages, tools=None, on_token=sink)

    assert server.requests == [request_of(name)]
    assert "".join(sink.pieces) == reply.content == expected
    assert len(sink.pieces) > 3 and events[-1] == "[DONE]"


@pytest.mark.parametrize("key", ["context_overflow", "context_overflow_stream"])
async def test_a_recorded_context_overflow_is_too_long_in_our_words(server, key):
    error = recorded("errors")[key]
    server.queue(replay("errors", key))
    sink = Sink() if key.endswith("stream") else None

    with pytest.raises(ContextTooLong) as caught:
        await backend(server, "schema").complete(
            [{"role": "user", "content": "hello"}], tools=None, on_token=sink
        )

    assert error["status"] == 400 and "context size" in error["response"]["error"]["message"]
    assert str(caught.value) == (
        "the model server found the conversation too long (HTTP 400)"
    )


@pytest.mark.parametrize(
    "key", ["invalid_json_body", "missing_messages", "unknown_path", "tools_without_jinja"]
)
async def test_recorded_refusals_are_rejections_in_our_words(server, key):
    error = recorded("errors")[key]
    server.queue(replay("errors", key))

    with pytest.raises(ModelRejected) as caught:
        await backend(server, "native").complete([{"role": "user", "content": "hi"}], tools=None)

    assert not isinstance(caught.value, ContextTooLong)
    assert str(caught.value) == OUR_REFUSAL.format(status=error["status"])


def test_the_fixtures_name_the_build_they_came_from():
    for name in ("probe", "schema_health", "errors", "identity"):
        assert recorded(name)["server"] == "llama-server b11312"
    assert recorded("identity")["props"]["build_info"].startswith("b11312-")
