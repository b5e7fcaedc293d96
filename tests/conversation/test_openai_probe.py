"""Probing an OpenAI-compatible server once, and the tool plan each kind of server gets.

The three servers replayed here answer the probes the way the real ones do:
llama-cpp-python's server (json_schema refused with its validation error, the
call written as text), llama-server with a tool-calling model, and a server that
ignores ``response_format`` and ``stream`` and refuses ``tools``.
"""

from __future__ import annotations

import json

import pytest

from sovereign.conversation.backends.base import (
    ModelRejected,
    ModelUnavailable,
    allowed_choice,
    named_choice,
)
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import (
    PROBE_SCHEMA,
    ServerFeatures,
    choose_plan,
)

from .replay_server import Canned, ReplayServer, chunks, completion, start

ASK = [{"role": "user", "content": "how hot is my device?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "home_assistant_get_state",
            "description": "Read one entity.",
            "parameters": {
                "type": "object",
                "properties": {
                    "entity_id": {
                        "type": "string",
                        "pattern": r"^[a-z0-9_]+\.[a-z0-9_]+$",
                        "maxLength": 255,
                        "description": "An allowlisted entity id.",
                    }
                },
                "required": ["entity_id"],
            },
        },
    }
]
VALIDATION_500 = Canned(
    500,
    {
        "error": {
            "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
            "type": "internal_server_error",
        }
    },
)
READY = '{"ready": "yes"}'
FENCED_CALL = '```json\n{"name": "report_ready", "arguments": {}}\n```'
STRUCTURED_CALL = [
    {"id": "c1", "type": "function", "function": {"name": "report_ready", "arguments": "{}"}}
]


def llama_cpp_python_probes() -> list[Canned]:
    """Its default chat format: both wordings of the call probe answered as text."""
    text_calls = [completion(FENCED_CALL), completion(FENCED_CALL)]
    return [VALIDATION_500, completion(READY), chunks("Hi", "!"), *text_calls]


def llama_server_probes() -> list[Canned]:
    return [completion(READY), chunks("Hello"), completion("", STRUCTURED_CALL)]


def plain_server_probes() -> list[Canned]:
    refused = Canned(500, {"error": {"message": "tools param requires --jinja flag"}})
    return [completion("Hello there!"), completion("Hello!"), completion("Hi."), refused]


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


def backend(server, mode="auto", **options) -> OpenAIBackend:
    return OpenAIBackend(server.base_url, "local", mode=mode, **options)


async def test_llama_cpp_python_server_gets_schema_decisions_in_its_json_object_form(server):
    server.queue(*llama_cpp_python_probes(), completion('{"action": "answer"}'))
    model = backend(server)

    plan = await model.plan()
    await model.complete(ASK, tools=TOOLS)

    assert (plan.mode, plan.response_format, plan.stream, plan.history) == (
        "schema",
        "json_object",
        True,
        "text",
    )
    json_schema_probe, json_object_probe, stream_probe, tools_probe, tools_again, decision = (
        server.requests
    )
    assert json_schema_probe["response_format"]["json_schema"]["schema"] == PROBE_SCHEMA
    assert json_object_probe["response_format"] == {"type": "json_object", "schema": PROBE_SCHEMA}
    assert stream_probe["stream"] is True
    assert tools_probe["tools"][0]["function"]["name"] == "report_ready"
    assert tools_again["messages"] != tools_probe["messages"]  # the second wording
    assert all(p["temperature"] == 0 and p["max_tokens"] <= 48 for p in server.requests[:5])
    assert decision["response_format"]["type"] == "json_object"
    assert "pattern" not in str(decision["response_format"]["schema"])  # grammar-safe
    assert "maxLength" not in str(decision["response_format"]["schema"])


async def test_llama_server_with_a_tool_calling_model_gets_native_calls(server):
    server.queue(*llama_server_probes())
    plan = await backend(server).plan()
    assert (plan.mode, plan.response_format, plan.stream, plan.history) == (
        "native",
        "json_schema",
        True,
        "openai",
    )
    assert len(server.requests) == 3  # json_schema constrained: json_object never asked
    assert "tool_calls" in plan.reason


async def test_a_call_answered_in_prose_to_one_wording_is_asked_for_in_the_other(server):
    # llama-cpp-python's chatml-function-calling handler with a small model: an empty
    # message to the first wording, the call as tool_calls to the second.
    server.queue(
        completion(READY), chunks("Hello"), completion(""), completion("", STRUCTURED_CALL)
    )
    model = backend(server)
    plan = await model.plan()
    assert (plan.mode, plan.history) == ("native", "openai")
    assert len(server.requests) == 4
    assert "tool_calls" in " | ".join(model._features.notes)


async def test_a_server_that_ignores_everything_gets_unconstrained_decisions(server):
    server.queue(*plain_server_probes())
    model = backend(server)
    plan = await model.plan()
    assert (plan.mode, plan.response_format, plan.stream) == ("schema", None, False)
    assert "in words" in plan.reason
    notes = " | ".join(model._features.notes)
    assert "json_schema: accepted but ignored" in notes and "one JSON reply" in notes
    assert "tools: refused" in notes


async def test_native_mode_sends_tool_parameters_a_grammar_can_hold(server):
    server.queue(*llama_server_probes(), completion("Paris"))
    await backend(server, mode="native").complete(ASK, tools=TOOLS)
    sent = server.requests[-1]["tools"][0]["function"]["parameters"]
    assert sent["properties"]["entity_id"] == {
        "type": "string",
        "description": "An allowlisted entity id.",
    }
    assert TOOLS[0]["function"]["parameters"]["properties"]["entity_id"]["pattern"]  # untouched


