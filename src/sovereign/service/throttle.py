"""Sign-in throttling per failure budget, never per address (DESIGN §5).

Every local process can pick any source address in 127.0.0.0/8, and every
browser on the device *is* 127.0.0.1, so an address says nothing about who is
guessing. Failures are counted per *budget* instead:

- :data:`OWNER_BUDGET`: the owner's password, tried from a browser not known yet;
- ``device:<id>``: the password tried from a browser the owner signed in from
  before (:mod:`~sovereign.service.devices`), so that a guesser exhausting the
  owner budget cannot lock the owner's own browsers out;
- :data:`SETUP_BUDGET`: the one-time setup token (its own instance, shorter cap).

The first ``free_attempts`` failures of a budget cost nothing; each later one
locks the budget for ``base_seconds * 2**(extra failures - 1)``, capped at
``max_seconds``. A success clears its budget. The numbers and why:
``docs/decisions/sign-in-throttle.md``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sovereign.expiring import ExpiringMap

FREE_ATTEMPTS = 5
BASE_SECONDS = 1.0
MAX_SECONDS = 900.0
"""Owner password: at most 4 guesses an hour once the back-off has ramped up."""
SETUP_MAX_SECONDS = 60.0
"""Setup token (192 random bits, unguessable): the cap only bounds noise, so it is
short, and a stranger's wrong tokens hold the real link back for a minute at most."""
MAX_BUDGETS = 4096
OWNER_BUDGET = "owner"
SETUP_BUDGET = "setup"


def lockout_seconds(failures: int, *, free: int, base: float, cap: float) -> float:
    """The lock-out the ``failures``-th failure of a budget starts, in seconds."""
    extra = failures - free
    return 0.0 if extra <= 0 else min(cap, base * 2.0 ** min(extra - 1, 32))


def minimum_seconds(guesses: int, *, free: int, base: float, cap: float) -> float:
    """The least time, in seconds, in which ``guesses`` wrong guesses fit in one budget:
    the sum of the lock-outs started by the first ``guesses - 1`` failures."""
    return sum(lockout_seconds(n, free=free, base=base, cap=cap) for n in range(1, guesses))


@dataclass
class _Record:
    failures: int
    locked_until: float


class SignInThrottle:
    """Tracks failed sign-ins per budget key (see the module docstring).

    Args:
        clock: monotonic clock in seconds.
        free_attempts: failures allowed before any back-off.
        base_seconds / max_seconds: first and largest lock-out, in seconds.
        max_budgets: most keys tracked at once (kept in the one expiring map, without
            expiry: the one that failed longest ago is dropped first; the device keys
            are bounded by the known devices, so this is a backstop).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        free_attempts: int = FREE_ATTEMPTS,
        base_seconds: float = BASE_SECONDS,
        max_seconds: float = MAX_SECONDS,
        max_budgets: int = MAX_BUDGETS,
    ) -> None:
        if free_attempts < 0 or base_seconds <= 0 or max_seconds < base_seconds:
            raise ValueError("free_attempts >= 0 and 0 < base_seconds <= max_seconds needed")
        self._clock = clock
        self.free_attempts = free_attempts
        self.base_seconds = base_seconds
        self.max_seconds = max_seconds
        self._lock = threading.Lock()  # one failure at a time: read, count, store
        self._records: ExpiringMap[str, _Record] = ExpiringMap(
            ttl_seconds=math.inf, max_entries=max_budgets, clock=clock
        )

    def retry_after(self, key: str) -> float:
        """Seconds budget ``key`` must still wait before a try; 0.0 when it may try now."""
        record = self._records.get(key)
        if record is None:
            return 0.0
        return max(0.0, record.locked_until - self._clock())

    def tries_left(self, key: str) -> int:
        """Failures budget ``key`` may still make before one starts a pause (0: the next
        failure pauses it)."""
        record = self._records.get(key)
        return max(0, self.free_attempts - (record.failures if record else 0))

    def failed(self, key: str) -> float:
        """Record a failure of budget ``key``; returns the lock-out it starts, in seconds."""
        with self._lock:
            record = self._records.get(key) or _Record(0, 0.0)
            record.failures += 1
            delay = lockout_seconds(
                record.failures,
                free=self.free_attempts,
                base=self.base_seconds,
                cap=self.max_seconds,
            )
            record.locked_until = self._clock() + delay
            self._records.put(key, record)  # the newest: the bound drops the quietest first
        return delay

    def succeeded(self, key: str) -> None:
        """Forget the failures of budget ``key``."""
        self._records.pop(key)
