"""OpenAI chat-completions wire format: requests out, replies normalised in (issue 5).

Pure functions, no I/O. The quirks handled, each seen in captured replies of
llama-server and llama-cpp-python's server (``fixtures/llm/``):

- ``arguments`` given as a JSON string or as an object; "" or null means ``{}``;
- ``content`` "" or null;
- call ids missing or empty (``call_<n>`` is given instead);
- calls written as JSON in ``content`` (fenced, in ``<tool_call>`` tags, with
  doubled braces, ``{"name", "arguments"}`` or ``{"function": {...}}``), read
  only when the content is nothing but calls of declared tools, and never when
  a call is one a tool's result wrote (issue 16: JSON quoted in prose, or a page
  that spells a call, is no call), and then taken out of the text shown (issue 32:
  the household never reads call markup);
- several calls in one reply (their stream deltas merged by :mod:`.deltas`);
- arguments that are not JSON → ``ToolCall.arguments=None`` with ``parse_error``;
- history is sent with ``content: ""`` (never null) and arguments as JSON text,
  so llama-server never sees unparseable history (it answers that with a 500);
  for a server whose model writes its calls as text, :func:`text_call_messages`
  sends them back as that text instead (see there why).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..base import Message, ModelReply, TokenSink, ToolCall, ToolDefinition
from ..call_markup import answer_text
from ..jsontext import parse_arguments, sole_json_objects
from ..quoted_calls import call_shape, canonical_arguments, quoted_calls


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


def system_first(messages: list[Message]) -> list[Message]:
    """``messages`` with every system message folded into one at the start (in order,
    a blank line apart): many chat templates (Mistral's, Gemma's) refuse a system
    message after the conversation began, and the turn loop puts a round's notes
    last (see :mod:`..parts`)."""
    systems = [m for m in messages if m.get("role") == "system"]
    if not systems or (len(systems) == 1 and messages[0] is systems[0]):
        return list(messages)
    text = "\n\n".join(str(m.get("content") or "") for m in systems)
    return [{"role": "system", "content": text}, *(m for m in messages if m not in systems)]


def text_call_messages(messages: list[Message]) -> list[Message]:
    """History for a server whose model writes its calls as text in ``content``.

    Each earlier call goes back as the text such a model writes, one
    ``{"name": ..., "arguments": {...}}`` object per line, and each result as a
    ``user`` message between ``<tool_response>`` tags (what Qwen-style templates
    render a ``tool`` message as). Sent as structured ``tool_calls`` instead,
    the arguments are JSON-encoded twice: llama-cpp-python's server accepts only
    string arguments and its chat templates apply ``tojson`` to them again
    (``"arguments": "{\\"query\\": ...}"``). llama-server parses the string first
    (minja's object-argument polyfill), so :func:`wire_messages` suits servers
    that return structured calls.

    Returns:
        A new list of ``{"role", "content"}`` dicts; content is never null.
    """
    sent: list[Message] = []
    results_open = False
    for message in messages:
        role = message.get("role")
        if role == "tool":
            text = f"<tool_response>\n{message.get('content') or ''}\n</tool_response>"
            if results_open:
                sent[-1]["content"] += f"\n{text}"
            else:
                sent.append({"role": "user", "content": text})
            results_open = True
            continue
        results_open = False
        if role == "assistant" and message.get("tool_calls"):
            sent.append({"role": "assistant", "content": _calls_text(message)})
        else:
            sent.append({"role": role, "content": message.get("content") or ""})
    return sent


def reply_from_message(
    message: dict[str, Any],
    tools: list[ToolDefinition] | None,
    context: list[Message] | None = None,
    *,
    cut_off: bool = False,
) -> ModelReply:
    """Normalise one ``choices[0].message`` into a :class:`ModelReply`.

    Structured ``tool_calls`` win; otherwise, when tools were offered, calls
    written in ``content`` are read by :func:`content_calls` and the content is
    then not treated as prose. Whatever call markup or call object the content
    still holds (a tool not offered, a call inside prose) is taken out of it
    (:func:`~..call_markup.answer_text`): the household never reads it, nor braces
    around prose.

    Args:
        message: the server's message object.
        tools: the tools that were offered, or ``None``.
        context: the conversation the reply answers; calls that its ``tool``
            results spell out are never read from ``content``.
        cut_off: the model did not finish (no terminal event, or its token limit): only
            calls it finished count (arguments that are one whole JSON object; a model
            may pad a finished call until its limit), and the reply says it was cut off.
    """
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = ""
    structured = message.get("tool_calls") or []
    if not isinstance(structured, list):
        structured = []
    if cut_off:
        structured = [call for call in structured if _finished(call)]
    calls = [_structured_call(call, n) for n, call in enumerate(structured, 1)]
    calls = [call for call in calls if call is not None]
    if not calls and tools and content:
        calls = content_calls(content, tools, context)
        if calls:
            content = ""
    return ModelReply(content=answer_text(content), tool_calls=tuple(calls), cut_off=cut_off)


def _finished(call: Any) -> bool:
    """Whether a call of a cut-off reply was written to its end: its arguments are an
    object, or JSON text of one (not "", which a stream has before the first piece)."""
    function = call.get("function") if isinstance(call, dict) else None
    raw = function.get("arguments") if isinstance(function, dict) else None
    if isinstance(raw, dict):
        return True
    return isinstance(raw, str) and bool(raw.strip()) and parse_arguments(raw)[1] is None


def content_calls(
    content: str, tools: list[ToolDefinition], context: list[Message] | None = None
) -> list[ToolCall]:
    """Calls a model wrote as JSON text, or ``[]`` when ``content`` is not only calls.

    ``content`` must consist of calls and nothing else (see
    :func:`~.jsontext.sole_json_objects`), every one naming a declared tool, and
    none may be a call that a ``tool`` message of ``context`` spells out (a page
    or snippet written to look like a call): otherwise nothing is promoted and
    the text stays prose.
    """
    declared = {tool["function"]["name"] for tool in tools}
    shapes = [call_shape(obj) for obj in sole_json_objects(content)]
    if not shapes or any(not isinstance(name, str) or name not in declared for name, _ in shapes):
        return []
    quoted = quoted_calls(context or [])
    calls = []
    for name, raw in shapes:
        arguments, problem = parse_arguments(raw)
        if (name, canonical_arguments(arguments)) in quoted:
            return []
        calls.append(ToolCall(f"call_{len(calls) + 1}", name, arguments, problem))
    return calls


CALL_OPENERS = frozenset("{[<`")
"""First characters with which a reply may be a call written as text (JSON, a fence, a tag)."""


@dataclass
class ProseGate:
    """Passes streamed content to ``sink`` once it is certainly prose, not a call.

    With ``hold`` (tools were offered), text waits until its first visible
    character: one of :data:`CALL_OPENERS` means the reply may be a call, so
    nothing is forwarded (the turn loop shows it at the end if it was prose);
    anything else can never be read as a call (:func:`content_calls` needs the
    content to be nothing but calls), so it and everything after it go out at
    once. A structured call starting closes an undecided gate. Without
    ``hold``, everything goes out.
    """

    sink: TokenSink
    hold: bool
    state: str = "undecided"
    _waiting: list[str] = field(default_factory=list)

    @property
    def streamed(self) -> bool:
        """True once content went to the sink (and all later content does)."""
        return self.state == "open"

    async def feed(self, text: str, *, calls_started: bool = False) -> None:
        """Take the next piece of content (``calls_started``: a ``tool_calls`` delta came)."""
        if self.state == "undecided" and (calls_started or not self.hold):
            self.state = "closed" if calls_started else "open"
        if self.state == "open":
            if text:
                await self.sink(text)
            return
        if self.state == "closed":
            return
        self._waiting.append(text)
        head = "".join(self._waiting).lstrip()
        if head:
            self.state = "closed" if head[0] in CALL_OPENERS else "open"
            if self.state == "open":
                await self.sink("".join(self._waiting))


def _structured_call(call: Any, number: int) -> ToolCall | None:
    if not isinstance(call, dict):
        return None
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
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


def _calls_text(message: Message) -> str:
    lines = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        arguments, _ = parse_arguments(function.get("arguments"))
        call_text = {"name": function.get("name", ""), "arguments": arguments or {}}
        lines.append(json.dumps(call_text, ensure_ascii=False))
    return "\n".join(lines)
