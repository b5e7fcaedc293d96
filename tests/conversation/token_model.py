"""A stand-in for :class:`~sovereign.conversation.backends.embedded.llama.LlamaModel` (no model).

Tokens are the characters of the rendered prompt (``ord``). Like llama.cpp it
keeps two things apart: ``ids``, the tokens it has been told it evaluated (what
``Llama.input_ids[:n_tokens]`` is), and ``kv``, what its "KV cache" really holds,
which is what its output depends on. A restored state puts its own ``kv``
back; so if anything ever restored a state that does not belong to the prompt,
the output would change, as a real model's would.

Output is scripted (``replies`` for constrained decisions, ``pieces`` for
answers) or, with neither, computed from ``kv`` alone (``derived``); the scores of
the next token are computed from ``kv`` alone.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

END = 0x1FFFFF
PIECE_BASE = 0x200000


class FakeModel:
    """Scripted or derived generation over a faithful, inspectable KV cache."""

    def __init__(
        self, replies=(), pieces=(), seconds_per_step=0.0, error=None, derived=0, finish="stop"
    ):
        self.n_ctx = 100_000
        self.finish = finish
        self.replies = list(replies)
        self.pieces = list(pieces)
        self.derived = derived
        self.seconds_per_step = seconds_per_step
        self.error = error
        self.kv: list[int] = []
        self.ids: list[int] = []
        self.evaluated_tokens = 0
        self.restores = 0
        self.saves = 0
        self.prompts: list[dict[str, Any]] = []
        self.chats: list[dict[str, Any]] = []
        self.pulled = 0
        self.active = 0
        self.most_active = 0
        self.closed_stream = threading.Event()
        self._guard = threading.Lock()

    # --- the TokenModel interface -------------------------------------------------------

    def render(self, messages: list[dict[str, Any]], *, generation_prompt: bool = True) -> str:
        text = "".join(f"<{m['role']}>{m['content']}</{m['role']}>" for m in messages)
        return text + ("<assistant>" if generation_prompt else "")

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def evaluated(self) -> list[int]:
        return list(self.ids)

    def truncate(self, keep: int) -> None:
        del self.kv[keep:]
        del self.ids[keep:]

    def evaluate(self, tokens: Sequence[int]) -> None:
        self.kv.extend(tokens)
        self.ids.extend(tokens)
        self.evaluated_tokens += len(tokens)

    def generate(self, tokens: Sequence[int], *, temperature: float, grammar: Any) -> Iterator[int]:
        if self.error:
            raise self.error
        common = _common(self.ids, tokens)
        common -= common == len(tokens)  # like Llama.generate: re-read one token for logits
        self.prompts.append({"text": "".join(map(chr, tokens)), "temperature": temperature,
                             "grammar": grammar, "read": len(tokens) - common})  # fmt: skip
        self.truncate(common)
        self.evaluate(tokens[common:])
        return self._stream(grammar)

    def next_scores(self, tokens: Sequence[int]) -> list[float]:
        """Each token's score: how often the KV cache holds it, so, like a real model's,
        it depends on every token evaluated and on nothing else."""
        if self.error:
            raise self.error
        return [float(self.kv.count(token)) for token in tokens]

    def is_end(self, token: int) -> bool:
        return token == END

    def piece(self, token: int) -> bytes:
        if token >= PIECE_BASE:
            return self.pieces[token - PIECE_BASE].encode()
        return chr(token).encode()

    def save(self) -> bytes:
        self.saves += 1
        return json.dumps(self.kv).encode()

    def restore(self, tokens: Sequence[int], state: bytes) -> None:
        self.restores += 1
        self.kv = json.loads(state)
        self.ids = list(tokens)

    def chat(self, messages: list[dict[str, Any]], **options: Any) -> Any:
        self.chats.append({"messages": messages, **options})
        if self.error:
            raise self.error
        if options.get("stream"):
            return self._chunks()
        with self._busy():
            content = self.replies.pop(0)
        message = {"role": "assistant", "content": content}
        choice = {"message": message, "finish_reason": self.finish}
        return {"choices": [choice]}

    # --- generation -------------------------------------------------------------------

    def _stream(self, grammar: Any) -> Iterator[int]:
        try:
            for token in self._script(grammar):
                with self._busy():
                    self.pulled += 1
                yield token
                if token != END:
                    self.evaluate([token])
        finally:
            self.closed_stream.set()

    def _script(self, grammar: Any) -> Iterator[int]:
        if self.derived:
            for _ in range(self.derived):
                yield 97 + sum(i * t for i, t in enumerate(self.kv, 1)) % 26
        elif grammar is not None:
            yield from map(ord, self.replies.pop(0))
        else:
            yield from range(PIECE_BASE, PIECE_BASE + len(self.pieces))
        yield END

    @contextmanager
    def _busy(self):
        with self._guard:
            self.active += 1
            self.most_active = max(self.most_active, self.active)
        try:
            time.sleep(self.seconds_per_step)
            yield
        finally:
            with self._guard:
                self.active -= 1

    def _chunks(self):
        try:
            yield {"choices": [{"delta": {"role": "assistant"}}]}
            for piece in self.pieces:
                with self._busy():
                    self.pulled += 1
                yield {"choices": [{"delta": {"content": piece}}]}
            if self.finish is not None:  # llama-cpp-python's last chunk: its finish_reason
                yield {"choices": [{"delta": {}, "finish_reason": self.finish}]}
        finally:
            self.closed_stream.set()


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count
