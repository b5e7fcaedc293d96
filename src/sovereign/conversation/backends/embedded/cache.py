"""Evaluated prompt prefixes kept in RAM, so the fixed part of a prompt is read once (issue 14).

Every decision and answer of the embedded model starts with the same text: the
system prompt, the decision instructions and the tool catalog (~900 tokens of a
~960-token decision prompt). llama.cpp keeps the state of the last evaluation
in its KV cache, and ``Llama.generate`` reuses it for the longest common token
prefix, so consecutive requests with one fixed prefix pay only for their new
tokens. What that cannot survive is a request with *another* fixed prefix in
between (another tool catalog, e.g. web search switched off, or another system
prompt): it overwrites the KV cache. :class:`PrefixStates` keeps the evaluated
state of each fixed prefix it has seen, keyed by its exact tokens, in a
least-recently-used store with a byte bound, and puts one back into the
context when the live KV cache does not already hold it.

Only the KV cells of sequence 0 are saved (``llama_state_seq_get_data``): about
28 KiB per token for Qwen2.5-1.5B, so ~27 MiB for a 960-token prefix. That is why
``Llama.save_state`` and ``LlamaRAMCache`` are not used as they are:
``save_state`` also copies the logits buffer (up to ``n_batch`` x vocabulary
floats, 311 MB for this model) and ``LlamaRAMCache``'s bound counts only the KV
part; and its look-up returns the entry with the longest common prefix of any
length, where a fixed prefix must match exactly.

A state is keyed by its full token sequence, so a changed system prompt or tool
catalog can never reuse a stale state: it has other tokens, hence another key,
and an entry is used only when its tokens are an exact prefix of the prompt.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""The default bound on the saved states, in bytes (256 MiB: nine ~960-token prefixes)."""


class StateContext(Protocol):
    """What :class:`PrefixStates` needs from a loaded model (``Llama`` via :class:`LlamaStates`)."""

    def evaluated(self) -> Sequence[int]:
        """The tokens whose state the context holds now (the live KV cache)."""
        ...

    def save(self) -> bytes:
        """The state of every evaluated token (sequence 0)."""
        ...

    def restore(self, tokens: Sequence[int], state: bytes) -> None:
        """Replace the context's state with ``state``, which holds exactly ``tokens``."""
        ...


@dataclass(frozen=True)
class CacheFigures:
    """What the cache holds: entries, bytes (at most ``bound_bytes``), hits and misses."""

    entries: int
    bytes: int
    bound_bytes: int
    hits: int
    misses: int


class PrefixStates:
    """Saved states of fixed prompt prefixes, least recently used first out.

    Args:
        bound_bytes: the most the saved states may hold together, in bytes
            (default :data:`DEFAULT_CACHE_BYTES`; 0 disables the cache). A state
            larger than the bound is never stored.

    Raises:
        ValueError: a negative bound.
    """

    def __init__(self, bound_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if bound_bytes < 0:
            raise ValueError("the cache bound must be >= 0 bytes")
        self.bound_bytes = bound_bytes
        self._states: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self._bytes = 0
        self._hits = 0
        self._misses = 0

    def prepare(self, context: StateContext, prefix: Sequence[int]) -> bool:
        """Make ``context`` hold the state of ``prefix`` when it does not already.

        Called before a prompt starting with ``prefix`` (its fixed part) is
        evaluated. If the live KV cache already begins with ``prefix``, nothing
        happens; else a saved state of exactly ``prefix`` is restored when there
        is one. ``Llama.generate`` then evaluates only what follows.

        Returns:
            True when ``context`` now holds ``prefix`` (live or restored).
        """
        key = tuple(prefix)
        if not key:
            return False
        if _starts_with(context.evaluated(), key):
            self._touch(key)
            return True
        state = self._states.pop(key, None)
        if state is None:
            self._misses += 1
            return False
        self._hits += 1
        context.restore(key, state)  # if this raises, the state is gone: evaluated afresh next
        self._states[key] = state  # back in, most recently used
        return True

    def remember(self, context: StateContext, prefix: Sequence[int]) -> None:
        """Save the state of ``prefix`` if ``context`` holds exactly it and it is not saved yet.

        Called right after ``prefix`` alone was evaluated. Older states are
        dropped, least recently used first, until the new one fits the bound.
        """
        key = tuple(prefix)
        if not key or key in self._states or tuple(context.evaluated()) != key:
            return
        state = context.save()
        if len(state) > self.bound_bytes:
            return
        while self._states and self._bytes + len(state) > self.bound_bytes:
            _, dropped = self._states.popitem(last=False)
            self._bytes -= len(dropped)
        self._states[key] = state
        self._bytes += len(state)

    def holds(self, prefix: Sequence[int]) -> bool:
        """Whether a state of exactly ``prefix`` is saved."""
        return tuple(prefix) in self._states

    def clear(self) -> None:
        """Drop every saved state (e.g. when the model is closed)."""
        self._states.clear()
        self._bytes = 0

    def figures(self) -> CacheFigures:
        """The current :class:`CacheFigures`."""
        return CacheFigures(len(self._states), self._bytes, self.bound_bytes, self._hits,
                            self._misses)  # fmt: skip

    def _touch(self, key: tuple[int, ...]) -> None:
        if key in self._states:
            self._states.move_to_end(key)


def _starts_with(tokens: Sequence[int], prefix: tuple[int, ...]) -> bool:
    return len(tokens) >= len(prefix) and tuple(tokens[: len(prefix)]) == prefix
