"""The household benchmark's argument rules (bench/household_score.py)."""

from __future__ import annotations

from household_score import arguments_match


def test_exact_arguments_allow_the_decisions_own_fields_and_nothing_else():
    exact = {"$exact": True}
    assert arguments_match(exact, {})
    assert arguments_match(exact, {"also_asked": "nothing_else", "facts": ["disk"]})
    assert not arguments_match(exact, {"facts": ["disk"], "period": "today"})
    assert arguments_match({"period": "today"}, {"period": "today", "facts": ["blocked"]})
    assert not arguments_match({"period": "today"}, {"period": "last_7_days"})
