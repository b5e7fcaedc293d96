"""The embedded backend around a stand-in for llama-cpp-python's ``Llama`` (fast, no model).

The real model is exercised in ``test_embedded_real.py``; here the stand-in
(:class:`~.token_model.FakeModel`) replays captured llama-cpp-python output and
records what it was asked.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest

from sovereign.conversation.backends.base import (
    ModelError,
    ModelUnavailable,
    ToolCall,
    allowed_choice,
    named_choice,
)
from sovereign.conversation.backends.embedded.backend import (
    EmbeddedBackend,
    Sampling,
    native_messages,
)
from sovereign.conversation.backends.embedded.load import (
    LoadOptions,
    check_model_file,
    grammar_schema,
)
from sovereign.model import DEFAULT_MODEL
from sovereign.service.wiring import embedded_load_options
from tests.fixtures import LLM as FIXTURES

from .token_model import FakeModel

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "system_health",
            "description": "Read this device's health.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "web_search",
            "description": "Search the web.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "minLength": 1}},
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    },
]
ASK = [{"role": "user", "content": "how hot is my device?"}]


def captured(name: str) -> str:
    """The assistant content of a captured llama-cpp-python Qwen2.5-Coder-1.5B response."""
    path = FIXTURES / f"llama-cpp-python_qwen2.5-coder-1.5b_{name}.json"
    return json.loads(path.read_text())["choices"][0]["message"]["content"] or ""


def backend_with(fake: FakeModel, **options: Any) -> tuple[EmbeddedBackend, list[LoadOptions]]:
    loads: list[LoadOptions] = []

    def loader(load: LoadOptions) -> FakeModel:
        loads.append(load)
        return fake

    return EmbeddedBackend(loader=loader, **options), loads


# --- schema-constrained decisions -----------------------------------------------------------


@pytest.mark.parametrize(
    ("capture", "expected"),
    [
        ("schema_health", (ToolCall("call_0", "system_health", {}),)),
        (
            "schema_search",
            (ToolCall("call_0", "web_search", {"query": "latest Raspberry Pi 5 firmware"}),),
        ),
        ("schema_control", ()),  # {"action": "answer", ...}: prose comes in the next request
    ],
)
async def test_captured_schema_decisions_become_tool_calls_or_an_answer_next(capture, expected):
    backend, _ = backend_with(FakeModel(replies=[captured(capture)]))
    reply = await backend.complete(ASK, tools=TOOLS)
    assert reply.tool_calls == expected
    assert reply.content == ""


async def test_a_decision_request_is_constrained_by_a_grammar_of_the_offered_tools():
    fake = FakeModel(replies=['{"action": "system_health", "arguments": {}}' + " " * 200])
    backend, _ = backend_with(fake, sampling=Sampling(decision_max_tokens=77))
    reply = await backend.complete(ASK, tools=TOOLS)
    assert reply.tool_calls == (ToolCall("call_0", "system_health", {}),)
    [request] = fake.prompts
    grammar_text = request["grammar"]._grammar
    assert '\\"system_health\\"' in grammar_text and '\\"web_search\\"' in grammar_text
    assert '\\"answer\\"' in grammar_text
    assert fake.pulled == 77 and request["temperature"] == 0.0  # cut at decision_max_tokens
    assert fake.chats == []  # the tools are described in the system message instead
    assert request["text"].startswith("<system>") and "web_search" in request["text"]
    assert request["text"].endswith("<user>how hot is my device?</user><assistant>")


async def test_a_named_choice_admits_that_tool_alone_and_keeps_the_prompt_of_the_others():
    fake = FakeModel(
        replies=[
            '{"action": "system_health", "arguments": {}}',
            '{"action": "web_search", "arguments": {"query": "pi"}}',
        ]
    )
    backend, _ = backend_with(fake)
    await backend.complete(ASK, tools=[TOOLS[0]])  # the decision before: one tool
    reply = await backend.complete(ASK, tools=TOOLS, tool_choice=named_choice("web_search"))

    assert reply.tool_calls == (ToolCall("call_0", "web_search", {"query": "pi"}),)
    before, forced = fake.prompts
    assert forced["text"] == before["text"]  # the same instructions: its prefix is cached
    grammar_text = forced["grammar"]._grammar
    assert '\\"web_search\\"' in grammar_text
    assert '\\"system_health\\"' not in grammar_text and '\\"answer\\"' not in grammar_text


async def test_an_allowed_choice_admits_those_tools_and_keeps_the_same_prompt():
    fake = FakeModel(
        replies=[
            '{"action": "system_health", "arguments": {}}',
            '{"action": "general_knowledge", "arguments": {}}',
        ]
    )
    backend, _ = backend_with(fake)
    plain = {"type": "object", "properties": {}, "additionalProperties": False}
    knowledge = {"name": "general_knowledge", "description": "Known.", "parameters": plain}
    tools = [*TOOLS, {"type": "function", "function": knowledge}]
    await backend.complete(ASK, tools=tools)  # the decision before: every tool
    allowed = allowed_choice(["web_search", "general_knowledge"])
    reply = await backend.complete(ASK, tools=tools, tool_choice=allowed)

    assert reply.tool_calls == (ToolCall("call_0", "general_knowledge", {}),)
    before, chosen_again = fake.prompts
    assert chosen_again["text"] == before["text"]  # every tool still listed: cached
    grammar_text = chosen_again["grammar"]._grammar
    assert '\\"web_search\\"' in grammar_text and '\\"general_knowledge\\"' in grammar_text
    assert '\\"system_health\\"' not in grammar_text and '\\"answer\\"' not in grammar_text


async def test_a_named_choice_in_native_mode_offers_that_tool_alone():
    fake = FakeModel(replies=["Paris"])
    backend, _ = backend_with(fake, mode="native")
    await backend.complete(ASK, tools=TOOLS, tool_choice=named_choice("web_search"))
    [request] = fake.chats
    assert [t["function"]["name"] for t in request["tools"]] == ["web_search"]


def test_the_grammar_drops_string_keywords_llama_cpp_cannot_compile_but_keeps_the_rest():
    url = {"type": "string", "minLength": 1, "maxLength": 8192, "pattern": r"^https?://\S+\.\w+"}
    schema = {
        "anyOf": [{"type": "object", "properties": {"url": url, "pattern": {"type": "string"}}}]
    }
    loosened = grammar_schema(schema)
    properties = loosened["anyOf"][0]["properties"]
    assert properties["url"] == {"type": "string", "minLength": 1}
    assert properties["pattern"] == {"type": "string"}  # a property that is merely named so
    assert schema["anyOf"][0]["properties"]["url"]["maxLength"] == 8192  # input unchanged


async def test_a_decision_grammar_stays_small_for_a_long_max_length():
    long_text = {"type": "string", "maxLength": 8192}  # llama-cpp-python: ~65 kB of rules
    offered = [{"type": "function", "function": {"name": "web_fetch", "description": "Read.",
                "parameters": {"type": "object", "properties": {"url": long_text},
                               "required": ["url"]}}}]  # fmt: skip
    fake = FakeModel(replies=['{"action": "answer"}'])
    backend, _ = backend_with(fake)
    await backend.complete(ASK, tools=offered)
    assert len(fake.prompts[0]["grammar"]._grammar) < 5000


async def test_a_decision_naming_no_offered_tool_is_a_model_error():
    backend, _ = backend_with(FakeModel(replies=['{"action": "shell_exec", "arguments": {}}']))
    with pytest.raises(ModelError, match="no offered tool"):
        await backend.complete(ASK, tools=TOOLS)


# --- native tool calls ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("capture", "expected"),
    [
        ("jinja_health", (ToolCall("call_1", "system_health", {}),)),  # {{"name": ...}}
        (
            "jinja_search",  # a ```json fence
            (ToolCall("call_1", "web_search", {"query": "latest Raspberry Pi 5 firmware"}),),
        ),
    ],
)
async def test_captured_native_replies_with_calls_in_their_text_become_tool_calls(
    capture, expected
):
    backend, _ = backend_with(FakeModel(replies=[captured(capture)]), mode="native")
    reply = await backend.complete(ASK, tools=TOOLS)
    assert reply.tool_calls == expected


async def test_a_native_reply_in_prose_is_the_answer():
    backend, _ = backend_with(FakeModel(replies=[captured("jinja_control")]), mode="native")
    reply = await backend.complete(ASK, tools=TOOLS)
    assert reply.content == "Paris" and reply.tool_calls == ()


async def test_a_native_call_to_a_tool_that_was_not_offered_is_not_a_call():
    text = '<tool_call>\n{"name": "shell_exec", "arguments": {"cmd": "rm -rf /"}}\n</tool_call>'
    backend, _ = backend_with(FakeModel(replies=[text]), mode="native")
    reply = await backend.complete(ASK, tools=TOOLS)
    assert reply.tool_calls == ()


async def test_native_requests_offer_the_tools_to_the_chat_template_without_a_grammar():
    fake = FakeModel(replies=["Paris"])
    backend, _ = backend_with(fake, mode="native")
    await backend.complete(ASK, tools=TOOLS)
    [request] = fake.chats
    assert request["tools"] == TOOLS and "grammar" not in request


def test_native_history_has_object_arguments_and_never_null_content():
    history = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "web_search",
                                                             "arguments": '{"query": "pi"}'}},
                {"id": "b", "type": "function", "function": {"name": "web_search",
                                                             "arguments": "{not json"}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "{}"},
    ]  # fmt: skip
    converted = native_messages(history)
    assert converted[0]["content"] == ""
    assert [c["function"]["arguments"] for c in converted[0]["tool_calls"]] == [{"query": "pi"}, {}]
    assert history[0]["content"] is None  # the caller's messages are not changed


# --- the streamed prose answer ------------------------------------------------------------------


async def test_the_answer_is_streamed_piece_by_piece_and_returned_whole():
    fake = FakeModel(pieces=["The CPU ", "is at ", "52.5 °C."])
    backend, _ = backend_with(fake, sampling=Sampling(answer_max_tokens=40, answer_temperature=0.3))
    seen: list[str] = []

    async def on_token(piece: str) -> None:
        seen.append(piece)

    reply = await backend.complete(ASK, tools=None, on_token=on_token)
    assert seen == ["The CPU ", "is at ", "52.5 °C."]
    assert reply.content == "The CPU is at 52.5 °C." and reply.tool_calls == ()
    [request] = fake.prompts
    assert request["grammar"] is None and request["temperature"] == 0.3 and fake.chats == []


async def test_an_answer_stops_at_answer_max_tokens():
    fake = FakeModel(pieces=["one ", "two ", "three ", "four"])
    backend, _ = backend_with(fake, sampling=Sampling(answer_max_tokens=2))
    assert (await backend.complete(ASK, tools=None)).content == "one two "


async def test_the_answer_request_carries_tool_results_but_not_the_decisions():
    fake = FakeModel(pieces=["ok"])
    backend, _ = backend_with(fake)
    history = [
        *ASK,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_0", "type": "function",
             "function": {"name": "system_health", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_0", "content": '{"cpu_temperature_celsius": 52.5}'},
    ]  # fmt: skip
    await backend.complete(history, tools=None)
    text = fake.prompts[0]["text"]
    assert text.startswith("<user>how hot is my device?</user><user>")
    assert "<assistant>" not in text.removesuffix("<assistant>")  # no decision JSON to copy
    assert '<tool_response>\n{"cpu_temperature_celsius": 52.5}\n</tool_response>' in text
    assert text.endswith("Do not write JSON, tool calls or code.</user><assistant>")


async def test_generation_does_not_block_the_event_loop():
    backend, _ = backend_with(FakeModel(pieces=["a"] * 5, seconds_per_step=0.05))
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    await backend.complete(ASK, tools=None)
    task.cancel()
    assert ticks >= 10  # ~0.25 s of generation; the loop kept running meanwhile


async def test_only_one_inference_runs_at_a_time():
    fake = FakeModel(replies=['{"action": "answer"}'] * 3, pieces=["x"] * 3, seconds_per_step=0.02)
    backend, _ = backend_with(fake)
    await asyncio.gather(
        backend.complete(ASK, tools=TOOLS),
        backend.complete(ASK, tools=None),
        backend.complete(ASK, tools=TOOLS),
        backend.complete(ASK, tools=None),
        backend.complete(ASK, tools=TOOLS),
    )
    assert fake.most_active == 1


async def test_a_failing_token_sink_stops_generation_and_the_backend_stays_usable():
    fake = FakeModel(pieces=[f"{n} " for n in range(200)], seconds_per_step=0.002)
    backend, _ = backend_with(fake)

    async def on_token(piece: str) -> None:
        if piece == "2 ":
            raise ConnectionResetError("the client went away")

    with pytest.raises(ConnectionResetError):
        await backend.complete(ASK, tools=None, on_token=on_token)
    assert await asyncio.to_thread(fake.closed_stream.wait, 5)
    assert fake.pulled < 200
    fake.pieces = ["again"]
    assert (await backend.complete(ASK, tools=None)).content == "again"


async def test_a_runtime_failure_while_generating_is_a_model_error():
    error = ValueError("Requested tokens (9000) exceed context window of 8192")
    backend, _ = backend_with(FakeModel(error=error))
    with pytest.raises(ModelError, match="exceed context window"):
        await backend.complete(ASK, tools=TOOLS)
    with pytest.raises(ModelError, match="exceed context window"):
        await backend.complete(ASK, tools=None)


# --- loading ------------------------------------------------------------------------------------


async def test_the_model_is_loaded_lazily_and_only_once():
    fake = FakeModel(replies=['{"action": "answer"}'] * 2, pieces=["hi"])
    backend, loads = backend_with(fake, load=LoadOptions(n_ctx=2048))
    assert loads == []
    await backend.complete(ASK, tools=TOOLS)
    await backend.complete(ASK, tools=None)
    await backend.complete(ASK, tools=TOOLS)
    assert loads == [LoadOptions(n_ctx=2048)]


async def test_a_load_failure_is_not_remembered_so_installing_the_model_later_works():
    attempts: list[int] = []

    def loader(load: LoadOptions) -> FakeModel:
        attempts.append(1)
        if len(attempts) == 1:
            raise ModelUnavailable("The model file does not exist.")
        return FakeModel(replies=['{"action": "answer"}'])

    backend = EmbeddedBackend(loader=loader)
    with pytest.raises(ModelUnavailable, match="does not exist"):
        await backend.complete(ASK, tools=TOOLS)
    assert (await backend.complete(ASK, tools=TOOLS)).tool_calls == ()
    assert len(attempts) == 2


async def test_without_a_configured_model_file_nothing_loads():
    with pytest.raises(ModelUnavailable, match="No model file is configured"):
        await EmbeddedBackend().complete(ASK, tools=TOOLS)


async def test_a_missing_default_model_is_unavailable_with_the_install_command(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    with pytest.raises(ModelUnavailable, match="sovereign model install"):
        await EmbeddedBackend(load=embedded_load_options()).complete(ASK, tools=TOOLS)


def test_a_file_at_the_default_path_that_is_not_the_published_model_is_refused(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))
    impostor = tmp_path / "models" / DEFAULT_MODEL.file_name
    impostor.parent.mkdir()
    impostor.write_bytes(b"GGUF" + bytes(4096))
    with pytest.raises(ModelUnavailable, match="not the expected"):
        check_model_file(embedded_load_options())


def test_a_configured_gguf_file_is_used_without_the_default_models_hash(tmp_path):
    other = tmp_path / "other-model.gguf"
    other.write_bytes(b"GGUF" + bytes(64))
    assert check_model_file(LoadOptions(model_path=other)) == other


@pytest.mark.parametrize(
    ("content", "message"), [(b"<html>not a model</html>", "not a GGUF model"), (None, "cannot")]
)
def test_a_configured_file_that_is_not_a_readable_gguf_is_refused(tmp_path, content, message):
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ModelUnavailable, match=message):
        check_model_file(LoadOptions(model_path=path))


def test_inference_uses_one_thread_per_cpu_unless_configured():
    assert LoadOptions().threads() == (os.cpu_count() or 1)
    assert LoadOptions(n_threads=3).threads() == 3


def test_an_unknown_tool_mode_is_refused_at_construction():
    with pytest.raises(ValueError, match="'schema' or 'native'"):
        EmbeddedBackend(mode="guess")  # type: ignore[arg-type]
