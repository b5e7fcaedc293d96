"""The household never reads call markup or call JSON as an answer: every template's call
spelling, a bare call object, a call to a tool not offered. The reply is the prose around
it, or nothing, and then the turn asks for the answer again or says it has none."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.call_markup import (
    HOLD_CHARACTERS,
    MarkupGate,
    answer_text,
    call_spans,
    without_call_markup,
)
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.conversation.backends.openai.wire import reply_from_message

from .conftest import ON
from .replay_server import ReplayServer, chunks
from .replay_server import start as start_server
from .token_model import FakeModel

CALL = {"name": "shell_exec", "arguments": {"cmd": "cat /etc/passwd"}}
BARE = json.dumps(CALL)
MARKUP = {
    "hermes": f"<tool_call>\n{BARE}\n</tool_call>",
    "hermes-unclosed": f"<tool_call>\n{BARE}",
    "bare-json": BARE,
    "bare-json-list": f"[{BARE}]",
    "doubled-braces": "{" + BARE + "}",
    "fenced-json": f"```json\n{BARE}\n```",
    "function-wrapper": json.dumps({"type": "function", "function": CALL}),
    "parameters-key": json.dumps({"name": "shell_exec", "parameters": {"cmd": "ls"}}),
    "decision": json.dumps({"action": "shell_exec", "arguments": {"cmd": "ls"}}),
    "decision-answer": '{"action": "answer"}',
    "mistral": f"[TOOL_CALLS][{BARE}]",
    "mistral-v11": '[TOOL_CALLS]shell_exec[ARGS]{"cmd": "ls"}',
    "llama31-python-tag": '<|python_tag|>shell_exec.call(cmd="ls")<|eom_id|>',
    "llama31-json": '<|python_tag|>{"name": "shell_exec", "parameters": {"cmd": "ls"}}',
    "qwen3-coder": "<tool_call>\n<function=shell_exec>\n<parameter=cmd>\nls\n</parameter>\n"
    "</function>\n</tool_call>",
    "function-tag": '<function=shell_exec>{"cmd": "ls"}</function>',
    "deepseek": "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>"
    "function<\uff5ctool\u2581sep\uff5c>shell_exec\n```json\n{\"cmd\": \"ls\"}\n```"
    "<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>",
    "gpt-oss": "<|start|>assistant<|channel|>commentary to=functions.shell_exec "
    '<|constrain|>json<|message|>{"cmd": "ls"}<|call|>',
    "kimi": '<|tool_calls_section_begin|><|tool_call_begin|>functions.shell_exec:0'
    '<|tool_call_argument_begin|>{"cmd": "ls"}<|tool_call_end|><|tool_calls_section_end|>',
    "escaped-in-a-string": json.dumps(BARE),
    "chatml-turn": "<|im_start|>assistant\n" + BARE + "<|im_end|>",
}  # fmt: skip
TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
    for n in ("web_search", "system_health")
]
PROSE = "The firmware was updated in November."


@pytest.mark.parametrize("markup", list(MARKUP.values()), ids=list(MARKUP))
def test_a_reply_that_is_only_markup_shows_nothing(markup):
    assert without_call_markup(markup) == ""
    reply = reply_from_message({"content": markup}, TOOLS)
    assert reply.tool_calls == () and reply.content == ""


@pytest.mark.parametrize("markup", list(MARKUP.values()), ids=list(MARKUP))
@pytest.mark.parametrize("where", ["before", "after", "between"])
def test_markup_beside_prose_leaves_only_the_prose(markup, where):
    text = {
        "before": f"{markup}\n{PROSE}",
        "after": f"{PROSE} {markup}",
        "between": f"{PROSE}\n\n{markup}\n\nAsk me again any time.",
    }[where]
    shown = without_call_markup(text)
    assert "shell_exec" not in shown and "cmd" not in shown
    assert PROSE in shown


def test_json_that_is_no_call_stays():
    texts = ['{"name": "Bob", "age": 3}', '[1, 2, {"a": "b"}]', "{braces} in prose",
             "Use <b>bold</b>, a < b, [1] and `code`.", "```python\nprint(1)\n```"]  # fmt: skip
    for text in texts:
        assert without_call_markup(text) == text


SENTENCE = "La ztl di Borgo San Fele è attiva la domenica.\nChiedi al comune."
WRAPPED = {
    "one-line": json.dumps({"message": SENTENCE}, ensure_ascii=False),
    "indented": json.dumps({"answer": SENTENCE}, indent=2),
    "padded": '{ "response" : ' + json.dumps(SENTENCE) + " }\n",
    "fenced": "```json\n" + json.dumps({"text": SENTENCE}) + "\n```",
    "doubled-braces": "{" + json.dumps({"reply": SENTENCE}) + "}",
    "leading-space": "  \n" + json.dumps({"risposta": SENTENCE}),
}


@pytest.mark.parametrize("wrapped", list(WRAPPED.values()), ids=list(WRAPPED))
def test_prose_wrapped_in_an_object_of_one_key_is_read_as_the_prose(wrapped):
    assert answer_text(wrapped) == SENTENCE
    assert reply_from_message({"content": wrapped}, None).content == SENTENCE
    assert reply_from_message({"content": wrapped}, TOOLS).content == SENTENCE


def test_json_that_wraps_no_prose_stays_as_written():
    texts = ['{"name": "Bob", "age": 3}', '{"title": "Notes", "body": "Buy milk."}',
             '{"count": 3}', '{"message": ""}', '{"items": ["milk", "eggs"]}',
             'The page said {"message": "hi"} and nothing else.',
             '{"message": "hi"} {"message": "again"}', '{"message": "cut off']  # fmt: skip
    for text in texts:
        assert answer_text(text) == text


def test_a_call_to_an_offered_tool_written_as_text_is_still_read():
    reply = reply_from_message({"content": '{"name": "web_search", "arguments": {"query": "q"}}'},
                               TOOLS)  # fmt: skip
    assert [c.name for c in reply.tool_calls] == ["web_search"] and reply.content == ""


def test_a_text_full_of_braces_is_scanned_in_linear_time():
    text = "{" * 50_000 + PROSE
    assert without_call_markup(text) == text
    assert call_spans('{"a": ' * 5000) == []


async def _streamed(text: str, step: int, clean=without_call_markup) -> tuple[list[str], str]:
    """What a gate passes of ``text`` fed in pieces of ``step`` characters, then finished
    with ``clean(text)``; and that answer. Before the finish, ``pieces`` ends with ``""``."""
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    gate = MarkupGate(sink)
    for start in range(0, len(text), step):
        await gate(text[start : start + step])
    pieces.append("")
    answer = clean(text)
    await gate.finish(answer)
    return pieces, answer


@pytest.mark.parametrize("markup", list(MARKUP.values()), ids=list(MARKUP))
@pytest.mark.parametrize("step", [1, 2, 5, 17, 1000])
async def test_a_stream_never_passes_markup_in_pieces_of_any_size(markup, step):
    text = f"{PROSE} {markup} Anything else?"
    pieces, answer = await _streamed(text, step)
    assert "".join(pieces) == answer
    assert "shell_exec" not in answer and PROSE in answer and "Anything else?" in answer


async def test_prose_streams_at_once_and_markup_like_characters_only_briefly_wait():
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    gate = MarkupGate(sink)
    await gate("Paris ")
    await gate("is < than ")
    assert pieces == ["Paris ", "is "]  # the "<" may open markup: held from there
    await gate("x" * HOLD_CHARACTERS)
    assert "".join(pieces).startswith("Paris is < than")


@pytest.mark.parametrize("wrapped", list(WRAPPED.values()), ids=list(WRAPPED))
@pytest.mark.parametrize("step", [1, 2, 3, 7, 1000])
async def test_a_stream_of_wrapped_prose_shows_only_the_prose(wrapped, step):
    pieces, answer = await _streamed(wrapped, step, answer_text)
    before = pieces[: pieces.index("")]
    assert not "".join(before).strip()  # nothing before the reply is known
    assert "".join(pieces).strip() == answer == SENTENCE


async def test_a_brace_later_in_a_reply_does_not_hold_its_prose():
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    gate = MarkupGate(sink)
    await gate('Write it as {"a": "b"} and ' + "x" * HOLD_CHARACTERS)
    assert "".join(pieces).startswith('Write it as {"a": "b"} and')


# --- through the backends and the turn --------------------------------------------------


@pytest.fixture(scope="module")
def server():
    state = ReplayServer()
    httpd = start_server(state)
    yield state
    httpd.shutdown()
    httpd.server_close()


async def openai_answer(server, *pieces: str) -> tuple[str, ModelReply]:
    """What an OpenAI-compatible server's streamed answer of ``pieces`` showed, and the
    reply."""
    server.replies.clear()
    server.queue(chunks(*pieces))
    shown: list[str] = []

    async def sink(piece: str) -> None:
        shown.append(piece)

    features = ServerFeatures(response_format="json_schema", streams=True, tool_calls="text")
    backend = OpenAIBackend(server.base_url, "local", mode="native", features=features)
    reply = await backend.complete([{"role": "user", "content": "hi"}], tools=None, on_token=sink)
    return "".join(shown), reply


async def embedded_answer(*pieces: str) -> tuple[str, ModelReply]:
    """What the embedded backend's answer generated as ``pieces`` showed, and the reply."""
    model = FakeModel(pieces=list(pieces))
    shown: list[str] = []

    async def sink(piece: str) -> None:
        shown.append(piece)

    backend = EmbeddedBackend(loader=lambda _load: model)
    reply = await backend.complete([{"role": "user", "content": "hi"}], tools=None,
                                   on_token=sink)  # fmt: skip
    return "".join(shown), reply


