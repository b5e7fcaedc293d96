"""Which household family a question's words name, without the model (DESIGN §4).

The turn loop offers a family's stand-in, and reads a family first, by the words a
question holds (``sovereign.conversation.offer.subjects.named_families``): a compound
such as "Briefkasten" that names the device sends its read first. This prints, for a
file of questions with the family each one is about, how often the families named are
exactly those, how often a family is named that is not (wrong), and how often the
expected family is missed, per language group and expected family.

    .venv/bin/python bench/subjects.py [--prompts FILE]

The file is a JSON list of ``{"q": question, "lang": ISO 639-1, "expect": "device" |
"pihole" | "home" | "none"}``; the default is ``subjects_prompts.json`` beside this
script (German and Dutch compounds and their neighbours, the other languages' boxes).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sovereign.capabilities import home_assistant_facts, pihole, system
from sovereign.conversation.offer.subjects import named_families

PROMPTS = Path(__file__).with_name("subjects_prompts.json")
FAMILIES = {"device": {"system"}, "pihole": {"pihole"}, "home": {"home_assistant"}, "none": set()}
HOUSEHOLD = [
    SimpleNamespace(phrases=p)
    for p in (system.PHRASES, pihole.PHRASES, home_assistant_facts.PHRASES)
]


def outcome(question: str, language: str, expect: str) -> str:
    """``right`` (exactly the expected families), ``wrong`` (a family not expected is
    named) or ``missed`` (the expected family is not named, nothing else is)."""
    named = set(named_families(question, HOUSEHOLD, language))
    expected = FAMILIES[expect]
    if named == expected:
        return "right"
    return "wrong" if named - expected else "missed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=Path, default=PROMPTS)
    args = parser.parse_args()
    rows = json.loads(args.prompts.read_text(encoding="utf-8"))
    table: Counter[tuple[str, str, str]] = Counter()
    for row in rows:
        group = row["lang"] if row["lang"] in ("de", "nl") else "other"
        result = outcome(row["q"], row["lang"], row["expect"])
        table[(group, row["expect"], result)] += 1
        table[("all", "all", result)] += 1
    print(f"{len(rows)} questions from {args.prompts.name}")
    print(f"{'languages':10} {'expected':8} {'n':>4} {'right':>6} {'wrong':>6} {'missed':>7}")
    for group, expect in sorted({(g, e) for g, e, _ in table}):
        counts = [table[(group, expect, r)] for r in ("right", "wrong", "missed")]
        print(f"{group:10} {expect:8} {sum(counts):4} {counts[0]:6} {counts[1]:6} {counts[2]:7}")
    print("wrong: a family the question is not about is named; missed: its family is not")


if __name__ == "__main__":
    main()
