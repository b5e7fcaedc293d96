"""No call markup in an answer the household reads (issue 32 item 9).

A model asked to answer sometimes writes a tool call instead, in its own template's
markup: Hermes/Qwen ``<tool_call>{…}</tool_call>``, Mistral ``[TOOL_CALLS][…]``,
Llama 3.1 ``<|python_tag|>…``, Qwen3-Coder ``<function=…>``, DeepSeek
``<(U+FF5C)tool▁calls▁begin(U+FF5C)>…``, gpt-oss ``<|channel|>commentary to=functions.…``, or a
bare call object (``{"name": …, "arguments": …}``, a leaked decision
``{"action": …}``). When such text is not read as a call (it names a tool not
offered, or sits inside prose: issue 16), it must not be shown either.

:func:`without_call_markup` removes every such span (and any special-token spelling,
:data:`~.template_tokens.SPECIAL_TOKEN`) from a reply's text and keeps the prose
around it; a reply that was nothing but markup becomes "" (the turn loop then asks
for the answer again, or says it could not put one into words). :class:`MarkupGate`
does the same for a stream: text goes out until something that may open markup
appears, and what remains of the cleaned answer goes out when it ends.

A small model also wraps its prose in a JSON object of one key, having read JSON
results before it (``{"message": "La ztl è attiva la domenica."}``).
:func:`answer_text` gives such a reply as its sentence, and :class:`MarkupGate` holds a
reply that opens with an object until it ends, so the household never reads the
braces.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .base import TokenSink
from .jsontext import sole_json_objects
from .template_tokens import SPECIAL_TOKEN

__all__ = ["MarkupGate", "answer_text", "call_spans", "without_call_markup"]

_BLOCKS: tuple[tuple[str, str | None], ...] = (
    (r"<tool_call>", r"</tool_call>"),  # Hermes, Qwen 2.5
    (r"<function_calls?>", r"</function_calls?>"),  # Claude-style, llama.cpp's wrappers
    (r"<function(?:=|\s+name=)[^>\n]*>", r"</function>"),  # Qwen3-Coder, Llama 3.x
    (r"\[TOOL_CALLS\]", None),  # Mistral: calls follow, JSON or name[ARGS]{...}
    (r"<\|python_tag\|>", r"<\|eom_id\|>|<\|eot_id\|>"),  # Llama 3.1 built-in tools
    ("<\uff5ctool\u2581calls\u2581begin\uff5c>", "<\uff5ctool\u2581calls\u2581end\uff5c>"),
    (r"<\|tool_calls?_section_begin\|>", r"<\|tool_calls?_section_end\|>"),  # Kimi
    (r"<\|tool_call_start\|>", r"<\|tool_call_end\|>"),  # LFM2
    (r"<\|channel\|>commentary\s+to=", r"<\|call\|>"),  # gpt-oss (harmony)
    (r"\bto=functions\.[A-Za-z0-9_.-]+", r"<\|call\|>"),
)
"""Each template family's call block: its opening mark and its closing one (``None``:
none). A block runs to its closing mark; without one, over the calls that follow it
(JSON values, each maybe after ``name[ARGS]``), or else to the end of its line."""
_OPENERS = [re.compile(opener) for opener, _ in _BLOCKS]
_CLOSERS = [re.compile(closer) if closer else None for _, closer in _BLOCKS]
_HEADER = re.compile(
    r"(?:<\|start\|>|<\|im_start\|>|<start_of_turn>|<\|start_header_id\|>)[ \t]*"
    r"(?:system|user|assistant|model|tool|ipython|developer)\b(?:<\|end_header_id\|>)?"
)
"""A turn's header: the role after its opening token goes with it."""
_CALL_NAME = re.compile(r"\s*[A-Za-z0-9_.-]+\[ARGS\]")
_EMPTY_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?\s*```")
_CALL_KEYS = frozenset({"name", "action", "tool", "tool_name", "function", "recipient_name"})
_ARGUMENT_KEYS = frozenset({"arguments", "parameters", "args", "input", "tool_input", "tool_args"})
_DECODER = json.JSONDecoder()
SCAN_BUDGET = 400
"""Failed JSON starts tried per text, so a reply full of braces costs linear time."""


def answer_text(text: str) -> str:
    """The text of a reply the household reads: ``text`` without call markup
    (:func:`without_call_markup`); a reply that is nothing but one JSON object of one
    key holding a string (in a code fence or not) is that string, stripped.

    An object of more keys, or of another value, is kept as written: it may be what
    the person asked for ("give me my shopping list as JSON").
    """
    text = without_call_markup(text)
    objects = sole_json_objects(text) if text.lstrip()[:1] in ("{", "`") else []
    if len(objects) == 1 and len(objects[0]) == 1:
        (value,) = objects[0].values()
        if isinstance(value, str) and value.strip():
            return value.strip()
    return text


