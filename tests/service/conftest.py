"""Shared pieces for service tests: a fake clock and cheap argon2 parameters."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
"""argon2id with 1 MiB and one pass: fast tests, same code path as production."""


class FakeClock:
    """A monotonic clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def harness(tmp_path, clock):
    """The real app with a scripted model and a fake SearXNG, not yet signed in."""
    from .harness import build_harness

    built = build_harness(tmp_path, clock=clock)
    async with built.client:
        yield built


@pytest.fixture
async def signed_in(harness):
    """:func:`harness` after first-run setup: cookie set, CSRF token known."""
    await harness.sign_in()
    return harness