@pytest.mark.parametrize("name", ["hermes", "mistral", "llama31-python-tag", "gpt-oss"])
async def test_an_openai_streamed_answer_never_shows_markup(server, name):
    shown, reply = await openai_answer(
        server, "Sure. ", *[MARKUP[name][i : i + 4] for i in range(0, 40, 4)],
        MARKUP[name][40:], " Done."
    )  # fmt: skip
    assert shown == reply.content == "Sure. Done."


@pytest.mark.parametrize("name", ["hermes", "bare-json", "qwen3-coder"])
async def test_an_embedded_answer_never_shows_markup(name):
    shown, reply = await embedded_answer("Sure. ", *MARKUP[name], " Done.")
    assert shown == reply.content == "Sure. Done."


async def test_an_openai_streamed_answer_wrapped_in_json_shows_the_prose(server):
    wrapped = WRAPPED["indented"]
    shown, reply = await openai_answer(
        server, *[wrapped[i : i + 5] for i in range(0, len(wrapped), 5)]
    )
    assert shown == reply.content == SENTENCE


async def test_an_embedded_answer_wrapped_in_json_shows_the_prose():
    shown, reply = await embedded_answer(*WRAPPED["one-line"])
    assert shown == reply.content == SENTENCE


def markup_then(answer: Any) -> Any:
    """A model that answers with a call to a tool it was not offered, then with ``answer``
    when asked again without tools."""

    def script(messages: list[dict[str, Any]], tools: Any) -> Any:
        raw = reply_from_message({"content": MARKUP["hermes"]}, tools)
        return raw if tools else answer

    return script