async def test_the_probe_runs_once_for_many_requests(server):
    server.queue(*llama_server_probes(), completion("Paris"), completion("Rome"))
    model = backend(server)
    assert (await model.complete(ASK, tools=TOOLS)).content == "Paris"
    assert (await model.complete(ASK, tools=TOOLS)).content == "Rome"
    assert len(server.requests) == 3 + 2


async def test_refresh_probes_again_and_can_change_the_plan(server):
    server.queue(*llama_server_probes(), *llama_cpp_python_probes(), *llama_server_probes())
    model = backend(server)
    assert (await model.plan()).mode == "native"
    model.refresh()
    assert (await model.plan()).mode == "schema"
    assert (await model.plan()).mode == "schema"  # cached again
    assert (await model.plan(refresh=True)).mode == "native"
    assert len(server.requests) == 3 + 5 + 3


async def test_a_refused_request_makes_the_next_request_probe_again(server):
    refused = Canned(500, {"error": {"message": "Failed to parse tools"}})
    server.queue(*llama_server_probes(), refused, *llama_cpp_python_probes())
    model = backend(server)
    with pytest.raises(ModelRejected):
        await model.complete(ASK, tools=TOOLS)
    assert len(server.requests) == 3 + 1  # one request for the turn: no retry
    assert (await model.plan()).response_format == "json_object"  # the server was asked again


async def test_a_probe_that_cannot_reach_the_server_is_not_remembered(server):
    server.queue(Canned(body={}, delay_seconds=1.0), *llama_server_probes())
    model = backend(server, timeout_seconds=0.3)
    with pytest.raises(ModelUnavailable, match="in time"):
        await model.plan()
    assert (await model.plan()).mode == "native"


@pytest.mark.parametrize(
    ("features", "requested", "expected"),
    [
        (ServerFeatures("json_schema", True, "structured"), "auto", ("native", "openai")),
        (ServerFeatures("json_object", True, "text"), "auto", ("schema", "text")),
        (ServerFeatures(None, True, "text"), "auto", ("native", "text")),
        (ServerFeatures(None, False, "refused"), "auto", ("schema", "text")),
        (ServerFeatures("json_schema", True, "structured"), "schema", ("schema", "openai")),
        (ServerFeatures(None, True, "refused"), "native", ("native", "text")),
        (ServerFeatures("json_object", False, "text"), "native", ("native", "text")),
    ],
)
def test_the_plan_follows_what_the_server_showed(features, requested, expected):
    plan = choose_plan(features, requested)
    assert (plan.mode, plan.history) == expected
    assert plan.response_format == features.response_format
    assert plan.stream is features.streams
    assert plan.reason.startswith("auto: " if requested == "auto" else f"{expected[0]} mode")


async def test_a_required_call_is_sent_as_the_servers_own_tool_choice(server):
    server.queue(*llama_server_probes(), completion("Paris"))
    await backend(server, mode="native").complete(ASK, tools=TOOLS, tool_choice="required")
    assert server.requests[-1]["tool_choice"] == "required"


async def test_a_named_choice_is_sent_as_that_tool_alone_required(server):
    server.queue(*llama_server_probes(), completion("Paris"))
    name = TOOLS[-1]["function"]["name"]
    await backend(server, mode="native").complete(ASK, tools=TOOLS, tool_choice=named_choice(name))
    sent = server.requests[-1]
    assert sent["tool_choice"] == "required"
    assert [t["function"]["name"] for t in sent["tools"]] == [name]


async def test_an_allowed_choice_is_sent_as_those_tools_alone_required(server):
    server.queue(*llama_server_probes(), completion("Paris"))
    names = [t["function"]["name"] for t in TOOLS[1:]]
    await backend(server, mode="native").complete(
        ASK, tools=TOOLS, tool_choice=allowed_choice(names)
    )
    sent = server.requests[-1]
    assert sent["tool_choice"] == "required"
    assert [t["function"]["name"] for t in sent["tools"]] == names


async def test_a_required_decision_in_schema_mode_leaves_answer_out_of_the_grammar(server):
    server.queue(*llama_cpp_python_probes(), completion('{"action": "answer"}'))
    await backend(server, mode="schema").complete(ASK, tools=TOOLS, tool_choice="required")
    sent = json.dumps(server.requests[-1]["response_format"])
    assert '"home_assistant_get_state"' in sent and '"answer"' not in sent


async def test_a_server_that_refuses_a_required_call_is_asked_with_auto_from_then_on(server):
    refused = Canned(500, {})  # llama-cpp-python's server answers tool_choice "required" so
    server.queue(*llama_cpp_python_probes(), refused, completion("Paris"), completion("Rome"))
    model = backend(server, mode="native")
    probes = len(llama_cpp_python_probes())

    first = await model.complete(ASK, tools=TOOLS, tool_choice="required")
    second = await model.complete(ASK, tools=TOOLS, tool_choice="required")

    assert (first.content, second.content) == ("Paris", "Rome")
    sent = [request["tool_choice"] for request in server.requests[probes:]]
    assert sent == ["required", "auto", "auto"]  # refused once, remembered
    assert model.features is not None  # a refusal of "required" is no reason to probe again


async def test_a_refused_request_that_did_not_require_a_call_is_not_asked_again(server):
    server.queue(*llama_cpp_python_probes(), Canned(500, {}), completion("Paris"))
    with pytest.raises(ModelRejected):
        await backend(server, mode="native").complete(ASK, tools=TOOLS, tool_choice="auto")
    assert len(server.requests) == len(llama_cpp_python_probes()) + 1
