"""The OpenAI-compatible backend against captured llama-server / llama-cpp-python replies.

What the server can do is pinned per test (``features=``), so each canned reply
answers exactly one request; probing itself is tested in ``test_openai_probe.py``.
"""

from __future__ import annotations

import json
import socket

import pytest

from sovereign.conversation import ModelUnavailable, TurnFailed, TurnLoop
from sovereign.conversation.backends.base import ModelError, ModelRejected
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.conversation.voice.sentences import OWN_SENTENCES

from .conftest import ON
from .replay_server import Canned, ReplayServer, captured, fixture, start

OUR_REFUSAL = "the model server refused the request (HTTP {status}); the service log has its reply"
TOOLS = fixture("llama-server_qwen2.5-coder-1.5b_health.json")["request"]["tools"]
ASK = [{"role": "user", "content": "how hot is my device?"}]


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


LLAMA_SERVER = ServerFeatures(response_format="json_schema", streams=True, tool_calls="structured")
"""llama-server with a model whose calls its parser reads."""

NO_ANSWER = OWN_SENTENCES["no_answer"]


def backend(server, *, features=LLAMA_SERVER, mode="native", **options) -> OpenAIBackend:
    return OpenAIBackend(server.base_url, "local", mode=mode, features=features, **options)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("llama-server_qwen2.5-coder-1.5b_health.json", ("system_health", {})),
        (
            "llama-server_qwen2.5-coder-1.5b_search.json",
            ("web_search", {"query": "latest Raspberry Pi 5 firmware"}),
        ),
        (
            "llama-server_qwen2.5-coder-1.5b_curl_search_raw.json",
            ("web_search", {"query": "latest Raspberry Pi 5 firmware"}),
        ),
        (
            "llama-server_qwen2.5-coder-1.5b_tool_calls_via_prefill.json",
            ("web_search", {"query": "Raspberry Pi 5 firmware"}),
        ),
        (
            "llama-server_qwen2.5-coder-1.5b_tool_choice_required.json",
            ("web_search", {"query": "latest Raspberry Pi 5 firmware"}),
        ),
        (
            "llama-cpp-python-server_chatml-fc_search.json",
            ("web_search", {"query": "latest Raspberry Pi 5 firmware"}),
        ),
        ("llama-cpp-python-server_chatml-fc_health.json", ("system_health", {})),
    ],
)
async def test_captured_calls_normalise_to_one_tool_call(server, name, expected):
    server.queue(captured(name))
    reply = await backend(server).complete(ASK, tools=TOOLS)
    (call,) = reply.tool_calls
    assert (call.name, call.arguments, call.parse_error) == (*expected, None)
    assert call.id and reply.content == ""


@pytest.mark.parametrize(
    "name",
    [
        "llama-server_qwen2.5-coder-1.5b_control.json",
        "llama-server_qwen2.5-coder-1.5b_fewshot_control.json",
    ],
)
async def test_captured_prose_stays_prose(server, name):
    server.queue(captured(name))
    reply = await backend(server).complete(ASK, tools=TOOLS)
    assert (reply.content, reply.tool_calls) == ("Paris", ())


async def test_json_naming_an_undeclared_tool_is_not_a_call(server):
    server.queue(
        captured(
            "llama-server_qwen2.5-coder-1.5b_malformed_requests.json",
            "tool_choice_unknown_function",
        )
    )
    reply = await backend(server).complete(ASK, tools=TOOLS)
    assert reply.tool_calls == () and "hello" in reply.content


async def test_requests_carry_tools_and_never_null_content(server):
    server.queue(captured("llama-server_qwen2.5-coder-1.5b_control.json"))
    history = [
        *ASK,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "",
                    "type": "function",
                    "function": {"name": "system_health", "arguments": {}},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
    ]
    await backend(server).complete(history, tools=TOOLS)
    sent = server.requests[0]
    assert sent["tools"] == TOOLS and sent["tool_choice"] == "auto"
    assistant = sent["messages"][1]
    assert assistant["content"] == ""
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"
    assert assistant["tool_calls"][0]["id"]


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("llama-server_qwen2.5-coder-1.5b_malformed_requests.json", "history_bad_arguments"),
        ("llama-server_qwen2.5-coder-1.5b_malformed_requests.json", "tools_not_a_list"),
        ("llama-server_qwen2.5-coder-1.5b_malformed_requests.json", "missing_messages"),
        ("llama-cpp-python-server_chatml-fc_malformed_requests.json", "invalid_json_body"),
        ("llama-cpp-python-server_chatml-fc_malformed_requests.json", "bad_role"),
    ],
)
async def test_captured_server_errors_are_rejections_in_our_words(server, name, key):
    server.queue(captured(name, key))
    with pytest.raises(ModelRejected) as caught:
        await backend(server).complete(ASK, tools=TOOLS)
    status = fixture(name)[key]["status"]
    assert str(caught.value) == OUR_REFUSAL.format(status=status)  # nothing of the server's


