"""The service's HTTP API over the OpenAI backend: errors that mean what they say.

The app is the real one (``create_app``) with the real ``OpenAIBackend`` talking
to a replay server on 127.0.0.1; the household signs in and posts messages as the
Console does.
"""

from __future__ import annotations

import json
import logging
import socket

import pytest

from sovereign.capabilities import system
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.http import LOG_EXCERPT_CHARS
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.executor import Registry
from sovereign.service.app import create_app
from sovereign.service.settings import Settings
from tests.fakes.clock import FakeClock
from tests.fakes.searxng import CapturedSearchHandler
from tests.service.conftest import CHEAP_HASHER
from tests.service.harness import Harness, _client

from .replay_server import Canned, ReplayServer, chunks, completion, start
from .test_openai_probe import llama_cpp_python_probes

SECRET = "internal stack: /srv/llama/app.py line 376\nPOST /v1/chat/completions" + "x" * 400
REFUSES_JSON_SCHEMA = Canned(500, {"error": {"message": SECRET, "type": "internal_server_error"}})
BELIEVES_JSON_SCHEMA = ServerFeatures(
    response_format="json_schema", streams=True, tool_calls="text"
)
OUR_502 = (
    "The language model answered unusably: the model server refused the request (HTTP 500); "
    "the service log has its reply"
)


@pytest.fixture
def server():
    state = ReplayServer()
    httpd = start(state)
    yield state
    httpd.shutdown()
    httpd.server_close()


async def signed_in(tmp_path, backend) -> Harness:
    registry = Registry()
    system.register(registry, disk_path=tmp_path)
    app = create_app(
        Settings(data_dir=tmp_path, backend="openai"),
        backend=backend,
        clock=FakeClock(),
        registry=registry,
        password_hasher=CHEAP_HASHER,
    )
    harness = Harness(app, _client(app), FakeClock(), CapturedSearchHandler(), backend, tmp_path)
    await harness.sign_in()
    return harness


async def test_a_server_that_refuses_the_request_format_is_a_502_after_one_request(
    server, tmp_path, caplog
):
    server.queue(REFUSES_JSON_SCHEMA, completion('{"action": "answer"}'))
    model = OpenAIBackend(server.base_url, mode="schema", features=BELIEVES_JSON_SCHEMA)
    harness = await signed_in(tmp_path, model)

    with caplog.at_level(logging.WARNING):
        response = await harness.message({"message": "how hot is my device?"})
    await harness.client.aclose()

    assert response.status_code == 502
    assert response.json()["error"] == {"code": "MODEL_ERROR", "message": OUR_502}
    assert len(server.requests) == 1  # not retried
    logged = [r.getMessage() for r in caplog.records if "HTTP 500" in r.getMessage()]
    assert logged and "internal stack: /srv/llama/app.py line 376 POST" in logged[0]
    assert "\n" not in logged[0] and logged[0].endswith("…")
    assert len(logged[0]) < LOG_EXCERPT_CHARS + 60


async def test_the_streamed_route_says_the_same_in_its_error_event(server, tmp_path):
    server.queue(REFUSES_JSON_SCHEMA)
    model = OpenAIBackend(server.base_url, mode="schema", features=BELIEVES_JSON_SCHEMA)
    harness = await signed_in(tmp_path, model)

    response = await harness.post(
        "/api/v1/conversation/message",
        {"message": "how hot is my device?"},
        Accept="text/event-stream",
    )
    await harness.client.aclose()

    events = [line for line in response.text.splitlines() if line.startswith("data:")]
    assert json.loads(events[-1][5:])["error"] == {"code": "MODEL_ERROR", "message": OUR_502}
    assert "internal stack" not in response.text and len(server.requests) == 1


async def test_auto_mode_probes_then_answers_with_a_tool_and_the_products_own_facts(
    server, tmp_path
):
    decision = completion('{"action": "system_health", "arguments": {}}')
    answer = chunks("Your", " device", " is", " fine.", " No", " need", " to", " worry.")
    server.queue(*llama_cpp_python_probes(), decision, completion('{"action": "answer"}'), answer)
    harness = await signed_in(tmp_path, OpenAIBackend(server.base_url))

    response = await harness.post(
        "/api/v1/conversation/message",
        {"message": "how is my device doing?"},
        Accept="text/event-stream",
    )
    await harness.client.aclose()

    frames = response.text.split("\n\n")
    tokens = [f for f in frames if f.startswith("event: token")]
    result = json.loads(next(f for f in frames if f.startswith("event: result")).split("data:")[1])
    # The product states the device's facts as soon as they are read; the model's next
    # decision, an answer without a tool, ends the turn with them (no prose of its own).
    texts = [json.loads(f.split("data:")[1])["text"] for f in tokens]
    assert texts == [result["text"]] and "of memory is free" in result["text"]
    assert len(server.requests) == 7  # five probes and two decisions; the prose never asked
    assert result["receipts"] == [
        {
            "capability": "system.health",
            "locality": "local",
            "outcome": "executed",
            "name": "This device's health",
        }
    ]
    decisions = server.requests[5:7]  # after five probes
    assert all(d["response_format"]["type"] == "json_object" for d in decisions)


async def test_an_unreachable_server_is_a_503(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    harness = await signed_in(tmp_path, OpenAIBackend(f"http://127.0.0.1:{port}/v1"))
    response = await harness.message({"message": "hello"})
    await harness.client.aclose()
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "MODEL_UNAVAILABLE"