def without_call_markup(text: str) -> str:
    """``text`` without any call markup or call object; "" when nothing else was there.

    The prose before the first removed span is left exactly as it was (so a stream
    that showed it can go on from it); whitespace after a span goes with it, code
    fences left empty go too.
    """
    spans = call_spans(text)
    if not spans:
        return text
    kept, position = [], 0
    for start, end in spans:
        kept.append(text[position:start])
        position = len(text) - len(text[end:].lstrip(" \t"))
    kept.append(text[position:])
    cleaned = _EMPTY_FENCE.sub("", "".join(kept))
    return cleaned if cleaned.strip() else ""


def call_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every piece of call markup in ``text``, in order, not overlapping:
    template call blocks, special-token spellings, call objects (or lists of them, a
    doubled brace included) and JSON string literals that hold one."""
    spans = _block_spans(text)
    spans += [m.span() for m in _HEADER.finditer(text) if not _inside(m.start(), spans)]
    spans += [m.span() for m in SPECIAL_TOKEN.finditer(text) if not _inside(m.start(), spans)]
    spans += _object_spans(text, spans)
    return _merged(spans)


def _block_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for opener, closer in zip(_OPENERS, _CLOSERS, strict=True):
        for match in opener.finditer(text):
            if not _inside(match.start(), spans):
                spans.append((match.start(), _block_end(text, match.end(), closer)))
    return spans


def _block_end(text: str, position: int, closer: re.Pattern[str] | None) -> int:
    """Where a block opened before ``position`` ends (see :data:`_BLOCKS`)."""
    end = _calls_end(text, position)
    if closer is not None:
        closed = closer.search(text, end if end is not None else position)
        if closed is not None and (end is None or not text[end : closed.start()].strip()):
            return closed.end()
    if end is not None:
        return end
    line_end = text.find("\n", position)
    return len(text) if line_end < 0 else line_end


def _calls_end(text: str, position: int) -> int | None:
    """The end of the JSON values (each maybe after ``name[ARGS]``) right at ``position``."""
    end = None
    while True:
        named = _CALL_NAME.match(text, position)
        start = named.end() if named else position
        start += len(text[start:]) - len(text[start:].lstrip())
        if not text.startswith(("{", "["), start):
            return end
        try:
            _value, position = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            return end
        end = position


def _object_spans(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    budget, position = SCAN_BUDGET, 0
    while budget > 0 and (match := _VALUE_START.search(text, position)) is not None:
        start = match.start()
        position = start + 1
        if _inside(start, taken) or _inside(start, found):
            continue
        end, read = _call_value_end(text, start)
        if end is not None:
            found.append((start, end))
            position = end
        elif read is not None:
            position = read  # a value that is no call: read past it, at no cost
        else:
            budget -= 1
    return found


_VALUE_START = re.compile(r'[{\["]')


def _call_value_end(text: str, start: int) -> tuple[int | None, int | None]:
    """``(end, None)`` of a call object (or list of them, or string holding one) at
    ``start``; ``(None, end)`` of a JSON string there that is no call; ``(None, None)``."""
    for offset in (0, 1) if text.startswith("{{", start) else (0,):
        try:
            value, end = _DECODER.raw_decode(text, start + offset)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, str):
            inner = value.strip()
            whole = inner[:1] in ("{", "[") and call_spans(inner) == [(0, len(inner))]
            return (end, None) if whole else (None, end)
        if _is_call(value) or (isinstance(value, list) and value and all(map(_is_call, value))):
            while text.startswith("}", end) and offset:
                end, offset = end + 1, offset - 1  # the doubled brace's closer
            return end, None
        return None, None
    return None, None


def _is_call(value: Any) -> bool:
    """Whether ``value`` is written as a call (or a decision): a tool's name beside its
    arguments, ``{"function": {...}}``, ``{"type": "function", ...}`` or ``{"action": ...}``."""
    if not isinstance(value, dict) or not value:
        return False
    if isinstance(value.get("function"), dict) or value.get("type") == "function":
        return True
    if isinstance(value.get("tool_calls"), list):
        return True
    named = bool(_CALL_KEYS & set(value))
    if isinstance(value.get("action"), str) and set(value) <= {"action", "arguments"}:
        return True
    return named and bool(_ARGUMENT_KEYS & set(value))


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


HOLD_CHARACTERS = 48
"""How much text after a character that may open markup (``<``, ``[``, ``{``, ``"``,
a fence) is held back until it is known whether markup starts there."""
_MAY_OPEN = re.compile(r'[<\[{"`]')
_KEY = r'"(?:name|action|tool|tool_name|function|tool_calls|type|recipient_name)"\s*:'
_OPENS = re.compile(
    "|".join(
        [
            r"<tool_call>|<function_calls?>|<function(?:=|\s+name=)|\[TOOL_CALLS\]",
            r"<\|channel\|>commentary",
            SPECIAL_TOKEN.pattern,
            rf"\{{+\s*{_KEY}",  # a call object
            rf"\[\s*\{{+\s*{_KEY}",  # a list of them
            r'"\s*\{+\s*\\"(?:name|action|function)\\"',  # one written inside a string
            rf"```[A-Za-z0-9_-]*\s*\[?\s*\{{+\s*{_KEY}",  # one in a code fence
        ]
    )
)
"""Starts of markup, as :class:`MarkupGate` sees them before the markup is whole."""
_OPENS_OBJECT = re.compile(r'(?:```[A-Za-z0-9_-]*\s*)?\{+\s*"')
"""A JSON object (maybe fenced) opening a reply: it may wrap the reply's prose
(:func:`answer_text`)."""


@dataclass
class MarkupGate:
    """Passes streamed answer text to ``sink``, never call markup (see the module).

    Text goes out up to the first place where markup may start; there it waits for up
    to :data:`HOLD_CHARACTERS` more, then either goes on (no markup starts there) or
    stops for good (:data:`_OPENS` matched: markup, or JSON that may be a call; or a
    JSON object opens the reply: it may wrap the prose, :func:`answer_text`).
    :meth:`finish` then sends what the cleaned answer holds beyond what went out, so
    everything of the answer the household should read has gone through ``sink`` once
    the reply is complete.
    """

    sink: TokenSink
    sent: str = ""
    """The text that went out so far."""
    _held: str = ""
    _stopped: bool = field(default=False, repr=False)

    async def __call__(self, piece: str) -> None:
        """Take the next piece of answer text."""
        if self._stopped:
            return
        self._held += piece
        ready = self._ready()
        if ready:
            self.sent += ready
            await self.sink(ready)

    async def finish(self, answer: str) -> None:
        """Send what ``answer`` (the reply's cleaned text) holds beyond what went out."""
        self._held, self._stopped = "", True
        if answer.startswith(self.sent) and len(answer) > len(self.sent):
            rest = answer[len(self.sent) :]
            self.sent += rest
            await self.sink(rest)

    def _ready(self) -> str:
        """Take from the held text what is certainly no markup (stopping at markup)."""
        position = 0
        while (match := _MAY_OPEN.search(self._held, position)) is not None:
            tail = self._held[match.start() :]
            opening = not self.sent and not self._held[: match.start()].strip()
            if _OPENS.match(tail) or (opening and _OPENS_OBJECT.match(tail)):
                self._stopped = True
                break
            if len(tail) < HOLD_CHARACTERS:
                break
            position = match.start() + 1
        cut = match.start() if match is not None else len(self._held)
        if not self.sent and not self._held[:cut].strip():
            return ""  # only blanks so far: what opens the reply is not known yet
        ready, self._held = self._held[:cut], self._held[cut:]
        return ready
