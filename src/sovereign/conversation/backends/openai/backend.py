"""A model behind an OpenAI-compatible HTTP server (issues 5 and 20, DESIGN §4).

llama-server (the appliance's default, on 127.0.0.1:8081), llama-cpp-python's
server, Ollama and vLLM all speak ``POST {base_url}/chat/completions``, each a
little differently. The backend first asks the server what it can do
(:mod:`.openai_probe`, once, cached; :meth:`OpenAIBackend.refresh` or a refused
request makes it ask again) and then chooses tools one of two ways:

- ``native``: the server's own tool calling (``tools``, ``tool_choice: auto``);
  replies are normalised by :mod:`.openai_wire`, earlier calls are sent the way
  that server's template reads them (structured, or as the text the model wrote).
- ``schema``: the JSON-schema-constrained decision of :mod:`.decision`, sent
  in the ``response_format`` flavour the server accepts. Small models choose
  far better this way.

``auto`` (the default) picks one from what the server showed; see
:func:`~.openai_probe.choose_plan`. Every schema the server compiles into a
grammar (the decision, the tools' parameters) is
:func:`~.grammar_schema.grammar_schema` of it. Answers stream (``stream:
true``) from any server that streams, native-mode rounds included: their text
goes out as soon as it is certainly prose (:class:`~.openai_wire.ProseGate`).
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import aclosing
from dataclasses import replace
from typing import Any, get_args

import httpx

from ..base import (
    BackendProgress,
    ContextTooLong,
    Message,
    ModelRejected,
    ModelReply,
    TokenSink,
    ToolChoice,
    ToolDefinition,
    only_forced,
)
from ..call_markup import MarkupGate
from ..decision import (
    answer_messages,
    decision_messages,
    decision_or_cut_off,
    decision_schema,
)
from ..grammar_schema import grammar_schema
from ..repeats import loop_cut
from ..template_tokens import prompt_messages, prompt_tools
from .deltas import StreamAccumulator, finish_reason, is_cut_off
from .http import ChatClient, first_message
from .probe import (
    RequestedMode,
    ServerFeatures,
    ToolPlan,
    choose_plan,
    probe_server,
    response_format,
)
from .wire import (
    ProseGate,
    reply_from_message,
    system_first,
    text_call_messages,
    wire_messages,
)

DEFAULT_BASE_URL = "http://127.0.0.1:8081/v1"
"""llama-server on the appliance (DESIGN §6)."""
logger = logging.getLogger(__name__)

MODES: tuple[str, ...] = get_args(RequestedMode)


class OpenAIBackend:
    """:class:`~.base.ModelBackend` for an OpenAI-compatible chat-completions server.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8081/v1``.
        model: the model name the server expects (llama-server accepts any).
        mode: ``"auto"`` (default), ``"native"`` or ``"schema"`` (module docstring).
        timeout_seconds: deadline for connecting and for each read, in seconds.
        max_tokens: cap on generated tokens per request.
        temperature: sampling temperature.
        api_key: sent as a bearer token when set (for servers that need one).
        transport: an httpx transport (tests); default: a plain connection,
            ignoring proxy environment variables.
        features: what the server can do, when known (tests); default: probe it
            on first use, and again after a refused request.

    Errors (from :meth:`complete`), each with our own sentence (the server's text
    is logged, shortened): :class:`~.base.ModelUnavailable` when the server
    cannot be reached, times out or says it is not ready (503, 429);
    :class:`~.base.ModelRejected` for any other HTTP error status (not worth a
    retry); :class:`~.base.ModelError` for a 200 whose content is unusable.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        model: str = "local",
        *,
        mode: str = "auto",
        timeout_seconds: float = 120.0,
        max_tokens: int = 512,
        temperature: float = 0.2,
        api_key: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        features: ServerFeatures | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.http = ChatClient(
            base_url, timeout_seconds=timeout_seconds, api_key=api_key, transport=transport
        )
        self.url = self.http.url
        self.model, self.mode = model, mode
        self._sampling = {"max_tokens": max_tokens, "temperature": temperature}
        self._features = features
        self._pinned = features is not None
        self._probing = asyncio.Lock()
        self._refuses_required = False
        """The server refused a native request with ``tool_choice: "required"`` (not every
        server takes it: llama-cpp-python's answers HTTP 500): such requests say "auto"."""

    async def plan(self, *, refresh: bool = False) -> ToolPlan:
        """The tool plan for this server, probing it first when not yet known.

        Raises:
            ModelUnavailable: the server cannot be reached (nothing is cached).
        """
        async with self._probing:
            if refresh or self._features is None:
                self._features = await probe_server(self.http, self.model)
            return choose_plan(self._features, self.mode)  # type: ignore[arg-type]

    @property
    def features(self) -> ServerFeatures | None:
        """What the server showed it can do, once probed (``None`` before)."""
        return self._features

    def refresh(self) -> None:
        """Forget what the server can do; the next request probes it again."""
        self._features = None
        self._refuses_required = False

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolDefinition] | None,
        on_token: TokenSink | None = None,
        on_progress: BackendProgress | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> ModelReply:
        """Ask once; see :meth:`ModelBackend.complete <.base.ModelBackend.complete>`.

        Every text goes through :func:`~..template_tokens.prompt_messages` first (valid,
        special-token spellings neutralised). Schema-mode decisions are never streamed;
        everything else streams into ``on_token`` when the server streams and a sink is
        given, never call markup (:class:`~..call_markup.MarkupGate`). A reply the model
        did not finish (no terminal event, ``finish_reason: "length"``) comes back with
        ``cut_off`` set and no calls. ``on_progress`` is not used: a server does not say
        whether it queues a request.
        """
        plan = await self.plan()
        tools, tool_choice = only_forced(tools, tool_choice)
        asked, offered = prompt_messages(messages), prompt_tools(tools)
        native_required = bool(plan.mode == "native" and offered and tool_choice == "required")
        if native_required and self._refuses_required:
            tool_choice, native_required = "auto", False
        try:
            return await self._ask(asked, offered, plan, tool_choice, on_token)
        except ContextTooLong:
            raise
        except ModelRejected:
            if native_required:  # asked as before, where the model may also answer in prose
                logger.info("the model server refused tool_choice required; asking with auto")
                self._refuses_required = True
                return await self._ask(asked, offered, plan, "auto", on_token)
            if not self._pinned:
                self.refresh()  # the server may have changed under us: ask it again next time
            raise

    async def _ask(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None,
        plan: ToolPlan,
        tool_choice: ToolChoice,
        on_token: TokenSink | None,
    ) -> ModelReply:
        payload = self.payload(messages, tools, plan, tool_choice)
        if tools is not None and plan.mode == "schema":
            body = await self.http.post(payload)
            content = first_message(body).get("content") or ""
            cut_off = is_cut_off(finish_reason(body))
            return decision_or_cut_off(content, cut_off, tools, messages)
        if plan.stream and on_token is not None:
            return await self._streamed(payload, messages, tools, on_token)
        body = await self.http.post(payload)
        cut = is_cut_off(finish_reason(body))
        return reply_from_message(first_message(body), tools, messages, cut_off=cut)

    def payload(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None,
        plan: ToolPlan,
        tool_choice: ToolChoice = "auto",
    ) -> dict[str, Any]:
        """The request body for ``messages`` and ``tools`` under ``plan`` (``tool_choice``
        ``required``: the decision grammar without "answer", or the server's own
        ``tool_choice: "required"``)."""
        body: dict[str, Any] = {"model": self.model, **self._sampling}
        messages = system_first(messages)
        if plan.mode == "schema":
            if tools is None:
                body["messages"] = wire_messages(answer_messages(messages))
                return body
            body["messages"] = decision_messages(messages, tools)
            if plan.response_format is not None:
                required = tool_choice == "required"
                schema = grammar_schema(decision_schema(tools, required=required))
                body["response_format"] = response_format(plan.response_format, schema)
            return body
        history = text_call_messages if plan.history == "text" else wire_messages
        body["messages"] = history(messages)
        if tools is not None:
            body.update(tools=[_grammar_safe_tool(tool) for tool in tools], tool_choice=tool_choice)
        return body

    async def _streamed(
        self,
        payload: dict[str, Any],
        messages: list[Message],
        tools: list[ToolDefinition] | None,
        on_token: TokenSink,
    ) -> ModelReply:
        accumulator = StreamAccumulator()
        shown = MarkupGate(on_token)
        gate = ProseGate(shown, hold=tools is not None)
        looped = None
        async with aclosing(self.http.stream(payload)) as chunks:
            async for chunk in chunks:
                text = accumulator.add(chunk)
                if text or accumulator.calls:
                    await gate.feed(text, calls_started=bool(accumulator.calls))
                prose = "".join(accumulator.content) if text and not accumulator.calls else ""
                if (looped := loop_cut(prose)) is not None:
                    break  # the prose loops: closing the stream stops the server
        message = accumulator.message()
        if looped is not None:
            message = {**message, "content": message["content"][:looped]}
        cut_off = accumulator.cut_off or looped is not None
        reply = reply_from_message(message, tools, messages, cut_off=cut_off)
        streamed = gate.streamed and not reply.tool_calls
        if streamed:
            await shown.finish(reply.content)  # what the markup gate held, now known clean
        return replace(reply, streamed=streamed)


def _grammar_safe_tool(tool: ToolDefinition) -> ToolDefinition:
    """``tool`` with parameters a server can compile into a tool-call grammar; the
    parameters' own descriptions stay, so the model still reads what each argument is."""
    function = tool["function"]
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    safe = grammar_schema(parameters)
    for name, schema in (parameters.get("properties") or {}).items():
        kept = (safe.get("properties") or {}).get(name)
        if isinstance(kept, dict) and isinstance(schema, dict) and "description" in schema:
            kept["description"] = schema["description"]
    return {**tool, "function": {**function, "parameters": safe}}
