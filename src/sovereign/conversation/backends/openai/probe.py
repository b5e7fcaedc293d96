"""What an OpenAI-compatible server can do, found by asking it, and the tool plan that follows.

Servers that speak chat completions differ where it matters here (issue 20):

- ``response_format``: llama-server, Ollama and vLLM constrain output to
  ``{"type": "json_schema", "json_schema": {"schema": ...}}``; llama-cpp-python's
  server refuses that (HTTP 500) and takes ``{"type": "json_object", "schema":
  ...}`` instead; some servers ignore both.
- streaming: most answer ``stream: true`` with server-sent events; some send one
  JSON body.
- tools: a server with a tool-call parser for its model returns ``tool_calls``;
  others pass the tools to the chat template and the model writes its call as
  text in ``content`` (llama-cpp-python's default chat format, a small model on
  llama-server); a few refuse ``tools`` outright.

:func:`probe_server` finds out with a handful of small requests (greedy, a few
tokens each) and :func:`choose_plan` turns the answers into a :class:`ToolPlan`. A
feature counts only when the reply shows it: a schema must actually have
constrained the output, a call must actually come back as ``tool_calls``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..base import ModelError
from ..jsontext import sole_json_objects
from .http import ChatClient, first_message

ResponseFormat = Literal["json_schema", "json_object"]
ToolCallStyle = Literal["structured", "text", "refused"]
RequestedMode = Literal["auto", "native", "schema"]

PROBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ready": {"enum": ["yes"]}},
    "required": ["ready"],
    "additionalProperties": False,
}
"""A schema no unconstrained model meets when asked to say hello."""
PROBE_ANSWER = {"ready": "yes"}
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "report_ready",
        "description": "Report that you are ready. Takes no arguments.",
        "parameters": {"type": "object", "properties": {}},
    },
}
_HELLO = [{"role": "user", "content": "Say hello."}]
CALL_IT_PHRASINGS = (
    [
        {"role": "system", "content": "You can call functions. When asked for one, call it."},
        {"role": "user", "content": "Call the function report_ready now."},
    ],
    [{"role": "user", "content": "Call the tool report_ready now."}],
)
"""Two ways to ask for the probe's call. A small model behind a server that parses
calls may still answer in prose to one wording (Qwen2.5-1.5B under llama-cpp-python's
``chatml-function-calling`` answers an empty message to "You can call tools ..."), so
the second is tried before concluding that calls come back as text."""


NOTES = {
    "format_refused": "response_format {flavour}: refused ({error})",
    "format_constrains": "response_format {flavour}: constrains the output",
    "format_ignored": "response_format {flavour}: accepted but ignored",
    "stream_refused": "streaming: refused ({error})",
    "stream_events": "streaming: server-sent events",
    "stream_whole": "streaming: one JSON reply",
    "tools_refused": "tools: refused ({error})",
    "tools_structured": "tools: the call came back as tool_calls",
    "tools_text": "tools: accepted, the call came back as text",
}
"""What one probe showed, by key, in English (``{error}``: the server's refusal as it
wrote it). ``sovereign doctor`` says each from its catalog (context ``probe:<key>``)."""
REASONS = {
    "constraint": "decisions constrained by response_format {flavour}",
    "no_constraint": "no response_format constrained the output, so decisions are asked "
    "for in words",
    "calls_structured": "the server returns tool_calls",
    "calls_text": "the model writes its calls as text, read only when the reply is nothing "
    "else",
    "calls_refused": "the server refused a request with tools",
    "chose_schema": "schema mode was chosen by --tool-mode; {constraint}",
    "chose_native": "native mode was chosen by --tool-mode; {calls}",
    "auto_calls": "auto: {calls}",
    "auto_constraint": "auto: {constraint} ({calls})",
    "auto_calls_constraint": "auto: {calls}; {constraint}",
}
"""Why a plan was chosen, by key, in English: a case (``chose_*``, ``auto_*``) filled with
what constrains decisions (``constraint``, ``no_constraint``) and how calls come back
(``calls_*``). ``sovereign doctor`` says each from its catalog (context ``plan:<key>``)."""

Probed = tuple[str, Mapping[str, str]]
"""One probe's note: its key of :data:`NOTES` and what fills it."""


