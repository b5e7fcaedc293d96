"""One message from a stream of ``chat.completion.chunk`` deltas (issue 32 items 1 and 5).

The OpenAI spec streams a tool call as deltas keyed by ``index``: the first carries
``id``, ``type`` and ``function.name``, the rest only pieces of
``function.arguments``, which are appended. Servers differ, each way seen in their
own code or bug trackers:

- llama.cpp's server before its May 2025 fix (ggml-org/llama.cpp#13774, #13800)
  repeated the whole name in every delta and put the id in ``function.id``;
  MiniMax behind NVIDIA NIM repeats the name too (NousResearch/hermes-agent#8259);
  vLLM repeats ``id``, ``type`` and ``name`` in the finishing delta
  (vllm-project/vllm#31438); LM Studio sends ``type`` and an empty name in every
  delta (lmstudio-ai/lmstudio-bug-tracker#649);
- Gemini-style proxies stream the name itself in pieces (continuedev/continue#5849);
- Ollama sends each call whole in one delta, with no ``index`` before v0.4.7
  (ollama/ollama#7881) and ``index: 0`` for every call after it (ollama/ollama#15457);
- two entries for one index can share a chunk (openai/openai-python#3201).

So: ``id`` and ``type`` are set once; a name is set once, the same name again is
ignored, a longer spelling that starts with it replaces it and any other piece is
appended (a name in parts); arguments are appended. A delta opens a new call when
its index is new, or when it brings another id (or, with no index, another name and
arguments of its own) after the call it would join already holds complete JSON
arguments. (openai-python's ``accumulate_delta`` appends every string but ``index``
and ``type``, names included, which is the bug the servers above trigger.)

The stream's terminal event is a choice with a ``finish_reason``. A stream that ends
without one (no terminal event, ``[DONE]`` or not, the connection closed or broken)
or with a reason that means the answer stopped early (``length``: the token limit)
is **cut off** (:attr:`StreamAccumulator.cut_off`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CUT_REASONS", "StreamAccumulator", "finish_reason", "is_cut_off"]

CUT_REASONS = frozenset({"length", "max_tokens", "content_filter", "abort", "error", "cancelled"})
"""``finish_reason`` values that mean the model stopped before its answer ended (OpenAI's
``length`` and ``content_filter``; vLLM's ``abort``; ``max_tokens``, ``error`` and
``cancelled`` of other servers). Any other reason (``stop``, ``tool_calls``,
``function_call``, TGI's ``eos_token`` / ``stop_sequence``) ends a whole answer."""


def is_cut_off(finish_reason: Any) -> bool:
    """Whether a reply that ended with ``finish_reason`` (``None``: no terminal event) is
    only the start of an answer."""
    return not isinstance(finish_reason, str) or not finish_reason or (
        finish_reason.lower() in CUT_REASONS
    )


def finish_reason(body: Any) -> str:
    """``choices[0].finish_reason`` of a whole (non-streamed) reply, ``"stop"`` when it
    gives none: the body arrived whole, so only a reason can say it was cut."""
    try:
        reason = body["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return "stop"
    return reason if isinstance(reason, str) and reason else "stop"


@dataclass
class _Call:
    """One tool call being assembled."""

    id: str = ""
    type: str = ""
    name: str = ""
    pieces: list[str] = field(default_factory=list)
    object_arguments: dict[str, Any] | None = None

    @property
    def arguments(self) -> str:
        if self.object_arguments is not None and not self.pieces:
            return json.dumps(self.object_arguments, ensure_ascii=False)
        return "".join(self.pieces)

    def complete(self) -> bool:
        """Whether its arguments already form one JSON object."""
        if self.object_arguments is not None:
            return True
        try:
            return isinstance(json.loads(self.arguments), dict)
        except (ValueError, RecursionError):
            return False

    def merge(self, part: dict[str, Any]) -> None:
        """Take one delta's fields (module docstring: which are set once, which appended)."""
        function = part.get("function") if isinstance(part.get("function"), dict) else {}
        self.id = self.id or _text(part.get("id")) or _text(function.get("id"))
        self.type = self.type or _text(part.get("type"))
        self._merge_name(_text(function.get("name")))
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            self.pieces.append(arguments)
        elif isinstance(arguments, dict):
            self.object_arguments = arguments

    def _merge_name(self, name: str) -> None:
        if not name or name == self.name:
            return  # nothing, or the whole name again
        if name.startswith(self.name):
            self.name = name  # the first spelling, or a longer one of the same name
        else:
            self.name += name  # the next piece of a name streamed in parts


class StreamAccumulator:
    """Builds one message from ``chat.completion.chunk`` deltas (SSE ``stream: true``)."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: list[_Call] = []
        self.finish_reason: str | None = None
        self._by_index: dict[int, _Call] = {}

    def add(self, chunk: dict[str, Any]) -> str:
        """Take one chunk; returns its new content text ("" when none)."""
        choice = _first_choice(chunk)
        delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
        parts = delta.get("tool_calls")
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict):
                self._slot(part).merge(part)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self.finish_reason = reason
        text = delta.get("content")
        if isinstance(text, str) and text:
            self.content.append(text)
            return text
        return ""

    @property
    def cut_off(self) -> bool:
        """True unless a terminal event ended the answer (see :func:`is_cut_off`)."""
        return is_cut_off(self.finish_reason)

    def message(self) -> dict[str, Any]:
        """The accumulated message, in the shape of a non-streamed ``message``."""
        calls = [
            {
                "id": call.id,
                "type": call.type or "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in self.calls
        ]
        return {"role": "assistant", "content": "".join(self.content), "tool_calls": calls}

    def _slot(self, part: dict[str, Any]) -> _Call:
        index = part.get("index")
        keyed = isinstance(index, int) and not isinstance(index, bool)
        current = self._by_index.get(index) if keyed else (self.calls[-1] if self.calls else None)
        if current is None or _opens_another(current, part, keyed=keyed):
            current = _Call()
            self.calls.append(current)
            if keyed:
                self._by_index[index] = current
        return current


def _opens_another(call: _Call, part: dict[str, Any], *, keyed: bool) -> bool:
    """Whether ``part`` starts a new call rather than continuing ``call`` (Ollama sends
    whole calls, all at one index or at none)."""
    if not call.complete():
        return False
    function = part.get("function") if isinstance(part.get("function"), dict) else {}
    new_id = _text(part.get("id")) or _text(function.get("id"))
    if new_id and call.id and new_id != call.id:
        return True
    arguments = function.get("arguments")
    return not keyed and bool(_text(function.get("name"))) and bool(arguments)


def _first_choice(chunk: dict[str, Any]) -> dict[str, Any]:
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        return {}
    dicts = [c for c in choices if isinstance(c, dict)]
    return next((c for c in dicts if c.get("index", 0) == 0), dicts[0] if dicts else {})


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
