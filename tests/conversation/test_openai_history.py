"""Earlier calls go back to the server in the form its chat template reads, on the wire.

A turn proposes a search as text (what llama-cpp-python's server returns for this
model), the household approves it, and the request that follows is recorded as
sent. It is then rendered with the model's own chat template exactly as
llama-cpp-python's server renders it: the call's arguments must appear once, as an
object. The same history in the structured form (right for llama-server, whose
template engine parses string arguments first) is shown to be encoded twice by this
template, which is why the backend chooses the form from what the server showed.
"""

from __future__ import annotations

import json

import pytest

from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.conversation.backends.openai.wire import wire_messages

from .conftest import ON
from .llama_runtime import render_like_llama_cpp_python
from .replay_server import ReplayServer, completion, start

SEARCH = "search the web for the latest Raspberry Pi 5 firmware"
CALL_TEXT = (
    '```json\n{"name": "web_search", "arguments": {"query": "Raspberry Pi 5 firmware"}}\n```'
)
ONCE = '{"name": "web_search", "arguments": {"query": "Raspberry Pi 5 firmware"}}'
TWICE = '"arguments": "{\\"query\\": \\"Raspberry Pi 5 firmware\\"}"'
TEXT_CALLS = ServerFeatures(response_format="json_object", streams=False, tool_calls="text")


@pytest.fixture
def server():
    state = ReplayServer()
    httpd = start(state)
    yield state
    httpd.shutdown()
    httpd.server_close()


async def approved_search_turn(server, world) -> list[dict]:
    """Run the turn; returns the messages of the request sent after the approval."""
    quote = '{"name": "quote_sources", "arguments": {"passages": ["1.1"]}}'
    server.queue(completion(CALL_TEXT), completion(quote))
    model = OpenAIBackend(server.base_url, mode="native", features=TEXT_CALLS)
    loop = TurnLoop(world.executor, model, pending=world.pending)
    ask = [{"role": "user", "content": SEARCH}]
    paused = await loop.process_turn(ask, policy=ON, owner="s1")
    token = paused.pending_confirmation.token
    result = await loop.resume_turn(token, True, policy=ON, owner="s1")
    assert result.text == "> Bootloader update\n> \u2014 pi.example"
    assert world.calls.of("web.search") == [{"query": "Raspberry Pi 5 firmware"}]
    return server.requests[1]["messages"]


async def test_the_call_goes_back_as_the_text_the_model_wrote(server, world):
    sent = await approved_search_turn(server, world)

    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert all(set(m) == {"role", "content"} for m in sent)  # no tool_calls, no null
    assert json.loads(sent[2]["content"]) == json.loads(ONCE)
    assert sent[3]["content"].startswith("<tool_response>\n{")
    assert json.loads(sent[3]["content"].split("\n")[1])["status"] == "executed"


async def test_the_models_template_renders_the_arguments_once_as_an_object(server, world):
    sent = await approved_search_turn(server, world)

    prompt = render_like_llama_cpp_python(sent)

    assert prompt.count(ONCE) == 1 and TWICE not in prompt
    assert "<tool_response>" in prompt and prompt.endswith("<|im_start|>assistant\n")


def test_the_structured_form_would_be_encoded_twice_by_this_template():
    structured = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": SEARCH},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "web_search", "arguments": {"query": "x"}},
                }
            ],
        },
    ]
    wire = wire_messages(structured)
    assert isinstance(wire[2]["tool_calls"][0]["function"]["arguments"], str)  # OpenAI's form
    prompt = render_like_llama_cpp_python(wire)
    assert '"arguments": "{\\"query\\": \\"x\\"}"' in prompt
