"""bench/subjects.py: which family a question's words name, counted without the model."""

from __future__ import annotations

import json

from subjects import PROMPTS, outcome


def test_right_wrong_and_missed_are_told_apart():
    assert outcome("Wie hoch ist die Speicherauslastung?", "de", "device") == "right"
    assert outcome("Wann wird der Briefkasten geleert?", "de", "none") == "right"
    assert outcome("Wie hoch ist die Speicherauslastung?", "de", "none") == "wrong"
    assert outcome("Wann wird der Briefkasten geleert?", "de", "device") == "missed"


def test_the_public_prompts_name_a_known_family_in_a_known_language():
    rows = json.loads(PROMPTS.read_text(encoding="utf-8"))
    assert len(rows) >= 50
    for row in rows:
        assert row["lang"] in {"en", "de", "fr", "es", "nl", "it"}
        assert row["expect"] in {"device", "pihole", "home", "none"}
        assert outcome(row["q"], row["lang"], row["expect"]) == "right", row["q"]
