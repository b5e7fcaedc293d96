"""bench/passages.py: where the ranking puts the passage that answers a web question."""

from __future__ import annotations

import json
from pathlib import Path

from household_world import canned_pages
from passages import kinds, read_sources, score

BENCH = Path(__file__).resolve().parents[2] / "bench"
PROMPTS = json.loads((BENCH / "household_prompts.json").read_text(encoding="utf-8"))["prompts"]


def test_first_shown_and_a_decoy_above_are_read_from_the_ranking():
    answers, decoys = {"1.3"}, {"1.1", "2.1"}
    assert score(["1.3", "1.1"], answers, decoys) == {
        "first": True, "shown": True, "decoy_above": False,
    }  # fmt: skip
    assert score(["1.1", "1.2", "1.3"], answers, decoys) == {
        "first": False, "shown": True, "decoy_above": True,
    }  # fmt: skip
    ranked = ["1.2", "1.4", "1.5", "1.6", "1.7", "1.3"]  # the answer sixth: not shown
    assert score(ranked, answers, decoys) == {
        "first": False, "shown": False, "decoy_above": False,
    }  # fmt: skip
    assert score([], answers, decoys)["first"] is False


def test_every_web_prompt_s_content_holds_a_passage_that_answers_as_the_turn_reads_it():
    pages = canned_pages()
    web = [p for p in PROMPTS if "decoys" in p.get("answer", {})]
    assert web
    for prompt in web:
        answers, decoys = kinds(read_sources(prompt, pages), prompt)
        assert answers, prompt["id"]  # a passage a turn can quote holds the answer
        assert not answers & decoys
