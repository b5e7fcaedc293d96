"""Words the assistant adds to a search: result relevance with them and without them.

    .venv/bin/python bench/query_words.py [--cases FILE] [--show]

Each case of ``bench/query_words/cases.jsonl`` (README beside it) is a question the
household asked (its messages), the query a model proposed for it with words the
household did not say (a stale year, a guessed place, name or product, a word of
the model's own knowledge), and the results a search engine holds for that
question, each graded for the household's question (2 answers it, 1 on the topic,
0 of no use: last year's page, another town, another product).

Both queries go through the real ``web.search`` capability (approved through the
executor: query hygiene, SearXNG client, echo check, result shaping, at most five
results) to a replaying SearXNG on 127.0.0.1 (``tests/fakes/searxng.py``) whose
answer is the captured ``search_basic`` exchange with its results replaced by the
case's, ranked for the query received: Okapi BM25 (k1 1.2, b 0.75) over title and
snippet, words Snowball-stemmed in the case's language, results matching no word
left out, ties broken by a hash of the address (so the file's order favours
nothing). The added words are the ones the product's check finds; "without" is the
proposed query with them taken out by the product's own
``sovereign.conversation.approval.added_words.without_added`` (the query as it is
sent; the proposal as it was when no word of the household's would remain).

Printed per category (year, place, name, product, other), per kind of addition
(wrong, guess, right) and for all cases: nDCG@5 with and without the added words
and their ratio, how often the first result answers the question, wins and losses
case by case, and the best of both (the household keeps an added word only where
it helps: what a flagged card allows). Then the check against the cases'
annotations: added words found exactly, missed and wrongly found.

The ranking is lexical and the results are written, not captured: the figures say
what an added word does when a search engine matches words, on these cases; they
do not measure a real engine's ranking or how often a model adds which words.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import re
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import snowballstemmer

from sovereign.capabilities import web_search
from sovereign.conversation.approval.added_words import (
    Reading,
    added_spans,
    take_out,
    without_added,
)
from sovereign.conversation.voice.words import SNOWBALL
from sovereign.executor import AuditLog, ConfirmationStore, Executor, Registry, TurnState

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "bench" / "query_words" / "cases.jsonl"
K1, B = 1.2, 0.75
DEPTH = web_search.MAX_RESULTS
_WORD = re.compile(r"[^\W_]+")


POLICIES = ("flag all", "remove all", "remove numbers", "shipped")
"""What happens to the added words: all stay on the card, flagged; all are taken out
when a word of the household's remains; only words holding a digit are taken out; the
product's rule (taken out when the household's own words are at least as many)."""


@dataclass
class Outcome:
    """One case's figures, per policy: the query sent, its nDCG@5, whether the first
    result answers the question."""

    case: dict[str, Any]
    queries: dict[str, str]
    ndcg: dict[str, float]
    first: dict[str, bool]


def policy_queries(case: dict[str, Any]) -> dict[str, str]:
    """The query each policy sends for ``case``."""
    query, said, language = case["proposed"], case["said"], case["language"]
    reading = Reading.of(query, said, language)
    numbers = [span for span in reading.spans if any(c.isdigit() for c in query[slice(*span)])]
    return {
        "flag all": query,
        "remove all": take_out(query, reading.spans) if reading.own else query,
        "remove numbers": take_out(query, numbers) if reading.own else query,
        "shipped": without_added(query, said, language) or query,
    }


def terms(text: str, language: str) -> list[str]:
    """The engine's words of ``text``: lower-cased, Snowball-stemmed."""
    stemmer = snowballstemmer.stemmer(SNOWBALL[language])
    return [stemmer.stemWord(word) for word in _WORD.findall(text.casefold())]


def ranked(query: str, results: list[dict[str, Any]], language: str) -> list[dict[str, Any]]:
    """``results`` that match a word of ``query``, best BM25 score first."""
    documents = [terms(f"{r['title']} {r['snippet']}", language) for r in results]
    average = statistics.mean(len(d) for d in documents)
    asked = set(terms(query, language))
    holding = Counter(word for d in documents for word in set(d))
    count = len(documents)
    scored = []
    for result, document in zip(results, documents, strict=True):
        frequency = Counter(document)
        score = 0.0
        for word in asked & set(document):
            idf = math.log(1 + (count - holding[word] + 0.5) / (holding[word] + 0.5))
            norm = K1 * (1 - B + B * len(document) / average)
            score += idf * frequency[word] * (K1 + 1) / (frequency[word] + norm)
        if score > 0:
            tie = hashlib.sha256(result["url"].encode()).hexdigest()
            scored.append((-score, tie, result))
    return [result for _, _, result in sorted(scored, key=lambda item: item[:2])]


def searxng_body(captured: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    """The captured SearXNG answer with ``results`` in place of its own, in its shape."""
    shaped = []
    for position, result in enumerate(results, 1):
        url = result["url"]
        scheme, rest = url.split("://", 1)
        host, _, path = rest.partition("/")
        shaped.append({
            "url": url, "title": result["title"], "content": result["snippet"],
            "engine": "local-json", "template": "default.html",
            "parsed_url": [scheme, host, "/" + path, "", "", ""], "img_src": "",
            "thumbnail": "", "priority": "", "engines": ["local-json"],
            "positions": [position], "score": 1 / position, "category": "general",
            "publishedDate": None,
        })  # fmt: skip
    return {**captured, "results": shaped, "number_of_results": len(shaped)}


def ndcg(grades: list[int], pool: list[int]) -> float:
    """nDCG at :data:`DEPTH` of ``grades`` (in rank order) against the best order of ``pool``."""

    def gain(values: list[int]) -> float:
        return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(values[:DEPTH]))

    ideal = gain(sorted(pool, reverse=True))
    return gain(grades) / ideal if ideal else 0.0


