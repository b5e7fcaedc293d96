"""One expiring map for every store that forgets on a timer: lock, clock, sweep, bound.

A leaf module: it imports nothing of ours, so the executor's confirmation tokens,
the conversation's paused turns and the service's sessions, known browsers,
retained answers and sign-in budgets all keep their entries the same way.

- Each entry has its own deadline on an injectable **monotonic** clock (seconds):
  ``put`` gives it ``ttl_seconds`` (the map's default unless told), ``touch``
  restarts it; ``math.inf`` never expires.
- **Expired** entries are gone for every reader at once: each call sweeps first
  (cheaply: only when the earliest deadline has passed).
- **Bounded**: putting past ``max_entries`` drops the oldest put first.
- Entries dropped by expiry or by the bound (never those removed with ``pop``)
  are handed to ``on_drop(key, value)`` *after* the lock is released, so the
  callback may call back into the map or into its owner.
- Safe under threads and coroutines alike: every call holds one lock briefly and
  never awaits or calls out while holding it.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["ExpiringMap"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ExpiringMap(Generic[K, V]):
    """A bounded mapping whose entries expire (see the module docstring).

    Args:
        ttl_seconds: default lifetime of an entry, in seconds (``math.inf``: none).
        max_entries: most entries held; putting past it drops the oldest.
        clock: monotonic clock in seconds (tests pass a fake one).
        on_drop: called as ``on_drop(key, value)`` for every entry that expired
            or was pushed out by the bound, outside the lock.

    Raises:
        ValueError: a lifetime of 0 or less, or a bound below 1.
    """

    def __init__(
        self,
        *,
        ttl_seconds: float = math.inf,
        max_entries: int,
        clock: Callable[[], float] = time.monotonic,
        on_drop: Callable[[K, V], None] | None = None,
    ) -> None:
        if ttl_seconds <= 0 or max_entries < 1:
            raise ValueError("ttl_seconds must be > 0 and max_entries >= 1")
        self.ttl_seconds = ttl_seconds
        self.max_entries = max_entries
        self._clock = clock
        self._on_drop = on_drop
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, tuple[V, float]] = OrderedDict()
        self._earliest = math.inf

    def put(self, key: K, value: V, *, ttl_seconds: float | None = None) -> None:
        """Hold ``value`` under ``key`` (replacing any entry) for ``ttl_seconds``."""
        deadline = self._clock() + (self.ttl_seconds if ttl_seconds is None else ttl_seconds)
        with self._lock:
            dropped = self._sweep()
            self._entries.pop(key, None)
            while len(self._entries) >= self.max_entries:
                dropped.append(self._pop_oldest())
            self._entries[key] = (value, deadline)
            self._earliest = min(self._earliest, deadline)
        self._report(dropped)

    def get(self, key: K) -> V | None:
        """The live value under ``key``, or ``None``."""
        with self._lock:
            dropped = self._sweep()
            entry = self._entries.get(key)
        self._report(dropped)
        return None if entry is None else entry[0]

    def pop(self, key: K) -> V | None:
        """Remove and return the live value under ``key`` (``None`` when there is none).

        Exactly one of several concurrent callers gets a given entry. Not reported
        to ``on_drop``: the caller took it.
        """
        with self._lock:
            dropped = self._sweep()
            entry = self._entries.pop(key, None)
        self._report(dropped)
        return None if entry is None else entry[0]

    def touch(self, key: K, *, ttl_seconds: float | None = None) -> bool:
        """Restart the lifetime of a live entry (``ttl_seconds`` from now); False when absent."""
        now = self._clock()
        deadline = now + (self.ttl_seconds if ttl_seconds is None else ttl_seconds)
        with self._lock:
            dropped = self._sweep()
            entry = self._entries.get(key)
            if entry is not None:
                self._entries[key] = (entry[0], deadline)
                self._earliest = min(self._earliest, deadline)
        self._report(dropped)
        return entry is not None

    def seconds_left(self, key: K) -> float:
        """Seconds until ``key`` expires; 0.0 when it is absent or expired."""
        with self._lock:
            dropped = self._sweep()
            entry = self._entries.get(key)
        self._report(dropped)
        return 0.0 if entry is None else max(0.0, entry[1] - self._clock())

    def items(self) -> list[tuple[K, V]]:
        """The live entries, oldest put first (a copy)."""
        with self._lock:
            dropped = self._sweep()
            items = [(key, value) for key, (value, _) in self._entries.items()]
        self._report(dropped)
        return items

    def clear(self) -> None:
        """Forget every entry (not reported to ``on_drop``)."""
        with self._lock:
            self._entries.clear()
            self._earliest = math.inf

    def __len__(self) -> int:
        return len(self.items())

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def _sweep(self) -> list[tuple[K, V]]:
        """Under the lock: remove every expired entry; returns them."""
        now = self._clock()
        if now < self._earliest:
            return []
        expired = [key for key, (_, deadline) in self._entries.items() if deadline <= now]
        dropped = [(key, self._entries.pop(key)[0]) for key in expired]
        self._earliest = min((d for _, d in self._entries.values()), default=math.inf)
        return dropped

    def _pop_oldest(self) -> tuple[K, V]:
        key, (value, _) = self._entries.popitem(last=False)
        return key, value

    def _report(self, dropped: list[tuple[K, V]]) -> None:
        """Outside the lock: hand each dropped entry to ``on_drop``."""
        if self._on_drop is not None:
            for key, value in dropped:
                self._on_drop(key, value)
