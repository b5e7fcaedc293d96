"""The household-identifier check: recall, false-flag rate and time per proposal.

    .venv/bin/python bench/identifiers.py [--tables DIR] [--repeat N] [--show]

Reads three files from DIR (default ``bench/identifiers/``):

- ``household.json``: the household the check knows (the arguments of
  ``sovereign.egress.Household.build``; ``home_assistant`` as ``[entity_id, name]``);
- ``identifiers.jsonl``: one case a line, ``{"capability", "text", "identifier",
  "kinds"?}``; a case is found when a flag overlaps the ``identifier`` substring
  (with one of ``kinds``, when given);
- ``ordinary.jsonl``: ``{"capability", "text"}`` lines that hold no household
  detail; any flag on one is a false flag;
- ``lookalikes.jsonl``: look-alike spellings of the household's words (other
  scripts' letters, digits for letters, words swapped), as identifier cases with a
  ``part``: ``tuned`` (the cases the rules were written against) or ``held_out``
  (written with them and never used to change a rule); recall is given per part;
- ``lookalike_ordinary.jsonl``: ordinary queries and URLs near those rules (digits
  inside words, other scripts, words like the household's), in the same two parts;
  any flag is a false flag.

Prints recall (target >= 98 %), the false-flag rate (target <= 2 %) and the check's
time per proposal, next to the time of the visible-character rule that stage 2
already runs on the same texts in the same run (timings are noisy on a shared
machine: read the ratio). ``--show`` lists every miss and false flag.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from sovereign.egress import Household, find_identifiers, visible_text

TABLES = Path(__file__).resolve().parent / "identifiers"
TARGETS = {"recall": 0.98, "false_flag_rate": 0.02, "ms_per_proposal": 5.0}


def load(tables: Path) -> tuple[Household, list[dict[str, Any]], list[dict[str, Any]]]:
    facts = json.loads((tables / "household.json").read_text())
    facts.pop("about", None)
    facts["home_assistant"] = [tuple(pair) for pair in facts.get("home_assistant", [])]
    household = Household.build(**facts)
    return household, _lines(tables / "identifiers.jsonl"), _lines(tables / "ordinary.jsonl")


LOOKALIKE_KINDS = frozenset({"look_alike", "mixed_script"})


def _kinds(case: dict[str, Any], household: Household) -> set[str]:
    return {flag.kind for flag in find_identifiers(case["text"], household)}


def lookalike_figures(tables: Path, household: Household, show: bool) -> list[str]:
    """Recall per part of ``lookalikes.jsonl`` and the false flags of its ordinary set."""
    cases = _lines(tables / "lookalikes.jsonl")
    ordinary = _lines(tables / "lookalike_ordinary.jsonl")
    lines = []
    for part in ("tuned", "held_out"):
        chosen = [case for case in cases if case["part"] == part]
        kept = [case for case in chosen if found(case, household)]
        lines.append(f"look-alike recall ({part}): {len(kept) / len(chosen):7.1%}"
                     f"  ({len(kept)}/{len(chosen)})")  # fmt: skip
        if show:
            lines += [f"MISS  {c['text']!r}" for c in chosen if c not in kept]
    false = [case for case in ordinary if find_identifiers(case["text"], household)]
    for part in ("tuned", "held_out"):
        chosen = [case for case in ordinary if case["part"] == part]
        flagged = [case for case in false if case["part"] == part]
        new = [case for case in flagged if _kinds(case, household) & LOOKALIKE_KINDS]
        lines.append(f"look-alike false flags ({part}): {len(flagged) / len(chosen):7.1%}"
                     f"  ({len(flagged)}/{len(chosen)}; by the look-alike rules: "
                     f"{len(new)}/{len(chosen)} = {len(new) / len(chosen):.1%})")  # fmt: skip
    if show:
        for case in false:
            flags = find_identifiers(case["text"], household)
            spans = [(case["text"][f.start : f.end], f.kind) for f in flags]
            lines.append(f"FALSE {case['text']!r}  {spans}")
    return lines


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def found(case: dict[str, Any], household: Household) -> bool:
    text, wanted = case["text"], case["identifier"]
    at = text.find(wanted)
    if at < 0:
        raise ValueError(f"identifier {wanted!r} is not in {text!r}")
    kinds = set(case.get("kinds") or [])
    for flag in find_identifiers(text, household):
        overlaps = flag.start < at + len(wanted) and at < flag.end
        if overlaps and (not kinds or flag.kind in kinds):
            return True
    return False


def timed(function: Any, texts: list[str], repeat: int) -> list[float]:
    """Milliseconds per call, one figure per text (best of ``repeat``)."""
    figures = []
    for text in texts:
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            function(text)
            best = min(best, time.perf_counter() - started)
        figures.append(best * 1000)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=Path, default=TABLES)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--show", action="store_true", help="list misses and false flags")
    options = parser.parse_args()
    household, cases, ordinary = load(options.tables)

    misses = [case for case in cases if not found(case, household)]
    flagged = [(case, find_identifiers(case["text"], household)) for case in ordinary]
    false_flags = [(case, flags) for case, flags in flagged if flags]
    recall = 1 - len(misses) / len(cases)
    false_rate = len(false_flags) / len(ordinary)

    texts = [case["text"] for case in cases + ordinary]
    check_ms = timed(lambda text: find_identifiers(text, household), texts, options.repeat)
    visible_ms = timed(lambda text: visible_text(text, "query"), texts, options.repeat)
    median, p99 = statistics.median(check_ms), _percentile(check_ms, 0.99)
    baseline = statistics.median(visible_ms)

    print(f"identifier cases: {len(cases)}; ordinary queries and URLs: {len(ordinary)}")
    print(
        f"recall:          {recall:7.1%}  ({len(cases) - len(misses)}/{len(cases)})"
        f"  target >= {TARGETS['recall']:.0%}"
    )
    print(
        f"false-flag rate: {false_rate:7.1%}  ({len(false_flags)}/{len(ordinary)})"
        f"  target <= {TARGETS['false_flag_rate']:.0%}"
    )
    print(
        f"time per proposal: median {median:.3f} ms, p99 {p99:.3f} ms, max {max(check_ms):.3f} ms"
        f"  target <= {TARGETS['ms_per_proposal']:g} ms"
    )
    print(
        f"  visible-character rule on the same texts: median {baseline:.4f} ms "
        f"(check / rule = {median / baseline:.0f}x)"
    )
    for line in lookalike_figures(options.tables, household, options.show):
        print(line)
    if options.show:
        for case in misses:
            print(f"MISS  {case['text']!r}  (wanted {case['identifier']!r})")
        for case, flags in false_flags:
            spans = [(case["text"][f.start : f.end], f.kind) for f in flags]
            print(f"FALSE {case['text']!r}  {spans}")
    met = (
        recall >= TARGETS["recall"]
        and false_rate <= TARGETS["false_flag_rate"]
        and p99 <= TARGETS["ms_per_proposal"]
    )
    return 0 if met else 1


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


if __name__ == "__main__":
    sys.exit(main())