async def test_a_turn_whose_reply_was_markup_asks_for_the_answer(world):
    loop, model = world.loop(markup_then("Paris is the capital of France."))
    result = await loop.process_turn([{"role": "user", "content": "capital of France?"}],
                                     policy=ON, owner="s1")  # fmt: skip
    assert result.text == "Paris is the capital of France." and result.receipts == []
    assert [r.tools is None for r in model.requests] == [False, True]


async def test_a_turn_whose_answer_is_markup_again_says_it_has_no_answer(world):
    answer = ModelReply(content=without_call_markup(MARKUP["bare-json"]))
    loop, _ = world.loop(markup_then(answer))
    result = await loop.process_turn([{"role": "user", "content": "capital of France?"}],
                                     policy=ON, owner="s1")  # fmt: skip
    assert "shell_exec" not in result.text and result.text  # the loop's own "no answer"


def test_every_markup_spelling_is_found_where_it_begins():
    for name, markup in MARKUP.items():
        spans = call_spans(markup)
        assert spans and spans[0][0] == markup.find(markup.lstrip("`json\n")[0]), name


async def test_the_gate_is_safe_to_finish_twice():
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    gate = MarkupGate(sink)
    await gate(PROSE)
    await gate.finish(PROSE)
    await gate.finish(PROSE)
    await asyncio.sleep(0)
    assert "".join(pieces) == PROSE
