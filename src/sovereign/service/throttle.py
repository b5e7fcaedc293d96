"""Sign-in throttling per client address: exponential back-off after repeated failures.

The first ``free_attempts`` failures cost nothing; each later one locks the address
out for ``base_seconds * 2**(extra failures - 1)``, capped at ``max_seconds``.
A success clears the address. At most ``max_addresses`` are tracked (oldest dropped).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

FREE_ATTEMPTS = 5
BASE_SECONDS = 1.0
MAX_SECONDS = 900.0
MAX_ADDRESSES = 4096


@dataclass
class _Record:
    failures: int
    locked_until: float


class SignInThrottle:
    """Tracks failed sign-ins per address.

    Args:
        clock: monotonic clock in seconds.
        free_attempts: failures allowed before any back-off.
        base_seconds / max_seconds: first and largest lock-out, in seconds.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        free_attempts: int = FREE_ATTEMPTS,
        base_seconds: float = BASE_SECONDS,
        max_seconds: float = MAX_SECONDS,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        self._clock = clock
        self.free_attempts = free_attempts
        self.base_seconds = base_seconds
        self.max_seconds = max_seconds
        self._max = max_addresses
        self._lock = threading.Lock()
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def retry_after(self, address: str) -> float:
        """Seconds ``address`` must still wait before trying again; 0.0 when it may try now."""
        with self._lock:
            record = self._records.get(address)
        if record is None:
            return 0.0
        return max(0.0, record.locked_until - self._clock())

    def failed(self, address: str) -> float:
        """Record a failure; returns the lock-out it starts, in seconds (0.0 for none)."""
        with self._lock:
            record = self._records.pop(address, None) or _Record(0, 0.0)
            record.failures += 1
            extra = record.failures - self.free_attempts
            delay = 0.0
            if extra > 0:
                delay = min(self.max_seconds, self.base_seconds * 2.0 ** min(extra - 1, 32))
            record.locked_until = self._clock() + delay
            self._records[address] = record
            while len(self._records) > self._max:
                self._records.popitem(last=False)
        return delay

    def succeeded(self, address: str) -> None:
        """Forget the failures of ``address``."""
        with self._lock:
            self._records.pop(address, None)
