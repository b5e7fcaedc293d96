"""Single-use confirmation tokens bound to one exact call (DESIGN §2, RFC-0004).

The tokens live in the one expiring map every TTL store uses
(:mod:`sovereign.expiring`, a leaf module that imports nothing of ours, so the
executor still depends on nothing else of the product).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sovereign.expiring import ExpiringMap

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
        self._tokens: ExpiringMap[str, _Binding] = ExpiringMap(
            ttl_seconds=ttl_seconds, max_entries=max_outstanding, clock=clock, on_drop=self._left
        )
        self._asks_lock = threading.Lock()
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
        with self._asks_lock:
            self._asks[token] = Ask(name, version, asked)
        self._tokens.put(token, _Binding(name, version, canonical_arguments(arguments)))
        return token

    def claim(self, token: str) -> Ask | None:
        """Take the ask behind ``token`` to answer it; ``None`` when it was answered or lapsed.

        Claiming does not spend the token: :meth:`consume` still decides whether it runs.
        """
        with self._asks_lock:
            return self._asks.pop(token, None)

    def consume(self, token: str, name: str, version: int, arguments: Mapping[str, Any]) -> bool:
        """Spend ``token``; True only if it was outstanding, unexpired and bound to this call."""
        binding = self._tokens.pop(token)
        if binding is None:
            return False
        with self._asks_lock:
            self._asks.pop(token, None)  # consumed: answered, not lapsed
        return (binding.name, binding.version, binding.arguments) == (
            name,
            version,
            canonical_arguments(arguments),
        )

    def discard(self, token: str) -> None:
        """Forget ``token`` (after a denial); unknown tokens are ignored.

        An unanswered token lapses (see :meth:`watch_lapses`).
        """
        self._tokens.pop(token)
        self._left(token, None)

    def seconds_left(self, token: str) -> float:
        """Seconds until ``token`` expires; 0.0 when unknown or expired."""
        return self._tokens.seconds_left(token)

    def __len__(self) -> int:
        return len(self._tokens)

    def _left(self, token: str, _binding: _Binding | None) -> None:
        """A token left unspent (expired, pushed out by the bound, discarded): its
        ask, if still unanswered, lapses. Called outside every lock."""
        with self._asks_lock:
            ask = self._asks.pop(token, None)
        if ask is not None and self._on_lapse is not None:
            self._on_lapse(ask)
