"""ConfirmationStore: single use, expiry, binding, concurrency, bounded memory (DESIGN §2)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from sovereign.executor import ConfirmationStore
from tests.fakes.clock import FakeClock

ARGS = {"query": "what's new in SearXNG"}


@pytest.fixture
def store(clock):
    return ConfirmationStore(clock=clock)


def test_a_token_is_consumed_once(store):
    token = store.issue("web.search", 1, ARGS)
    assert store.consume(token, "web.search", 1, ARGS) is True
    assert store.consume(token, "web.search", 1, ARGS) is False


def test_tokens_are_unguessable_and_distinct(store):
    tokens = {store.issue("web.search", 1, ARGS) for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(token) >= 43 for token in tokens)  # 256 bits, base64url


def test_a_token_expires_after_120_seconds(store, clock):
    token = store.issue("web.search", 1, ARGS)
    clock.advance(119.9)
    assert store.seconds_left(token) == pytest.approx(0.1)
    later = store.issue("web.search", 1, ARGS)
    clock.advance(0.1)
    assert store.consume(token, "web.search", 1, ARGS) is False
    assert store.consume(later, "web.search", 1, ARGS) is True


@pytest.mark.parametrize(
    ("name", "version", "arguments"),
    [
        ("web.fetch", 1, ARGS),
        ("web.search", 2, ARGS),
        ("web.search", 1, {"query": "what's new in SearXNG "}),
        ("web.search", 1, {"query": "what's new in SearXNG", "time_range": "day"}),
        ("web.search", 1, {}),
    ],
)
def test_a_token_only_fits_the_exact_call_and_a_mismatch_spends_it(store, name, version, arguments):
    token = store.issue("web.search", 1, ARGS)
    assert store.consume(token, name, version, arguments) is False
    assert store.consume(token, "web.search", 1, ARGS) is False


def test_argument_key_order_does_not_matter(store):
    token = store.issue("web.search", 1, {"query": "q", "time_range": "day"})
    assert store.consume(token, "web.search", 1, {"time_range": "day", "query": "q"})


def test_discard_forgets_a_token(store):
    token = store.issue("web.search", 1, ARGS)
    store.discard(token)
    store.discard("never-issued")
    assert store.consume(token, "web.search", 1, ARGS) is False


def test_expired_entries_are_swept(store, clock):
    for _ in range(50):
        store.issue("web.search", 1, ARGS)
    assert len(store) == 50
    clock.advance(121)
    assert len(store) == 0


def test_outstanding_tokens_are_capped_oldest_first():
    store = ConfirmationStore(clock=FakeClock(), max_outstanding=3)
    first = store.issue("web.search", 1, ARGS)
    rest = [store.issue("web.search", 1, ARGS) for _ in range(3)]
    assert len(store) == 3
    assert store.consume(first, "web.search", 1, ARGS) is False
    assert all(store.consume(token, "web.search", 1, ARGS) for token in rest)


def test_100_threads_consuming_one_token_exactly_one_wins(store):
    token = store.issue("web.search", 1, ARGS)
    barrier = threading.Barrier(100)
    wins: list[bool] = []

    def consume() -> None:
        barrier.wait()
        wins.append(store.consume(token, "web.search", 1, ARGS))

    threads = [threading.Thread(target=consume) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wins.count(True) == 1
    assert len(wins) == 100


async def test_100_coroutines_consuming_one_token_exactly_one_wins(store):
    token = store.issue("web.search", 1, ARGS)

    async def consume() -> bool:
        await asyncio.sleep(0)
        return await asyncio.to_thread(store.consume, token, "web.search", 1, ARGS)

    results = await asyncio.gather(*(consume() for _ in range(100)))
    assert results.count(True) == 1
