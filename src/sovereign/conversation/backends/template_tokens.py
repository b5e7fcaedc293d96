"""The one place every text passes before it goes into any model's prompt (issue 32 item 6).

A chat template frames each message with control tokens (ChatML's ``<|im_start|>``
and ``<|im_end|>``, Llama 3's ``<|start_header_id|>`` and ``<|eot_id|>``, Gemma's
``<start_of_turn>`` and ``<end_of_turn>``, …), and the prompt it renders is then
tokenised with special tokens *parsed*: llama-server, llama-cpp-python and our
embedded runner all do, and llama.cpp parses a vocabulary's user-defined tokens
(Qwen's ``<tool_call>``) even when asked not to. So the text ``<|im_end|>`` inside a
search query, a page, a user message or an earlier answer becomes the real token,
and whoever wrote it can end a turn and open a ``system`` one.

:func:`prompt_messages` and :func:`prompt_tools` are applied by every backend to
everything it is given, before it adds its own framing (the decision instructions,
``<tool_response>`` tags) and before any template sees it: each string, every role,
call arguments included (parsed and written again, so an escaped ``\\u003c`` cannot
come back as ``<`` when a template re-serialises them). In each it makes the text
valid (:func:`sovereign.executor.valid_text`) and *neutralises* every spelling of a
special token: the opening ``<`` becomes U+FF1C FULLWIDTH LESS-THAN SIGN (``[``
becomes U+FF3B), so the text still reads the same to the model and to a person, but
no tokenizer can match it. The spellings are those of the templates in use (see
:data:`SPECIAL_TOKEN`); docs/decisions/special-tokens.md says why this way.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sovereign.executor import map_strings, valid_text

from .base import Message, ToolDefinition
from .jsontext import parse_arguments

__all__ = ["SPECIAL_TOKEN", "neutral_text", "prompt_messages", "prompt_tools"]

_NAMED_TAGS = "|".join(
    [
        # SentencePiece vocabularies (Llama 2, Mistral, Gemma, Qwen's </s>)
        "s", "unk", "pad", "mask", "bos", "eos",
        # Gemma 2/3 turns and images, FunctionGemma's call blocks
        "start_of_turn", "end_of_turn", "start_of_image", "end_of_image", "image_soft_token",
        r"unused\d{1,3}", "start_function_call", "end_function_call",
        "start_function_response", "end_function_response",
        "start_function_declaration", "end_function_declaration", "escape",
        # Hermes / Qwen tool calls (user-defined tokens: parsed even without "special")
        "tool_call", "tool_response", "tools", "think", "function_call", "function_calls",
        # GLM
        "sop", "eop",
    ]
)  # fmt: skip

SPECIAL_TOKEN = re.compile(
    r"<\|[^|<>\s]{1,64}\|>"  # ChatML, Llama 3, Phi, Granite, Command R, gpt-oss: <|im_end|>
    "|<\uff5c[^\uff5c<>]{1,64}\uff5c>"  # DeepSeek, U+FF5C bars: <(U+FF5C)User(U+FF5C)>
    rf"|</?(?:{_NAMED_TAGS})>"  # named tags: <start_of_turn>, </s>, <tool_call>
    r"|<</?SYS>>"  # Llama 2's system block
    r"|\[/?[A-Z][A-Z_]{1,31}\]"  # Mistral: [INST], [/INST], [TOOL_CALLS], [SYSTEM_PROMPT]
    r"|\[(?:gMASK|multimodal|@BOS@)\]"  # GLM, Gemma
)
"""Every spelling of a chat template's control token the product knows: the families of
ChatML (Qwen, SmolLM), Llama 2/3, Gemma, Mistral, Phi, DeepSeek, GLM and Hermes tool
tags. A text that matches nowhere can hold no special token of these templates."""

_LOOKALIKE = {"<": "\uff1c", "[": "\uff3b"}
"""The first character of a spelling → the fullwidth form that stands in for it."""


def neutral_text(text: str) -> str:
    """``text`` valid (lone surrogates → U+FFFD) and with every :data:`SPECIAL_TOKEN`
    spelling broken by a fullwidth first character: ``<|im_end|>`` becomes
    ``\uff1c|im_end|>``.

    Returns:
        ``text`` itself when there was nothing to change.
    """
    text = valid_text(text)
    if "<" not in text and "[" not in text:
        return text
    return SPECIAL_TOKEN.sub(lambda m: _LOOKALIKE[m.group()[0]] + m.group()[1:], text)


def prompt_messages(messages: list[Message]) -> list[Message]:
    """``messages`` with every string neutralised (:func:`neutral_text`), call arguments
    parsed, neutralised and written again as JSON text.

    Returns:
        New message dicts; ``messages`` is not changed.
    """
    return [_message(message) for message in messages]


def prompt_tools(tools: list[ToolDefinition] | None) -> list[ToolDefinition] | None:
    """``tools`` with every string in them neutralised (descriptions, and values a tool's
    schema offers, such as addresses a search returned); names are model-safe already."""
    return None if tools is None else [_neutral(tool) for tool in tools]


def _message(message: Message) -> Message:
    out = {key: _neutral(value) for key, value in message.items() if key != "tool_calls"}
    if "tool_calls" in message:
        calls = message["tool_calls"]
        out["tool_calls"] = [_call(c) for c in calls] if isinstance(calls, list) else calls
    return out


def _call(call: Any) -> Any:
    if not isinstance(call, dict):
        return call
    out = {key: _neutral(value) for key, value in call.items() if key != "function"}
    function = call.get("function")
    if isinstance(function, dict):
        out["function"] = {**_neutral(function), "arguments": _arguments(function)}
    return out


def _arguments(function: dict[str, Any]) -> Any:
    raw = function.get("arguments")
    arguments, _problem = parse_arguments(raw)
    if arguments is None:  # not an object: its text, neutralised, as it came
        return _neutral(raw)
    neutral = _neutral(arguments)
    return neutral if isinstance(raw, dict) else json.dumps(neutral, ensure_ascii=False)


def _neutral(value: Any) -> Any:
    """Every string in ``value`` (keys too) through :func:`neutral_text`."""
    return neutral_text(value) if isinstance(value, str) else map_strings(value, neutral_text)
