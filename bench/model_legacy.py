"""The embedded backend's previous path, kept only as the benchmark's baseline.

Before prompt reuse, every request went through ``Llama.create_chat_completion``:
a decision prompt (system prompt, decision instructions, tool catalog, history),
then for the answer a second prompt that starts differently (the system prompt
alone, :func:`~sovereign.conversation.backends.decision.answer_messages`), so
it shared only the system prompt with the decision, and the next turn's decision
shared only that with the answer before it. The answer was generated in a worker
thread and each piece handed to the event loop. :class:`LegacyBackend` does the
same with the same model, so ``bench/model.py`` can print both in one run.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from sovereign.conversation.backends.base import ModelReply, TokenSink
from sovereign.conversation.backends.decision import (
    answer_messages,
    decision_messages,
    decision_schema,
    parse_decision,
)
from sovereign.conversation.backends.embedded.backend import Sampling
from sovereign.conversation.backends.embedded.load import json_schema_grammar


def decision_grammar(tools: list[dict[str, Any]]) -> Any:
    """The llama.cpp grammar of the decision schema for ``tools``."""
    return json_schema_grammar(json.dumps(decision_schema(tools), sort_keys=True))


class LegacyBackend:
    """A ``ModelBackend`` over a shared ``Llama``, as the embedded backend was before reuse.

    Runs one request at a time in a thread; callers never overlap requests.
    """

    def __init__(self, llama: Any, tools: list[dict[str, Any]], sampling: Sampling) -> None:
        self.llama, self.tools, self.sampling = llama, tools, sampling
        self._grammars: dict[str, Any] = {}

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None,
        on_token: TokenSink | None = None,
        on_progress: Any = None,
        tool_choice: Any = "auto",
    ) -> ModelReply:
        """A decision among ``tools``, else the answer streamed into ``on_token``
        (``tool_choice`` is not the previous path's: ignored)."""
        if tools:
            return await asyncio.to_thread(self._decide, messages, tools)
        return ModelReply(content=await self._stream(messages, on_token))

    async def decide(self, messages: list[dict[str, Any]]) -> ModelReply:
        return await self.complete(messages, tools=self.tools)

    async def turn(self, messages: list[dict[str, Any]], *, on_token: TokenSink) -> None:
        """A decision, then (when it is "answer") the streamed answer."""
        if not (await self.decide(messages)).tool_calls:
            await self.complete(messages, tools=None, on_token=on_token)

    def _decide(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        reply = self.llama.create_chat_completion(
            decision_messages(messages, tools),
            grammar=self._grammar(tools),
            max_tokens=self.sampling.decision_max_tokens,
            temperature=self.sampling.decision_temperature,
        )
        return parse_decision(reply["choices"][0]["message"].get("content") or "", tools)

    def _grammar(self, tools: list[dict[str, Any]]) -> Any:
        key = json.dumps(tools, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = decision_grammar(tools)
        return self._grammars[key]

    async def _stream(self, messages: list[dict[str, Any]], on_token: TokenSink | None) -> str:
        loop = asyncio.get_running_loop()
        pieces: asyncio.Queue[str | None] = asyncio.Queue()

        def generate() -> None:
            try:
                for chunk in self.llama.create_chat_completion(
                    answer_messages(messages), stream=True,
                    max_tokens=self.sampling.answer_max_tokens,
                    temperature=self.sampling.answer_temperature,
                ):  # fmt: skip
                    if piece := chunk["choices"][0]["delta"].get("content"):
                        loop.call_soon_threadsafe(pieces.put_nowait, piece)
            finally:
                loop.call_soon_threadsafe(pieces.put_nowait, None)

        worker = threading.Thread(target=generate, daemon=True)
        worker.start()
        text = []
        while (piece := await pieces.get()) is not None:
            text.append(piece)
            if on_token is not None:
                await on_token(piece)
        worker.join()
        return "".join(text)
