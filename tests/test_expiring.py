"""The one expiring map every TTL store uses (sovereign.expiring)."""

from __future__ import annotations

import ast
import math
import threading
from pathlib import Path

import pytest

from sovereign import expiring
from sovereign.expiring import ExpiringMap
from tests.fakes.clock import FakeClock


def test_an_entry_lives_exactly_its_ttl():
    clock = FakeClock()
    entries: ExpiringMap[str, int] = ExpiringMap(ttl_seconds=10, max_entries=4, clock=clock)
    entries.put("a", 1)
    clock.advance(9.999)
    assert entries.get("a") == 1
    clock.advance(0.001)
    assert entries.get("a") is None
    assert len(entries) == 0


def test_a_per_entry_ttl_overrides_the_default_and_inf_never_expires():
    clock = FakeClock()
    entries: ExpiringMap[str, int] = ExpiringMap(ttl_seconds=10, max_entries=4, clock=clock)
    entries.put("short", 1, ttl_seconds=1)
    entries.put("forever", 2, ttl_seconds=math.inf)
    clock.advance(5)
    assert "short" not in entries
    clock.advance(10**9)
    assert entries.get("forever") == 2


def test_touch_restarts_the_lifetime_of_a_live_entry_only():
    clock = FakeClock()
    entries: ExpiringMap[str, int] = ExpiringMap(ttl_seconds=10, max_entries=4, clock=clock)
    entries.put("a", 1)
    clock.advance(8)
    assert entries.touch("a")
    clock.advance(8)
    assert entries.get("a") == 1
    assert entries.seconds_left("a") == pytest.approx(2)
    clock.advance(2)
    assert not entries.touch("a")  # expired: touching cannot revive it
    assert entries.get("a") is None


def test_the_bound_drops_the_oldest_put_and_reports_it():
    dropped: list[tuple[str, int]] = []
    entries: ExpiringMap[str, int] = ExpiringMap(
        max_entries=2, clock=FakeClock(), on_drop=lambda k, v: dropped.append((k, v))
    )
    entries.put("a", 1)
    entries.put("b", 2)
    entries.put("a", 3)  # a put again: now the newest
    entries.put("c", 4)
    assert dropped == [("b", 2)]
    assert entries.items() == [("a", 3), ("c", 4)]


def test_expired_entries_are_reported_but_popped_ones_are_not():
    clock = FakeClock()
    dropped: list[str] = []
    entries: ExpiringMap[str, int] = ExpiringMap(
        ttl_seconds=5, max_entries=8, clock=clock, on_drop=lambda k, v: dropped.append(k)
    )
    entries.put("taken", 1)
    entries.put("left", 2)
    assert entries.pop("taken") == 1
    clock.advance(5)
    assert len(entries) == 0
    assert dropped == ["left"]


def test_the_drop_callback_may_use_the_map_without_deadlock():
    clock = FakeClock()
    entries: ExpiringMap[str, int] = ExpiringMap(ttl_seconds=1, max_entries=8, clock=clock)
    seen: list[int] = []

    def again(key: str, value: int) -> None:
        seen.append(len(entries))  # re-enters the map: must not wait on its own lock

    entries._on_drop = again
    entries.put("a", 1)
    clock.advance(2)
    worker = threading.Thread(target=entries.get, args=("a",))
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert seen == [0]


def test_exactly_one_of_many_concurrent_pops_wins():
    entries: ExpiringMap[str, int] = ExpiringMap(max_entries=8, clock=FakeClock())
    for round_number in range(50):
        entries.put("token", round_number)
        barrier = threading.Barrier(16)
        won: list[int] = []

        def take(barrier: threading.Barrier = barrier, won: list[int] = won) -> None:
            barrier.wait()
            value = entries.pop("token")
            if value is not None:
                won.append(value)

        threads = [threading.Thread(target=take) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert won == [round_number]


@pytest.mark.parametrize(("ttl", "bound"), [(0, 1), (-1, 1), (1, 0)])
def test_a_useless_map_is_refused_when_built(ttl, bound):
    with pytest.raises(ValueError):
        ExpiringMap(ttl_seconds=ttl, max_entries=bound)


def test_the_module_imports_nothing_of_ours():
    tree = ast.parse(Path(expiring.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("sovereign")
        if isinstance(node, ast.Import):
            assert not any(alias.name.startswith("sovereign") for alias in node.names)
