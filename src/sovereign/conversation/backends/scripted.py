"""A scripted model backend: a queue of replies or a function of the messages (issue 5).

For tests and demos, no model needed. ``ScriptedBackend()`` with no script
plays :func:`~.demo.demo_script`, so ``sovereign serve --backend scripted``
can be clicked through in the Console.
"""

from __future__ import annotations

import inspect
import re
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .base import (
    BackendProgress,
    Message,
    ModelReply,
    TokenSink,
    ToolCall,
    ToolChoice,
    ToolDefinition,
)

ScriptItem = ModelReply | str | BaseException
"""A queued reply: a ModelReply, plain prose, or an exception to raise (e.g. ModelError)."""
ScriptFunction = Callable[
    [list[Message], list[ToolDefinition] | None], ScriptItem | Awaitable[ScriptItem]
]
"""``(messages, tools) -> reply``; may be async."""

_PIECES = re.compile(r"\S+\s*|\s+")


class ScriptExhausted(Exception):
    """The queue had no reply left for a request (a test asked the model more than scripted)."""


@dataclass(frozen=True)
class ScriptedRequest:
    """One request the backend received, as given (for assertions in tests)."""

    messages: list[Message]
    tools: list[ToolDefinition] | None
    tool_choice: ToolChoice = "auto"


def propose(name: str, arguments: dict[str, Any] | None = None, **extra: Any) -> ModelReply:
    """A reply proposing one call: ``propose("system_health")``.

    ``extra`` is passed to :class:`ToolCall` (``parse_error=...`` to fake a malformed call,
    ``id=...``); ``arguments`` default to ``{}`` unless a parse error is given.
    """
    if arguments is None and "parse_error" not in extra:
        arguments = {}
    call_id = extra.pop("id", "call_0")
    return ModelReply(tool_calls=(ToolCall(call_id, name, arguments, **extra),))


class ScriptedBackend:
    """A :class:`~.base.ModelBackend` that plays a script.

    Args:
        script: an iterable of :data:`ScriptItem` consumed one per request, or a
            :data:`ScriptFunction` called for every request; ``None`` plays the
            demo script.

    Prose replies to a request without tools are streamed to ``on_token`` word
    by word. Every request is kept in :attr:`requests`.

    Raises (from :meth:`complete`):
        ScriptExhausted: the queue is empty.
        Whatever exception was queued or raised by the function.
    """

    def __init__(self, script: Iterable[ScriptItem] | ScriptFunction | None = None) -> None:
        if script is None:
            from .demo import demo_script

            script = demo_script
        self._function: ScriptFunction | None = script if callable(script) else None
        self._queue: deque[ScriptItem] = deque() if callable(script) else deque(script)
        self.requests: list[ScriptedRequest] = []

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolDefinition] | None,
        on_token: TokenSink | None = None,
        on_progress: BackendProgress | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> ModelReply:
        """Record the request and return the next scripted reply (see the class docstring);
        ``on_progress`` hears ``started``."""
        if on_progress is not None:
            await on_progress("started")
        self.requests.append(ScriptedRequest([dict(m) for m in messages], tools, tool_choice))
        item = await self._next(messages, tools)
        if isinstance(item, BaseException):
            raise item
        reply = ModelReply(content=item) if isinstance(item, str) else item
        if on_token is not None and tools is None and reply.content:
            for piece in _PIECES.findall(reply.content):
                await on_token(piece)
        return reply

    @property
    def remaining(self) -> int:
        """Queued replies not yet used (0 for a function script)."""
        return len(self._queue)

    async def _next(
        self, messages: list[Message], tools: list[ToolDefinition] | None
    ) -> ScriptItem:
        if self._function is not None:
            item = self._function(messages, tools)
            return await item if inspect.isawaitable(item) else item
        if not self._queue:
            raise ScriptExhausted(f"no scripted reply left for request {len(self.requests)}")
        return self._queue.popleft()