@dataclass(frozen=True)
class ServerFeatures:
    """What one server showed it can do.

    Attributes:
        response_format: the ``response_format`` flavour that constrained its
            output (``json_schema`` preferred), or ``None``.
        streams: whether ``stream: true`` came back as server-sent events.
        tool_calls: ``structured`` (calls come back as ``tool_calls``), ``text``
            (``tools`` accepted, but the call came back as content) or
            ``refused`` (the request with ``tools`` failed).
        probed: one note per probe (:data:`Probed`), for ``sovereign doctor``.
    """

    response_format: ResponseFormat | None
    streams: bool
    tool_calls: ToolCallStyle
    probed: tuple[Probed, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """One English sentence per probe (:data:`NOTES`)."""
        return tuple(NOTES[key].format(**values) for key, values in self.probed)


@dataclass(frozen=True)
class ToolPlan:
    """How the backend asks this server for tool choices and answers.

    Attributes:
        mode: ``native`` (``tools`` in the request) or ``schema`` (one
            JSON-schema-constrained decision, then a prose answer).
        response_format: the constraint sent with schema-mode decisions, or
            ``None`` (the decision is asked for in words only).
        history: how earlier calls are sent in native mode: ``openai``
            (structured ``tool_calls`` with JSON-string arguments) or ``text``
            (as the call text the model wrote; see ``text_call_messages``).
        stream: whether answers are requested with ``stream: true``.
        why: the keys of :data:`REASONS` that say why, for ``sovereign doctor``: the
            case, what constrains decisions and how calls come back.
    """

    mode: Literal["native", "schema"]
    response_format: ResponseFormat | None
    history: Literal["openai", "text"]
    stream: bool
    why: tuple[str, str, str]

    @property
    def reason(self) -> str:
        """Why, in one English sentence (:data:`REASONS`)."""
        case, constraint, calls = self.why
        flavour = {"flavour": self.response_format or ""}
        return REASONS[case].format(
            constraint=REASONS[constraint].format(**flavour),
            calls=REASONS[calls].format(**flavour),
        )


async def probe_server(client: ChatClient, model: str) -> ServerFeatures:
    """Ask the server a handful of small questions (see the module docstring).

    Args:
        client: the server's chat-completions endpoint.
        model: the model name sent with each probe.

    Returns:
        The :class:`ServerFeatures` it showed.

    Raises:
        ModelUnavailable: the server cannot be reached or timed out (nothing
            is learnt; probe again later).
    """
    formats: list[ResponseFormat] = ["json_schema", "json_object"]
    notes: list[Probed] = []
    chosen: ResponseFormat | None = None
    for flavour in formats:
        if await _constrains(client, model, flavour, notes):
            chosen = flavour
            break
    streams = await _streams(client, model, notes)
    tool_calls = await _tool_call_style(client, model, notes)
    return ServerFeatures(chosen, streams, tool_calls, tuple(notes))


def choose_plan(features: ServerFeatures, requested: RequestedMode = "auto") -> ToolPlan:
    """The plan for ``features``; ``requested`` other than ``auto`` fixes the mode.

    ``auto`` prefers, in order: ``native`` when calls come back as
    ``tool_calls`` (the server has a parser for this model, one request per
    round); ``schema`` when a ``response_format`` constrains the decision (any
    model then writes a well-formed choice); ``native`` reading calls from text
    when ``tools`` are accepted; else ``schema`` asked in words only.
    """
    history: Literal["openai", "text"] = "openai" if features.tool_calls == "structured" else "text"
    mode, case = _mode_and_case(features, requested)
    constraint = "constraint" if features.response_format else "no_constraint"
    why = (case, constraint, f"calls_{features.tool_calls}")
    return ToolPlan(mode, features.response_format, history, features.streams, why)


def _mode_and_case(
    features: ServerFeatures, requested: RequestedMode
) -> tuple[Literal["native", "schema"], str]:
    if requested == "schema":
        return "schema", "chose_schema"
    if requested == "native":
        return "native", "chose_native"
    if features.tool_calls == "structured":
        return "native", "auto_calls"
    if features.response_format:
        return "schema", "auto_constraint"
    if features.tool_calls == "text":
        return "native", "auto_calls_constraint"
    return "schema", "auto_calls_constraint"


async def _constrains(
    client: ChatClient, model: str, flavour: ResponseFormat, notes: list[Probed]
) -> bool:
    payload = _probe(model, _HELLO, max_tokens=24)
    payload["response_format"] = response_format(flavour, PROBE_SCHEMA)
    try:
        content = first_message(await client.post(payload)).get("content") or ""
    except ModelError as exc:  # includes ModelRejected: the server refused this flavour
        notes.append(("format_refused", {"flavour": flavour, "error": str(exc)}))
        return False
    if sole_json_objects(content) == [PROBE_ANSWER]:
        notes.append(("format_constrains", {"flavour": flavour}))
        return True
    notes.append(("format_ignored", {"flavour": flavour}))
    return False


async def _streams(client: ChatClient, model: str, notes: list[Probed]) -> bool:
    events = 0
    try:
        async for chunk in client.stream(_probe(model, _HELLO, max_tokens=4)):
            events += chunk.get("object") != "chat.completion"
    except ModelError as exc:
        notes.append(("stream_refused", {"error": str(exc)}))
        return False
    notes.append(("stream_events" if events else "stream_whole", {}))
    return events > 0


async def _tool_call_style(
    client: ChatClient, model: str, notes: list[Probed]
) -> ToolCallStyle:
    for messages in CALL_IT_PHRASINGS:
        payload = _probe(model, messages, max_tokens=48)
        payload.update(tools=[PROBE_TOOL], tool_choice="auto")
        try:
            message = first_message(await client.post(payload))
        except ModelError as exc:
            notes.append(("tools_refused", {"error": str(exc)}))
            return "refused"
        names = [(c.get("function") or {}).get("name") for c in message.get("tool_calls") or []]
        if PROBE_TOOL["function"]["name"] in names:
            notes.append(("tools_structured", {}))
            return "structured"
    notes.append(("tools_text", {}))
    return "text"


def response_format(flavour: ResponseFormat, schema: dict[str, Any]) -> dict[str, Any]:
    """The ``response_format`` object of ``flavour`` constraining output to ``schema``."""
    if flavour == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "decision", "strict": True, "schema": schema},
        }
    return {"type": "json_object", "schema": schema}


def _probe(model: str, messages: list[dict[str, str]], *, max_tokens: int) -> dict[str, Any]:
    return {"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0}
