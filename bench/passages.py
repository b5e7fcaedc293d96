"""Which passages a web answer's question ranks first, without the model (DESIGN §4).

After an approved search or page read the product cuts what came back into passages,
ranks them by the question's words (``sovereign.conversation.sources.candidates``) and
the model chooses among the first few, listed best first: a small model mostly takes
the first. So what the ranking puts first decides much of a web answer, and it can be
measured in milliseconds on every web prompt of the household benchmark, both halves,
against the content each prompt is answered from (``bench/web``).

    .venv/bin/python bench/passages.py [--prompts FILE --web-content DIR] [--show] [--judge]

With ``--judge``, the shipped ranking's candidates are also ordered by the embedded
default model judging each alone (``sovereign.conversation.judge``, what a turn on the
default model quotes), and the seconds it took per question are printed (median, p90).

For each web prompt: the passages that hold the answer (``answer.any``) and the decoys
(``answer.decoys``, not also holding the answer), as the turn reads them (web.search's
five results; web.fetch's first part of the page); then, per ranking, how often an
answer passage is ranked first, is among the candidates the model is shown, and how
often a decoy is ranked above every answer passage. A ranking to compare is a function
of (sources, question, language, today) in :data:`RANKINGS`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the benchmark's world uses the fakes in tests/
sys.path.insert(0, str(REPO / "src"))

import household_world  # noqa: E402
from household import half  # noqa: E402
from household_web import fold, is_web_prompt  # noqa: E402
from household_world import CONTENT_DAY, canned_pages, canned_results  # noqa: E402

from sovereign.capabilities.web_fetch import MAX_RESULT_BYTES, fit_part  # noqa: E402
from sovereign.capabilities.web_search import MAX_RESULTS, _entry  # noqa: E402
from sovereign.conversation.judge import judged  # noqa: E402
from sovereign.conversation.sources import CANDIDATES, Sources, candidates, ranking  # noqa: E402
from sovereign.net.extract import extract_text  # noqa: E402

PROMPTS = Path(__file__).with_name("household_prompts.json")

Ranking = Callable[[Sources, str, str, date], list[str]]
RANKINGS: dict[str, Ranking] = {"shipped": candidates}
"""The rankings compared, by name: the shipped one first."""


def read_sources(prompt: dict[str, Any], pages: dict[str, bytes]) -> Sources:
    """The sources the prompt's turn reads, shaped as the capabilities return them."""
    sources = Sources()
    if prompt["expect"]["tools"] == ["web.fetch"]:
        url = prompt["expect"]["arguments"]["web.fetch"]["url"]
        text = extract_text(pages[url], "text/html", "utf-8", url)
        result = {"url": url, "title": text.title, "truncated": False}
        sources.add_result("web.fetch", fit_part(result, text, 0, MAX_RESULT_BYTES))
    else:
        raw = canned_results(prompt["scenario"]["web_results"])
        results = [entry for item in raw if (entry := _entry(item)) is not None]
        sources.add_result("web.search", {"results": results[:MAX_RESULTS]})
    return sources


