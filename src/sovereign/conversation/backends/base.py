"""The one interface every model backend implements (DESIGN §1, §4).

Messages are OpenAI chat-completions dicts (``role``, ``content``, and for
assistant tool calls ``tool_calls``; for results ``role: "tool"`` with
``tool_call_id``). Tools are OpenAI tool definitions whose names are already
model-safe (``[a-zA-Z0-9_-]``); mapping dotted capability names is the turn
loop's job, not the backend's.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Message = dict[str, Any]
ToolDefinition = dict[str, Any]
TokenSink = Callable[[str], Awaitable[None]]
"""Receives each piece of streamed answer text as it is generated."""
BackendProgress = Callable[[str], Awaitable[None]]
"""Receives a backend's waits before it works: ``"queued"`` (behind another request),
``"loading_model"``, then ``"started"`` when it works on this request."""
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def model_safe_name(capability: str) -> str:
    """The name a capability goes by on the wire to a model: ``web.search`` →
    ``web_search``, every character outside ``[a-zA-Z0-9_-]`` (what OpenAI-style tool
    names allow) becoming ``_``."""
    return _UNSAFE.sub("_", capability)


@dataclass(frozen=True)
class ToolCall:
    """One call the model proposed, normalised.

    ``arguments`` is the parsed object, or ``None`` with ``parse_error`` set when the
    model wrote something that is not a JSON object (the turn loop turns that into
    an INVALID_ARGUMENTS outcome and never echoes the raw text back to a server).
    """

    id: str
    name: str
    arguments: dict[str, Any] | None
    parse_error: str | None = None


@dataclass(frozen=True)
class ModelReply:
    """A model's reply: prose in ``content`` and/or proposed ``tool_calls``.

    An empty ``content`` with no tool calls means the model chose to answer but
    has not written the answer yet (schema-constrained mode): the turn loop then
    asks again with ``tools=None`` to get the prose.
    """

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = field(default_factory=tuple)
    streamed: bool = False
    """True when ``content`` already went, piece by piece, to the ``on_token`` sink."""
    cut_off: bool = False
    """True when the model did not finish: its stream ended without a terminal event
    (no ``finish_reason``, the connection closed or broke), or it stopped at its token
    limit (``finish_reason: "length"``). ``content`` is then only the start of an answer,
    and ``tool_calls`` holds only calls the model wrote to their end (a call it did not
    finish is no proposal)."""


class ModelUnavailable(Exception):
    """The model backend cannot be reached or loaded (the service answers 503 MODEL_UNAVAILABLE).

    ``key`` names the backend's own sentence for it and ``values`` what fills it, where
    the backend keys its sentences (the openai backend's ``UNAVAILABLE``); else ``None``.
    """

    def __init__(self, message: str, *, key: str | None = None, **values: str) -> None:
        super().__init__(message)
        self.key = key
        self.values = values


class ModelError(Exception):
    """The backend answered, but unusably (a retry may succeed)."""


class ModelRejected(ModelError):
    """The model server refused the request itself (an HTTP error status that is not
    "unavailable"): asking again the same way cannot help, so it is not retried and
    the service answers 502 MODEL_ERROR. The message is ours; the server's own text
    goes to the log only."""


class ContextTooLong(ModelRejected):
    """The conversation no longer fits the model's context window (a retry cannot help;
    the service answers 413 CONVERSATION_TOO_LONG)."""


def latest_user_text(messages: Sequence[Message]) -> str:
    """The content of the last ``user`` message of ``messages`` ("" when there is none):
    the question a round answers."""
    users = (m for m in reversed(messages) if m.get("role") == "user")
    return str(next(users, {}).get("content") or "")


def user_texts(messages: Sequence[Message]) -> list[str]:
    """The contents of the ``user`` messages of ``messages``, in order (what the person
    wrote in the conversation; the last is the question a round answers)."""
    return [str(m.get("content") or "") for m in messages if m.get("role") == "user"]


def is_context_overflow(message: str) -> bool:
    """True for the error text llama.cpp and llama-server give when the prompt exceeds
    the context window ("Requested tokens (…) exceed context window of …", "the request
    exceeds the available context size")."""
    text = message.lower()
    return "exceed" in text and "context" in text


ToolChoice = Literal["auto", "required"] | dict[str, Any]
"""OpenAI's ``tool_choice``: ``auto``, the model may call a tool or answer in prose;
``required``, its reply must call one of the tools offered; a named function
(``{"type": "function", "function": {"name": …}}``, :func:`named_choice`), its reply
must call that tool; allowed tools (``{"type": "allowed_tools", "allowed_tools":
{"mode": "required", "tools": [{"type": "function", "function": {"name": …}}, …]}}``,
:func:`allowed_choice`), its reply must call one of those."""


def named_choice(name: str) -> dict[str, Any]:
    """The ``tool_choice`` that requires a call of the tool ``name``."""
    return {"type": "function", "function": {"name": name}}


def allowed_choice(names: Sequence[str]) -> dict[str, Any]:
    """The ``tool_choice`` that requires a call of one of the tools ``names`` (OpenAI's
    ``allowed_tools``, mode ``required``): the others offered stay in the prompt."""
    listed = [{"type": "function", "function": {"name": name}} for name in names]
    return {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": listed}}


def forced_tools(tool_choice: ToolChoice) -> tuple[str, ...] | None:
    """The names of the tools ``tool_choice`` requires one of (a named choice: that one;
    allowed tools: those), or ``None`` for ``auto``/``required``."""
    if not isinstance(tool_choice, dict):
        return None
    allowed = tool_choice.get("allowed_tools")
    entries = allowed.get("tools") if isinstance(allowed, dict) else [tool_choice]
    names = []
    for entry in entries if isinstance(entries, list) else []:
        function = entry.get("function") if isinstance(entry, dict) else None
        if isinstance(function, dict) and function.get("name"):
            names.append(str(function["name"]))
    return tuple(names)


def only_forced(
    tools: list[ToolDefinition] | None, tool_choice: ToolChoice
) -> tuple[list[ToolDefinition] | None, ToolChoice]:
    """``tools`` and ``tool_choice`` with a named or allowed choice made plain: those
    tools alone, ``required`` (for a backend that lists to the model only what it may
    call)."""
    names = forced_tools(tool_choice)
    if names is None or tools is None:
        return tools, tool_choice
    return [t for t in tools if t["function"]["name"] in names], "required"


class ModelBackend(Protocol):
    """Anything that can take a conversation and reply."""

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolDefinition] | None,
        on_token: TokenSink | None = None,
        on_progress: BackendProgress | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> ModelReply:
        """Ask the model once.

        Args:
            messages: the conversation so far (OpenAI chat format).
            tools: the tools it may propose, or ``None`` to ask for a prose answer
                only (the final answer, streamed through ``on_token`` when given).
            on_token: receives answer text as it is generated. With ``tools``, a
                backend may stream only text it knows to be the prose answer (never
                a call) and then sets ``ModelReply.streamed``; others ignore it.
            on_progress: told of waits before the work starts (see
                :data:`BackendProgress`); a backend that never waits may ignore it.
            tool_choice: ``required`` when the reply must be a call of ``tools`` (the
                decision grammar then has no "answer"; a server's native tool calling is
                sent ``tool_choice: "required"``); a named function when it must be a
                call of that one of ``tools`` (the others are context: the same list as
                the decision before, so a backend that caches the prompt's prefix reuses
                it; a backend may instead offer the named tool alone, required).

        Returns:
            A :class:`ModelReply`.

        Raises:
            ModelUnavailable: the backend is unreachable or its model cannot load.
            ModelError: the backend answered with something unusable.
            ModelRejected: the server refused the request (not worth a retry).
        """
        ...


@runtime_checkable
class YesNoJudge(Protocol):
    """A backend that can read how likely the model's next word is "yes" rather than "no".

    A judgement read off the model's next-word scores costs one prompt evaluation and
    no generation: the turn loop asks it of each passage a web answer may quote
    (:mod:`~sovereign.conversation.judge`).
    """

    async def yes_odds(
        self, prompts: Sequence[list[Message]], *, on_progress: BackendProgress | None = None
    ) -> list[float]:
        """For each prompt (chat messages, the model's turn to speak next), the natural
        log of the odds of "yes" over "no" as its next word: above 0 when "yes" is the
        likelier. One float per prompt, in order.

        Raises:
            ModelUnavailable: the model cannot load.
            ModelError: the model failed on a prompt (one longer than its context).
        """
        ...
