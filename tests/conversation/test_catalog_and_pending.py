"""Tool-name mapping in one place, and the bounded, expiring store of paused turns."""

from __future__ import annotations

import pytest

from sovereign.conversation import InvalidConfirmation, PendingTurnStore, ToolCatalog
from sovereign.conversation.offer.catalog import model_safe_name
from sovereign.conversation.pending import PendingTurn, Proposal, TurnProgress
from tests.fakes.clock import FakeClock


def definition(name: str, version: int = 1) -> dict:
    return {"name": name, "version": version, "description": name, "parameters": {"type": "object"}}


@pytest.mark.parametrize(
    ("capability", "safe"),
    [
        ("web.search", "web_search"),
        ("home_assistant.get_state", "home_assistant_get_state"),
        ("pihole.stats.summary", "pihole_stats_summary"),
    ],
)
def test_dotted_names_map_to_the_model_alphabet(capability, safe):
    assert model_safe_name(capability) == safe
    catalog = ToolCatalog([definition(capability, 3)])
    assert catalog.tools()[0]["function"]["name"] == safe
    target = catalog.resolve(safe)
    assert (target.capability, target.version) == (capability, 3)
    assert catalog.resolve(capability) == target


def test_names_that_would_collide_are_refused_before_any_model_sees_them():
    with pytest.raises(ValueError, match="map to a_b_c"):
        ToolCatalog([definition("a.b_c"), definition("a_b.c")])


def test_unknown_tool_names_resolve_to_nothing():
    assert ToolCatalog([definition("web.search")]).resolve("web_fetch") is None


def test_catalog_from_registry_offers_the_latest_version(world):
    catalog = ToolCatalog.from_registry(world.executor.registry)
    names = sorted(t["function"]["name"] for t in catalog.tools())
    assert names == ["system_health", "web_fetch", "web_search"]


def paused(token: str, owner: str = "s1") -> PendingTurn:
    progress = TurnProgress(catalog=ToolCatalog([]), context=[])
    return PendingTurn(token, owner, progress, Proposal("call_1", "x_y", None, {}), ())


def test_store_is_bounded_and_forgets_the_oldest_first():
    forgotten: list[str] = []
    store = PendingTurnStore(max_turns=2, on_forget=forgotten.append)
    for token in ("t1", "t2", "t3"):
        store.put(paused(token))
    assert len(store) == 2 and forgotten == ["t1"]
    with pytest.raises(InvalidConfirmation):
        store.take("t1", "s1")
    assert store.take("t3", "s1").token == "t3"


def test_store_holds_a_turn_for_ttl_plus_grace_then_forgets_it():
    clock, forgotten = FakeClock(), []
    store = PendingTurnStore(
        ttl_seconds=120, grace_seconds=60, clock=clock, on_forget=forgotten.append
    )
    store.put(paused("t1"))
    store.put(paused("t2"))
    clock.advance(179)
    assert store.take("t1", "s1").token == "t1"
    clock.advance(1)
    assert len(store) == 0 and forgotten == ["t2"]


def test_a_turn_is_taken_once_and_only_by_its_owner():
    store = PendingTurnStore()
    store.put(paused("t1", owner="s1"))
    with pytest.raises(InvalidConfirmation):
        store.take("t1", "s2")
    store.take("t1", "s1")
    with pytest.raises(InvalidConfirmation):
        store.take("t1", "s1")


def test_store_size_must_be_positive():
    with pytest.raises(ValueError):
        PendingTurnStore(max_turns=0)
