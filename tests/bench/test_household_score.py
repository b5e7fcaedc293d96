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


QUOTE = (
    "> A step-by-step guide to cleaning residential solar panels without voiding the "
    "warranty.\n> \u2014 example.org"
)


def test_a_quote_word_for_word_does_not_count_against_the_answer_s_language():
    from household_score import score_language

    german = {"lang": "de"}
    assert score_language(german, f"Die Quelle ist auf Englisch; das steht dort:\n\n{QUOTE}")
    assert score_language(german, QUOTE) is False  # nothing in the household's language
    # the answer's own words still decide: English words outside the quote fail
    assert (
        score_language(german, f"The source is in English; this is what it says:\n\n{QUOTE}")
        is False
    )


def test_a_read_the_product_proposed_counts_as_the_turns_choice():
    from household import TurnRecord, add_product_reads

    record = TurnRecord(id="x", klass="device", scenario="", half="holdout")
    record.proposals = [("web.search", {"query": "q"})]
    record.receipts = [
        {"capability": "web.search", "locality": "external", "outcome": "executed"},
        {"capability": "system.health", "locality": "local", "outcome": "executed"},
    ]
    add_product_reads(record)
    assert record.proposals == [("web.search", {"query": "q"}), ("system.health", {})]
    add_product_reads(record)  # counted once
    assert len(record.proposals) == 2
