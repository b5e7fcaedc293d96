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

    def issue(self, name: str, version: int, arguments: Mapping[str, Any]) -> str:
        """Return a fresh token for exactly this call, valid for ``ttl_seconds``."""
        token = secrets.token_urlsafe(32)
        binding = _Binding(
            name, version, canonical_arguments(arguments), self._clock() + self.ttl_seconds
        )
        with self._lock:
            self._sweep()
            while len(self._tokens) >= self._max:
                self._tokens.popitem(last=False)
            self._tokens[token] = binding
        return token

    def consume(self, token: str, name: str, version: int, arguments: Mapping[str, Any]) -> bool:
        """Spend ``token``; True only if it was outstanding, unexpired and bound to this call."""
        with self._lock:
            self._sweep()
            binding = self._tokens.pop(token, None)
        if binding is None:
            return False
        return (binding.name, binding.version, binding.arguments) == (
            name,
            version,
            canonical_arguments(arguments),
        )

    def discard(self, token: str) -> None:
        """Forget ``token`` (after a denial); unknown tokens are ignored."""
        with self._lock:
            self._tokens.pop(token, None)

    def seconds_left(self, token: str) -> float:
        """Seconds until ``token`` expires; 0.0 when unknown or expired."""
        with self._lock:
            binding = self._tokens.get(token)
        if binding is None:
            return 0.0
        return max(0.0, binding.expires_at - self._clock())

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._tokens)

    def _sweep(self) -> None:
        now = self._clock()
        expired = [token for token, b in self._tokens.items() if b.expires_at <= now]
        for token in expired:
            del self._tokens[token]
