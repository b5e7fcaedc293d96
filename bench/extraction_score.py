"""The article-extraction benchmark's scoring method, and cross-validation over random halves.

Implements the method ``tests/fixtures/extraction/README.md`` describes (the benchmark's
published README and evaluate.py): ``\\w+`` tokens with case kept, multisets of 4-token
shingles (a text of 1-3 tokens is one shingle, an empty text none), per-page TP/FP/FN
divided by their sum so every page weighs the same, precision averaged over pages whose
output has a shingle, recall over all pages whose truth has one, and F1 the harmonic mean
of the two means.

Used by ``bench/fetch.py``; reads pages from ``tests/fixtures/extraction`` so it runs from
a clone.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

SHINGLE = 4
_WORD = re.compile(r"\w+")
Counts = tuple[float, float, float]


@dataclass(frozen=True)
class Page:
    """One benchmark page: its id, raw HTML bytes and the article body it should yield."""

    id: str
    html: bytes
    truth: str


def load_pages(folder: Path) -> list[Page]:
    """Every page of a benchmark folder (``ground-truth.json`` and ``html/<id>.html.gz``)."""
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    return [
        Page(page_id, gzip.decompress((folder / "html" / f"{page_id}.html.gz").read_bytes()),
             truth[page_id].get("articleBody") or "")
        for page_id in sorted(truth)
    ]


def shingles(text: str) -> Counter[tuple[str, ...]]:
    """The multiset of 4-token shingles of ``text`` (one shingle for 1-3 tokens)."""
    tokens = _WORD.findall(text)
    if not tokens:
        return Counter()
    if len(tokens) < SHINGLE:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i : i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1))


def page_counts(truth: str, prediction: str) -> Counts:
    """``(tp, fp, fn)`` for one page, divided by their sum (all 0.0 when both are empty)."""
    expected, got = shingles(truth), shingles(prediction)
    tp = sum((expected & got).values())
    fp = sum((got - expected).values())
    fn = sum((expected - got).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def _ratio(tp: float, other: float, fp: float, fn: float) -> float:
    if fp == 0 and fn == 0:
        return 1.0
    return tp / (tp + other) if tp + other else 0.0


def aggregate(counts: Sequence[Counts]) -> dict[str, float]:
    """``{"precision", "recall", "f1"}`` of a set of pages (F1 of the two means)."""
    precisions = [_ratio(tp, fp, fp, fn) for tp, fp, fn in counts if tp + fp > 0]
    recalls = [_ratio(tp, fn, fp, fn) for tp, fp, fn in counts if tp + fn > 0]
    p = statistics.fmean(precisions) if precisions else 0.0
    r = statistics.fmean(recalls) if recalls else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def page_f1(counts: Counts) -> float:
    """One page's own F1 (to find pages an extractor gets badly wrong)."""
    tp, fp, fn = counts
    p, r = _ratio(tp, fp, fp, fn), _ratio(tp, fn, fp, fn)
    return 2 * p * r / (p + r) if p + r else 0.0


def bootstrap_std(counts: Sequence[Counts], rounds: int = 1000, seed: int = 0) -> float:
    """Standard deviation of F1 over bootstrap resamples of the pages (seeded)."""
    rng = random.Random(seed)
    n = len(counts)
    values = [aggregate([counts[rng.randrange(n)] for _ in range(n)])["f1"] for _ in range(rounds)]
    return statistics.stdev(values)


def random_halves(n: int, rounds: int, seed: int = 0) -> list[tuple[list[int], list[int]]]:
    """``rounds`` random splits of ``range(n)`` into two halves (seeded, reproducible)."""
    rng = random.Random(seed)
    splits = []
    for _ in range(rounds):
        order = list(range(n))
        rng.shuffle(order)
        splits.append((sorted(order[: n // 2]), sorted(order[n // 2 :])))
    return splits


@dataclass(frozen=True)
class CrossValidation:
    """Held-out F1 when each candidate is picked on one random half and scored on the other.

    Attributes:
        held_out: F1 on the other half of the candidate picked on each half, per split.
        picked: how often each candidate was the best on the picking half.
        fixed: per candidate, its F1 on every half (both halves of every split), for
            the spread of one configuration over random halves.
    """

    held_out: list[float]
    picked: Counter[str]
    fixed: dict[str, list[float]]


def cross_validate(
    counts: dict[str, list[Counts]], rounds: int = 200, seed: int = 0
) -> CrossValidation:
    """Pick the best candidate on one random half, score it on the other, ``rounds`` times.

    Args:
        counts: per candidate name, its per-page counts (same page order for all).
        rounds: number of random splits; each split is used both ways.
    """
    n = len(next(iter(counts.values())))
    held_out: list[float] = []
    picked: Counter[str] = Counter()
    fixed: dict[str, list[float]] = {name: [] for name in counts}
    for first, second in random_halves(n, rounds, seed):
        for pick, test in ((first, second), (second, first)):
            scores = {name: aggregate([c[i] for i in pick])["f1"] for name, c in counts.items()}
            best = max(scores, key=lambda name: scores[name])
            picked[best] += 1
            held_out.append(aggregate([counts[best][i] for i in test])["f1"])
            for name, c in counts.items():
                fixed[name].append(aggregate([c[i] for i in test])["f1"])
    return CrossValidation(held_out, picked, fixed)


def score(extract: Callable[[bytes], str], pages: Sequence[Page]) -> list[Counts]:
    """Per-page counts of ``extract`` (HTML bytes -> body text) over ``pages``."""
    return [page_counts(page.truth, extract(page.html)) for page in pages]