async def test_a_refused_request_is_not_retried_by_the_turn_loop(server, world):
    server.queue(
        captured(
            "llama-server_qwen2.5-coder-1.5b_malformed_requests.json", "history_bad_arguments"
        ),
        captured("llama-server_qwen2.5-coder-1.5b_control.json"),
    )
    loop = TurnLoop(world.executor, backend(server), pending=world.pending)
    with pytest.raises(TurnFailed) as failed:
        await loop.process_turn(ASK, policy=ON, owner="s1")
    assert isinstance(failed.value.error, ModelRejected)
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [503, 429])
async def test_a_server_that_is_not_ready_is_unavailable(server, status):
    server.queue(Canned(status, {"error": {"code": status, "message": "Loading model"}}))
    with pytest.raises(ModelUnavailable, match=f"not ready \\(HTTP {status}\\)") as caught:
        await backend(server).complete(ASK, tools=TOOLS)
    assert "Loading" not in str(caught.value)


async def test_unreachable_server_is_unavailable():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ModelUnavailable, match="cannot be reached"):
        await OpenAIBackend(f"http://127.0.0.1:{port}/v1").complete(ASK, tools=TOOLS)


async def test_a_server_slower_than_the_deadline_is_unavailable(server):
    server.queue(
        Canned(
            body=fixture("llama-server_qwen2.5-coder-1.5b_control.json")["response"],
            delay_seconds=1.0,
        )
    )
    with pytest.raises(ModelUnavailable, match="in time"):
        await backend(server, timeout_seconds=0.2).complete(ASK, tools=TOOLS)


async def test_a_streamed_answer_that_is_a_call_written_as_text_shows_nothing(server):
    server.queue(captured("llama-server_qwen2.5-coder-1.5b_stream_tool_call.json"))
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    reply = await backend(server).complete(ASK, tools=None, on_token=sink)
    assert pieces == [] and reply.content == "" and not reply.cut_off


@pytest.mark.parametrize("name", ["llama-cpp-python-server_chatml-fc_stream_tool_call.json"])
async def test_streamed_answers_reach_the_sink_piece_by_piece(server, name):
    events = fixture(name)["events"]
    expected = "".join(
        (e["choices"][0]["delta"].get("content") or "") for e in events if isinstance(e, dict)
    )
    server.queue(captured(name))
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    reply = await backend(server).complete(ASK, tools=None, on_token=sink)

    assert server.requests[0]["stream"] is True and "tools" not in server.requests[0]
    assert "".join(pieces) == reply.content == expected
    assert len(pieces) > 5


async def test_an_error_inside_the_stream_is_a_model_error(server):
    server.queue(Canned(events=[{"error": {"message": "Failed to parse"}}]))

    async def sink(piece: str) -> None:
        pass

    with pytest.raises(ModelError, match="in the middle of its answer") as caught:
        await backend(server).complete(ASK, tools=None, on_token=sink)
    assert "Failed to parse" not in str(caught.value)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "llama-server_qwen2.5-coder-1.5b_schema_search.json",
            ("web_search", {"query": "latest Raspberry Pi 5 firmware"}),
        ),
        ("llama-server_qwen2.5-coder-1.5b_schema_health.json", ("system_health", {})),
        ("llama-cpp-python_qwen2.5-coder-1.5b_schema_health.json", ("system_health", {})),
        ("llama-server_qwen2.5-coder-1.5b_schema_control.json", None),
    ],
)
async def test_schema_mode_sends_the_decision_schema_and_reads_decisions(server, name, expected):
    server.queue(captured(name))
    reply = await backend(server, mode="schema").complete(ASK, tools=TOOLS)
    sent = server.requests[0]
    assert "tools" not in sent and "stream" not in sent
    assert sent["response_format"]["type"] == "json_schema"
    branches = sent["response_format"]["json_schema"]["schema"]["anyOf"]
    assert {b["properties"]["action"]["const"] for b in branches} == {
        "answer",
        "web_search",
        "system_health",
    }
    assert '{"action": "answer"}' in sent["messages"][0]["content"]
    if expected is None:
        assert reply.tool_calls == () and reply.content == ""
    else:
        (call,) = reply.tool_calls
        assert (call.name, call.arguments) == expected


