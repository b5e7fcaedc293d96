"""One prompt through the embedded model, token by token, reusing what was evaluated (issue 14).

:class:`Runner` renders chat messages with the model's own chat template,
tokenises them and generates, so that only new tokens are evaluated:

1. the prompt's **fixed prefix** (the rendered system message: system prompt,
   decision instructions, tool catalog; identical on every request of one
   deployment) is made the start of the KV cache: it is there already after
   any request with the same prefix, or it is restored from
   :class:`~.embedded_cache.PrefixStates`, or it is evaluated alone and saved
   there;
2. ``Llama.generate`` then evaluates only the tokens after the longest prefix
   the KV cache holds (for the next round of the same turn: everything up to
   the new tool result), and samples.

Text is decoded one token at a time through an incremental UTF-8 decoder, so
streaming costs the same for every token.
"""

from __future__ import annotations

import codecs
import math
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..base import ContextTooLong, Message
from .cache import PrefixStates, StateContext


class TokenModel(StateContext, Protocol):
    """What :class:`Runner` needs of a loaded model (:class:`~.embedded_llama.LlamaModel`)."""

    n_ctx: int

    def render(self, messages: list[Message], *, generation_prompt: bool = True) -> str: ...

    def tokenize(self, text: str) -> list[int]: ...

    def truncate(self, keep: int) -> None: ...

    def evaluate(self, tokens: Sequence[int]) -> None: ...

    def generate(
        self, tokens: Sequence[int], *, temperature: float, grammar: Any
    ) -> Iterator[int]: ...

    def next_scores(self, tokens: Sequence[int]) -> list[float]: ...

    def is_end(self, token: int) -> bool: ...

    def piece(self, token: int) -> bytes: ...


YES = ("yes", "Yes")
NO = ("no", "No")
"""The spellings of a judge's two answers, each read as its first token (the words that
open the assistant's turn, with no space before them)."""


@dataclass(frozen=True, kw_only=True)
class Generation:
    """One generation request.

    Attributes:
        messages: chat messages with string content; a first system message is
            the fixed prefix.
        max_tokens: the most tokens to generate.
        temperature: sampling temperature (0: greedy).
        grammar: a ``LlamaGrammar`` the output must match, or ``None``.
    """

    messages: list[Message]
    max_tokens: int
    temperature: float
    grammar: Any = None


class Runner:
    """Generates on one loaded model, keeping fixed prefixes evaluated.

    Args:
        model: the loaded model.
        states: where fixed-prefix states are kept.
    """

    def __init__(self, model: TokenModel, states: PrefixStates) -> None:
        self.model, self.states = model, states
        self._openings: dict[str, list[int]] = {}
        self._answers: tuple[list[int], list[int]] | None = None

    def tokens(self, messages: list[Message]) -> tuple[list[int], int]:
        """The prompt's tokens, and how many of them are its fixed prefix (0: none).

        The fixed prefix is the first message rendered alone, when it is a
        system message and its tokens begin the prompt's tokens (so for every
        template that renders messages one after the other).
        """
        tokens = self.model.tokenize(self.model.render(messages))
        if not messages or messages[0].get("role") != "system":
            return tokens, 0
        opening = self._opening(messages[0])
        return tokens, len(opening) if tokens[: len(opening)] == opening else 0

    def pieces(self, request: Generation) -> Generator[str, None, bool]:
        """The generated text, piece by piece, until an end-of-generation token or
        ``max_tokens``. Closing the iterator stops generation. Its return value (the
        ``StopIteration`` value) says whether the text was **cut off**: generation
        stopped at ``max_tokens`` (or the context's end), not at an end token.

        Raises:
            ContextTooLong: the prompt does not fit the context window.
            ValueError, RuntimeError: llama.cpp failed.
        """
        tokens, fixed = self.tokens(request.messages)
        room = self._room_after(tokens, "the conversation")
        self._place_prefix(tokens[:fixed])
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        budget = min(request.max_tokens, room)
        stream = self.model.generate(tokens, temperature=request.temperature,
                                     grammar=request.grammar)  # fmt: skip
        cut_off = True
        for count, token in enumerate(stream, 1):
            if self.model.is_end(token):
                cut_off = False
                break
            if piece := decoder.decode(self.model.piece(token)):
                yield piece
            if count >= budget:
                break
        if tail := decoder.decode(b"", final=True):
            yield tail
        return cut_off

    def yes_odds(self, messages: list[Message]) -> float:
        """The natural log of the odds of "yes" over "no" as the next word after
        ``messages`` rendered with the generation prompt: each word's score summed over
        its spellings :data:`YES` and :data:`NO` (each one's first token), read off the
        last evaluated token. The fixed prefix is placed as for :meth:`pieces`, and only
        the tokens after what the KV cache holds are evaluated (the last always is, so
        its scores are this prompt's).

        Raises:
            ContextTooLong: the prompt does not fit the context window.
            ValueError, RuntimeError: llama.cpp failed.
        """
        tokens, fixed = self.tokens(messages)
        self._room_after(tokens, "a judged prompt")
        self._place_prefix(tokens[:fixed])
        common = min(_common_length(self.model.evaluated(), tokens), len(tokens) - 1)
        self.model.truncate(common)
        self.model.evaluate(tokens[common:])
        yes, no = self._answer_tokens()
        scores = self.model.next_scores([*yes, *no])
        return _log_sum_exp(scores[: len(yes)]) - _log_sum_exp(scores[len(yes) :])

    def _room_after(self, tokens: Sequence[int], what: str) -> int:
        """How many tokens the context holds after ``tokens`` (at least one).

        Raises:
            ContextTooLong: none: ``what`` (the prompt, as said) does not fit.
        """
        room = self.model.n_ctx - len(tokens)
        if room <= 0:
            raise ContextTooLong(
                f"{what} is longer than the model's context: {len(tokens)} prompt "
                f"tokens, context window {self.model.n_ctx}"
            )
        return room

    def _answer_tokens(self) -> tuple[list[int], list[int]]:
        if self._answers is None:
            first = [self.model.tokenize(word)[0] for word in (*YES, *NO)]
            self._answers = (list(dict.fromkeys(first[: len(YES)])),
                             list(dict.fromkeys(first[len(YES) :])))  # fmt: skip
        return self._answers

    def _place_prefix(self, prefix: list[int]) -> None:
        """Make the KV cache start with ``prefix``: already there, restored, or evaluated
        (after any part of it the KV cache holds) and saved."""
        if not prefix or self.states.prepare(self.model, prefix):
            return
        common = _common_length(self.model.evaluated(), prefix)
        self.model.truncate(common)
        self.model.evaluate(prefix[common:])
        self.states.remember(self.model, prefix)

    def _opening(self, system: Message) -> list[int]:
        content = str(system.get("content"))
        if content not in self._openings:
            if len(self._openings) >= 16:
                self._openings.clear()
            rendered = self.model.render([system], generation_prompt=False)
            self._openings[content] = self.model.tokenize(rendered)
        return self._openings[content]


def _log_sum_exp(scores: Sequence[float]) -> float:
    top = max(scores)
    return top + math.log(sum(math.exp(score - top) for score in scores))


def _common_length(a: Sequence[int], b: Sequence[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def drain(pieces: Generator[str, None, bool]) -> tuple[str, bool]:
    """All of a generation's text and whether it was cut off (:meth:`Runner.pieces`)."""
    parts: list[str] = []
    while True:
        try:
            parts.append(next(pieces))
        except StopIteration as stop:
            return "".join(parts), bool(stop.value)