class Replay:
    """The replaying SearXNG and an executor whose web.search points at it."""

    def __init__(self, fake: Any, data_dir: Path) -> None:
        from tests.fakes.searxng import Reply

        self.fake, self.case = fake, None
        self.reply = Reply.from_fixture("search_basic")
        fake.answer("/search", self.answer)
        registry = Registry()
        web_search.register(registry, base_url=fake.base_url)
        self.confirmations = ConfirmationStore()
        self.executor = Executor(registry, confirmations=self.confirmations,
                                 audit=AuditLog(data_dir))  # fmt: skip

    def answer(self, request: Any) -> Any:
        results = ranked(request.q or "", self.case["results"], self.case["language"])
        return self.reply.with_changes(body=searxng_body(self.reply.body, results))

    async def grades(self, case: dict[str, Any], query: str) -> list[int]:
        """The grades of the results web.search returns for ``query``, in order."""
        self.case = case
        arguments = self.executor.validate("web.search", 1, {"query": query}).arguments
        token = self.confirmations.issue("web.search", 1, arguments)
        outcome = await self.executor.invoke(
            "web.search", 1, arguments, policy={"external_enabled": True},
            turn_state=TurnState(), confirmation_token=token,
        )  # fmt: skip
        if not outcome.ok:
            raise RuntimeError(f"{case['id']}: {outcome.error_code} {outcome.message}")
        grade = {r["url"]: r["grade"] for r in case["results"]}
        return [grade[item["url"]] for item in outcome.result["results"]]


async def measure(cases: list[dict[str, Any]]) -> list[Outcome]:
    from tests.fakes.searxng import FakeSearxng

    outcomes = []
    with FakeSearxng() as fake, tempfile.TemporaryDirectory() as data_dir:
        replay = Replay(fake, Path(data_dir))
        for case in cases:
            pool = [r["grade"] for r in case["results"]]
            queries = policy_queries(case)
            grades = {q: await replay.grades(case, q) for q in dict.fromkeys(queries.values())}
            outcomes.append(Outcome(
                case, queries,
                {p: ndcg(grades[q], pool) for p, q in queries.items()},
                {p: bool(grades[q]) and grades[q][0] == 2 for p, q in queries.items()},
            ))  # fmt: skip
    return outcomes


def row(label: str, group: list[Outcome]) -> str:
    means = {p: statistics.mean(o.ndcg[p] for o in group) for p in POLICIES}
    base = means["flag all"]
    cells = []
    for policy in POLICIES:
        ratio = f"x{means[policy] / base:.2f}" if base else "-"
        firsts = sum(o.first[policy] for o in group)
        cells.append(f"{means[policy]:6.3f} {ratio:>6} {firsts:>3}")
    best = statistics.mean(max(o.ndcg["flag all"], o.ndcg["remove all"]) for o in group)
    return f"  {label:<9} {len(group):>3}  " + "  ".join(cells) + f"  {best:6.3f}"


def report(outcomes: list[Outcome]) -> None:
    print(f"{len(outcomes)} cases, {len({o.case['language'] for o in outcomes})} languages; "
          f"per policy: mean nDCG@{DEPTH} of what web.search returned (grades 0-2), its ratio "
          "to 'flag all' (the proposal as it is), and how many first results answer")  # fmt: skip
    heads = "  ".join(f"{p:^17}" for p in POLICIES)
    print(f"  {'':<9} {'n':>3}  {heads}  {'best of':>6}")
    for key in ("category", "added_is"):
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for outcome in outcomes:
            groups[outcome.case[key]].append(outcome)
        for label in sorted(groups):
            print(row(label, groups[label]))
        print()
    print(row("all", outcomes))
    print("  (best of: the better of 'flag all' and 'remove all' case by case, as if the "
          "household edited every flagged card perfectly)")  # fmt: skip


def check_report(cases: list[dict[str, Any]]) -> None:
    exact = missed = extra = 0
    for case in cases:
        query = case["proposed"]
        found = [query[a:b] for a, b in added_spans(query, case["said"], case["language"])]
        exact += found == case["added"]
        missed += len(set(case["added"]) - set(found))
        extra += len(set(found) - set(case["added"]))
    print(f"word check on the cases: {exact}/{len(cases)} found exactly as annotated; "
          f"{missed} annotated spans missed, {extra} spans found beyond them")  # fmt: skip


def show(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        print(f"  {o.case['id']:<22} " + " ".join(f"{o.ndcg[p]:.2f}" for p in POLICIES)
              + f"  {o.case['proposed']!r} -> {o.queries['shipped']!r}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--show", action="store_true", help="print every case's figures")
    options = parser.parse_args()
    sys.path.insert(0, str(REPO))  # the replaying SearXNG lives in tests/
    lines = options.cases.read_text(encoding="utf-8").splitlines()
    cases = [json.loads(line) for line in lines if line.strip()]
    outcomes = asyncio.run(measure(cases))
    report(outcomes)
    check_report(cases)
    if options.show:
        show(outcomes)


if __name__ == "__main__":
    main()