def kinds(sources: Sources, prompt: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The numbers of the quotable passages holding the answer, and of those holding a
    decoy and not the answer."""
    answers, decoys = set(), set()
    wanted = [fold(a) for a in prompt["answer"]["any"]]
    wrong = [fold(d) for d in prompt["answer"]["decoys"]]
    for passage in sources.quotable():
        text = fold(passage.text)
        if any(a in text for a in wanted):
            answers.add(passage.id)
        elif any(d in text for d in wrong):
            decoys.add(passage.id)
    return answers, decoys


def score(ranked: Sequence[str], answers: set[str], decoys: set[str]) -> dict[str, bool]:
    """``first``: an answer passage is ranked first; ``shown``: one is among the
    candidates; ``decoy_above``: a decoy is ranked above every answer passage."""
    first_answer = next((i for i, n in enumerate(ranked) if n in answers), len(ranked))
    return {
        "first": bool(ranked) and ranked[0] in answers,
        "shown": first_answer < min(len(ranked), CANDIDATES),
        "decoy_above": any(n in decoys for n in ranked[:first_answer]),
    }


class JudgedRanking:
    """The shipped ranking's candidates ordered by the embedded default model's judgement
    of each (:func:`~sovereign.conversation.judge.judged`, those the rules put late kept
    after the others), timing each question."""

    def __init__(self) -> None:
        from sovereign.conversation.backends.embedded.backend import EmbeddedBackend
        from sovereign.service.wiring import embedded_load_options

        self.backend = EmbeddedBackend(load=embedded_load_options(n_ctx=2048))
        self.seconds: list[float] = []

    def __call__(self, sources: Sources, question: str, language: str, today: date) -> list[str]:
        ranked = ranking(sources, question, language, today)
        started = time.perf_counter()
        ordered = asyncio.run(judged(self.backend, sources, question, ranked.numbers, ranked.late))
        self.seconds.append(time.perf_counter() - started)
        return ordered

    def timing(self) -> str:
        """``judged in <median> s a question (p90 <p90> s), n questions``."""
        times = sorted(self.seconds)
        p90 = times[min(len(times) - 1, round(0.9 * (len(times) - 1)))]
        return (
            f"judged in {statistics.median(times):.1f} s a question (p90 {p90:.1f} s), "
            f"{len(times)} questions"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=Path, default=PROMPTS)
    parser.add_argument("--web-content", type=Path, default=None)
    parser.add_argument("--show", action="store_true", help="print each prompt's ranking")
    parser.add_argument("--variants", type=Path, help="a Python file defining RANKINGS to add")
    parser.add_argument(
        "--judge", action="store_true", help="also order by the default model's judgement"
    )
    args = parser.parse_args()
    judge = JudgedRanking() if args.judge else None
    if judge is not None:
        RANKINGS["judged"] = judge
    if args.variants is not None:
        extra: dict[str, Any] = {}
        exec(compile(args.variants.read_text(encoding="utf-8"), str(args.variants), "exec"), extra)
        RANKINGS.update(extra["RANKINGS"])
    if args.web_content is not None:
        household_world.WEB_CONTENT = args.web_content.resolve()
    prompts = json.loads(args.prompts.read_text(encoding="utf-8"))["prompts"]
    web = [p for p in prompts if is_web_prompt(p)]
    pages = canned_pages()
    table: dict[tuple[str, str], list[dict[str, bool]]] = {}
    for prompt in web:
        sources = read_sources(prompt, pages)
        answers, decoys = kinds(sources, prompt)
        for name, rank in RANKINGS.items():
            ranked = rank(sources, prompt["prompt"], prompt["lang"], CONTENT_DAY)
            marks = score(ranked, answers, decoys)
            for group in (half(prompt), "all"):
                table.setdefault((name, group), []).append(marks)
            if args.show:
                tags = ["A" if n in answers else "d" if n in decoys else "." for n in ranked]
                print(f"{name:12} {prompt['id']:28} {' '.join(tags)}")
    print(f"{len(web)} web prompts from {args.prompts.name}; content day {CONTENT_DAY}")
    print(f"{'ranking':28} {'half':8} {'n':>3} {'first':>7} {'shown':>7} {'decoy first':>12}")
    for (name, group), rows in table.items():
        n = len(rows)
        first = sum(r["first"] for r in rows)
        shown = sum(r["shown"] for r in rows)
        decoy = sum(r["decoy_above"] for r in rows)
        print(f"{name:28} {group:8} {n:3} {first:4}/{n:<2} {shown:4}/{n:<2} {decoy:9}/{n:<2}")
    if judge is not None:
        print(judge.timing())
        judge.backend.close()
    print(
        "first: an answer passage ranked first; shown: one among the "
        f"{CANDIDATES} the model reads; decoy first: a decoy ranked above every answer passage"
    )


if __name__ == "__main__":
    main()
