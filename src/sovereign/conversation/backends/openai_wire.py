"""OpenAI chat-completions wire format: requests out, replies normalised in (issue 5).

Pure functions, no I/O. The quirks handled, each seen in captured replies of
llama-server and llama-cpp-python's server (``fixtures/llm/``):

- ``arguments`` given as a JSON string or as an object; "" or null means ``{}``;
- ``content`` "" or null;
- call ids missing or empty (``call_<n>`` is given instead);
- calls written as JSON in ``content`` (fenced, in ``<tool_call>`` tags, with
  doubled braces, ``{"name", "arguments"}`` or ``{"function": {...}}``), read
  only when they name a declared tool;
- several calls in one reply;
- arguments that are not JSON → ``ToolCall.arguments=None`` with ``parse_error``;
- history is sent with ``content: ""`` (never null) and arguments as JSON text,
  so llama-server never sees unparseable history (it answers that with a 500).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .base import Message, ModelReply, ToolCall, ToolDefinition
from .jsontext import json_objects, parse_arguments


def wire_messages(messages: list[Message]) -> list[Message]:
    """``messages`` made safe to send: null content → "", arguments → JSON object text."""
    sent = []
    for message in messages:
        out = {**message, "content": message.get("content") or ""}
        if message.get("tool_calls"):
            out["tool_calls"] = [
                _wire_call(call, n) for n, call in enumerate(message["tool_calls"])
            ]
        else:
            out.pop("tool_calls", None)
        sent.append(out)
    return sent


def reply_from_message(message: dict[str, Any], tools: list[ToolDefinition] | None) -> ModelReply:
    """Normalise one ``choices[0].message`` into a :class:`ModelReply`.

    Structured ``tool_calls`` win; otherwise, when tools were offered, calls
    written as JSON in ``content`` are read (only for declared tools) and the
    content is then not treated as prose.
    """
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = ""
    structured = message.get("tool_calls") or []
    calls = [_structured_call(call, n) for n, call in enumerate(structured, 1)]
    calls = [call for call in calls if call is not None]
    if not calls and tools and content:
        calls = content_calls(content, tools)
        if calls:
            content = ""
    return ModelReply(content=content, tool_calls=tuple(calls))


def content_calls(content: str, tools: list[ToolDefinition]) -> list[ToolCall]:
    """Calls a model wrote as JSON text, kept only when they name a declared tool."""
    declared = {tool["function"]["name"] for tool in tools}
    calls = []
    for obj in json_objects(content):
        function = obj.get("function") if isinstance(obj.get("function"), dict) else obj
        name = function.get("name")
        if isinstance(name, str) and name in declared:
            arguments, problem = parse_arguments(
                function.get("arguments", function.get("parameters"))
            )
            calls.append(ToolCall(f"call_{len(calls) + 1}", name, arguments, problem))
    return calls


@dataclass
class StreamAccumulator:
    """Builds one message from ``chat.completion.chunk`` deltas (SSE ``stream: true``)."""

    content: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)

    def add(self, chunk: dict[str, Any]) -> str:
        """Take one chunk; returns its new content text ("" when none)."""
        choices = chunk.get("choices") or [{}]
        delta = choices[0].get("delta") or {}
        for part in delta.get("tool_calls") or []:
            slot = self.calls.setdefault(part.get("index", 0), {"id": "", "name": "", "args": ""})
            function = part.get("function") or {}
            slot["id"] = part.get("id") or slot["id"]
            slot["name"] += function.get("name") or ""
            slot["args"] += function.get("arguments") or ""
        text = delta.get("content") or ""
        if isinstance(text, str) and text:
            self.content.append(text)
            return text
        return ""

    def message(self) -> dict[str, Any]:
        """The accumulated message, in the shape of a non-streamed ``message``."""
        calls = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["args"]},
            }
            for _, c in sorted(self.calls.items())
        ]
        return {"role": "assistant", "content": "".join(self.content), "tool_calls": calls}


def _structured_call(call: dict[str, Any], number: int) -> ToolCall | None:
    function = call.get("function") or {}
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return None
    arguments, problem = parse_arguments(function.get("arguments"))
    call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
    return ToolCall(call_id or f"call_{number}", name, arguments, problem)


def _wire_call(call: dict[str, Any], number: int) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments, _ = parse_arguments(function.get("arguments"))
    return {
        "id": call.get("id") or f"call_{number + 1}",
        "type": "function",
        "function": {
            "name": function.get("name", ""),
            "arguments": json.dumps(arguments or {}, ensure_ascii=False),
        },
    }
