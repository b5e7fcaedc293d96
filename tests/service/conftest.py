"""Shared pieces for service tests: a fake clock and cheap argon2 parameters."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from tests.fakes.clock import FakeClock

CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
"""argon2id with 1 MiB and one pass: fast tests, same code path as production."""


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
