"""Single-use confirmation tokens bound to one exact call (DESIGN §2, RFC-0004)."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

TTL_SECONDS = 120.0
"""How long an issued token stays valid, in seconds."""
MAX_OUTSTANDING = 1024
"""Most tokens held at once; issuing past it drops the oldest."""


def canonical_arguments(arguments: Mapping[str, Any]) -> str:
    """The arguments as canonical JSON (sorted keys, no spaces), for exact comparison."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Ask:
    """An approval asked of the household: its call and the audit id of the asking record."""

    name: str
    version: int
    ref: str | None


@dataclass(frozen=True)
class _Binding:
    name: str
    version: int
    arguments: str
    expires_at: float


class ConfirmationStore:
    """In-memory, per-process store of outstanding confirmation tokens.

    A token is 256 random bits (``secrets``), valid for ``ttl_seconds``, bound to
    exactly one ``(name, version, arguments)`` and consumable once. ``consume`` is
    safe under concurrent callers from threads or coroutines: exactly one wins.
    Any consume attempt spends the token, even a mismatched one, so a token cannot
    be probed. Expired entries are swept on every call, and at most
    ``max_outstanding`` tokens are held, so memory stays bounded.

    Each token also stands for one approval asked of the household (an
    :class:`Ask`). It is answered exactly once: :meth:`claim` takes it for the
    answer (an approval, a denial, an expiry noticed by the turn). A token that
    leaves the store unanswered (expired, evicted or discarded) *lapses*: the
    callback given to :meth:`watch_lapses` gets its ask, so the audit log can
    close it as expired.

    Args:
        ttl_seconds: token lifetime in seconds (default 120).
        clock: monotonic clock in seconds; inject one in tests instead of sleeping.
        max_outstanding: cap on held tokens.
    """

    def __init__(
        self,
        *,
        ttl_seconds: float = TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        max_outstanding: int = MAX_OUTSTANDING,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._max = max_outstanding
        self._lock = threading.Lock()
        self._tokens: OrderedDict[str, _Binding] = OrderedDict()
        self._asks: dict[str, Ask] = {}
        self._on_lapse: Callable[[Ask], None] | None = None

    def watch_lapses(self, callback: Callable[[Ask], None]) -> None:
        """Call ``callback(ask)`` for every token that leaves the store unanswered."""
        self._on_lapse = callback

    def issue(
        self, name: str, version: int, arguments: Mapping[str, Any], *, asked: str | None = None
    ) -> str:
        """Return a fresh token for exactly this call, valid for ``ttl_seconds``.

        ``asked``: the audit id of the record that asked for this approval.
        """
        token = secrets.token_urlsafe(32)
        binding = _Binding(
            name, version, canonical_arguments(arguments), self._clock() + self.ttl_seconds
        )
        with self._lock:
            lapsed = self._sweep()
            while len(self._tokens) >= self._max:
                lapsed.extend(self._drop(self._tokens.popitem(last=False)[0]))
            self._tokens[token] = binding
            self._asks[token] = Ask(name, version, asked)
        self._report(lapsed)
        return token

    def claim(self, token: str) -> Ask | None:
        """Take the ask behind ``token`` to answer it; ``None`` when it was answered or lapsed.

        Claiming does not spend the token: :meth:`consume` still decides whether it runs.
        """
        with self._lock:
            return self._asks.pop(token, None)

    def consume(self, token: str, name: str, version: int, arguments: Mapping[str, Any]) -> bool:
        """Spend ``token``; True only if it was outstanding, unexpired and bound to this call."""
        with self._lock:
            lapsed = self._sweep()
            binding = self._tokens.pop(token, None)
            self._asks.pop(token, None)  # consumed: answered, not lapsed
        self._report(lapsed)
        if binding is None:
            return False
        return (binding.name, binding.version, binding.arguments) == (
            name,
            version,
            canonical_arguments(arguments),
        )

    def discard(self, token: str) -> None:
        """Forget ``token`` (after a denial); unknown tokens are ignored.

        An unanswered token lapses (see :meth:`watch_lapses`).
        """
        with self._lock:
            self._tokens.pop(token, None)
            lapsed = self._drop(token)
        self._report(lapsed)

    def seconds_left(self, token: str) -> float:
        """Seconds until ``token`` expires; 0.0 when unknown or expired."""
        with self._lock:
            binding = self._tokens.get(token)
        if binding is None:
            return 0.0
        return max(0.0, binding.expires_at - self._clock())

    def __len__(self) -> int:
        with self._lock:
            lapsed = self._sweep()
            count = len(self._tokens)
        self._report(lapsed)
        return count

    def _sweep(self) -> list[Ask]:
        now = self._clock()
        expired = [token for token, b in self._tokens.items() if b.expires_at <= now]
        lapsed: list[Ask] = []
        for token in expired:
            del self._tokens[token]
            lapsed.extend(self._drop(token))
        return lapsed

    def _drop(self, token: str) -> list[Ask]:
        """Under the lock: the unanswered ask of a token leaving the store, if any."""
        ask = self._asks.pop(token, None)
        return [] if ask is None else [ask]

    def _report(self, lapsed: list[Ask]) -> None:
        """Outside the lock: tell the watcher about each lapsed ask."""
        if self._on_lapse is not None:
            for ask in lapsed:
                self._on_lapse(ask)