async def test_a_whole_turn_over_http_runs_health_and_answers(server, world):
    followup = captured("llama-cpp-python_qwen2.5-coder-1.5b_followup_answer.json")
    server.queue(captured("llama-server_qwen2.5-coder-1.5b_health.json"), followup, followup)
    loop = TurnLoop(world.executor, backend(server), pending=world.pending)

    result = await loop.process_turn(ASK, policy=ON, owner="s1")

    # The captured answer says 25°C; the health result says 52.5 °C. Asked once more,
    # the model says 25°C again, so its prose is left out: the household reads that no
    # answer could be written, beside the result itself in the facts.
    assert "25" not in result.text and result.text == NO_ANSWER
    assert result.facts[0].result["cpu_temperature_celsius"] == 52.5
    assert len(server.requests) == 3
    assert world.calls.of("system.health") == [{}]
    second = server.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool"]
    assert second[2]["content"] == ""
    assert second[2]["tool_calls"][0]["function"] == {"name": "system_health", "arguments": "{}"}
    assert json.loads(second[3]["content"])["status"] == "executed"


async def test_a_schema_mode_search_over_http_halts_for_confirmation(server, world):
    server.queue(captured("llama-server_qwen2.5-coder-1.5b_schema_search.json"))
    loop = TurnLoop(world.executor, backend(server, mode="schema"), pending=world.pending)
    ask = [{"role": "user", "content": "search the web for the latest Raspberry Pi 5 firmware"}]

    result = await loop.process_turn(ask, policy=ON, owner="s1")

    assert result.pending_confirmation.capability == "web.search"
    assert result.pending_confirmation.arguments == {"query": "latest Raspberry Pi 5 firmware"}
    assert world.calls.log == []


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="auto, native, schema"):
        OpenAIBackend(mode="grammar")


async def test_a_schema_mode_turn_streams_its_final_answer_over_sse(server, world):
    stream = "llama-cpp-python-server_chatml-fc_stream_tool_call.json"
    server.queue(
        captured("llama-server_qwen2.5-coder-1.5b_schema_health.json"),
        captured("llama-server_qwen2.5-coder-1.5b_schema_control.json"),
        captured(stream),
    )
    loop = TurnLoop(world.executor, backend(server, mode="schema"), pending=world.pending)
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    # The captured answer names the "Raspberry Pi 5", so the question does too: every
    # figure of an answer must come from a result or from the question.
    ask = [{"role": "user", "content": "How hot is my Raspberry Pi 5?"}]
    result = await loop.process_turn(ask, policy=ON, owner="s1", on_token=sink)

    assert world.calls.of("system.health") == [{}]
    streamed = "".join(
        e["choices"][0]["delta"].get("content") or ""
        for e in fixture(stream)["events"]
        if isinstance(e, dict)
    )
    assert result.text == "".join(pieces) == streamed.strip()
    assert len(pieces) > 1  # passed on sentence by sentence, each checked
    final = server.requests[2]
    assert final["stream"] is True and "response_format" not in final
    assert [m["role"] for m in final["messages"]] == ["system", "user", "user"]
    assert "<tool_response>" in final["messages"][2]["content"]


async def test_a_streamed_request_answered_with_an_error_is_a_model_error(server):
    server.queue(
        captured("llama-server_qwen2.5-coder-1.5b_malformed_requests.json", "history_bad_arguments")
    )

    async def sink(piece: str) -> None:
        raise AssertionError("no text may be streamed from an error")

    with pytest.raises(ModelRejected, match=r"refused the request \(HTTP 500\)") as caught:
        await backend(server).complete(ASK, tools=None, on_token=sink)
    assert "Failed to parse" not in str(caught.value)
