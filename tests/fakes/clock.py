"""A monotonic clock for tests: expiry without sleeping."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock (seconds) that moves only when the test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        self.now += seconds
