"""Cross-validation of the rule that chooses between the extractors' candidates.

The rule's two thresholds (:data:`sovereign.net.choose.CONTAINMENT` and
:data:`~sovereign.net.choose.SUBSTANTIAL_SHARE`) were set as round numbers from what they
mean, its three switches (:data:`~sovereign.net.choose.TRIM_TO_AGREED_EXTENT`,
:data:`~sovereign.net.choose.SURPLUS_MAY_BE_ARTICLE`,
:data:`~sovereign.net.choose.TRIM_CORE_TO_AGREED_EXTENT`) are on or off, and so is each step
added to the extraction since (``STEPS``: paragraphs made from ``<br><br>`` text, layout
tables read as blocks by the density extractor); this
checks them the way a held-out half would: the pages are split into k folds (each page
with all its rewritten forms in the same fold, so nothing of a test page is seen), the
best setting is picked on the other folds by the mean F1 over the published and
rewritten pages, and scored on the held-out fold. Printed: the held-out F1 (mean,
spread), how often each setting was picked, and the shipped setting's own spread.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import statistics
from collections import Counter
from collections.abc import Callable, Iterator

from extraction_score import Counts, Page, aggregate, page_counts

import sovereign.net.choose as choose_module
from sovereign.net import extract as today

__all__ = ["GRID", "rule_cross_validation"]

GRID = {"CONTAINMENT": (0.8, 0.9), "SUBSTANTIAL_SHARE": (0.0, 0.25, 0.5),
        "TRIM_TO_AGREED_EXTENT": (True, False), "SURPLUS_MAY_BE_ARTICLE": (False, True),
        "TRIM_CORE_TO_AGREED_EXTENT": (True, False)}


@contextlib.contextmanager
def _without(name: str) -> Iterator[None]:
    """The extraction with the tree rewrite ``name`` of :mod:`sovereign.net.extract` off."""
    saved = getattr(today, name)
    setattr(today, name, lambda root: root)
    try:
        yield
    finally:
        setattr(today, name, saved)


STEPS = {"<br><br> paragraphs": "paragraphs_from_breaks",
         "layout tables as blocks": "layout_tables_as_blocks"}
"""Each step on (shipped) or off: ``<br><br>`` paragraphs (off as on 2026-12-03), layout
tables read as blocks by the density extractor (off before the fourth 2026-12-05 change)."""


def _counts(pages: list[Page], sets: dict[str, list[str]],
            extract: Callable[[str], str]) -> dict[tuple[float, ...], dict[str, list[Counts]]]:
    shipped = tuple(getattr(choose_module, name) for name in GRID)
    results = {}
    try:
        for setting in itertools.product(*GRID.values(), *((True, False) for _ in STEPS)):
            for name, value in zip(GRID, setting[:len(GRID)], strict=True):
                setattr(choose_module, name, value)
            with contextlib.ExitStack() as stack:
                for on, function in zip(setting[len(GRID):], STEPS.values(), strict=True):
                    if not on:
                        stack.enter_context(_without(function))
                results[setting] = {
                    label: [page_counts(page.truth, extract(html))
                            for page, html in zip(pages, htmls, strict=True)]
                    for label, htmls in sets.items()}
    finally:
        for name, value in zip(GRID, shipped, strict=True):
            setattr(choose_module, name, value)
    return results


def _flipped(setting: tuple[float, ...], index: int) -> tuple[float, ...]:
    return (*setting[:index], not setting[index], *setting[index + 1:])


def _mean_f1(by_set: dict[str, list[Counts]], pages: list[int]) -> float:
    return statistics.fmean(aggregate([counts[i] for i in pages])["f1"]
                            for counts in by_set.values())


def rule_cross_validation(pages: list[Page], sets: dict[str, list[str]],
                          extract: Callable[[str], str], folds: int = 5,
                          rounds: int = 20) -> None:
    """Print the k-fold figures described in the module docstring."""
    results = _counts(pages, sets, extract)
    shipped = (*(getattr(choose_module, name) for name in GRID), *(True for _ in STEPS))
    labels = [*GRID, *STEPS]
    switches = {i: _flipped(shipped, i) for i, value in enumerate(shipped)
                if isinstance(value, bool)}
    held_out, own, picked = [], [], Counter()
    flips: dict[int, list[float]] = {i: [] for i in switches}
    for seed in range(rounds):
        order = list(range(len(pages)))
        random.Random(seed).shuffle(order)
        for k in range(folds):
            test = order[k::folds]
            train = [i for i in order if i not in set(test)]
            best = max(results, key=lambda setting: _mean_f1(results[setting], train))
            picked[best] += 1
            held_out.append(_mean_f1(results[best], test))
            own.append(_mean_f1(results[shipped], test))
            for i, other in switches.items():
                flips[i].append(own[-1] - _mean_f1(results[other], test))
    names = ", ".join(labels)
    print(f"choice rule, {folds}-fold cross-validation x {rounds} shuffles over {len(pages)} "
          f"pages (each with its {len(sets)} forms; F1 = mean over the forms):")
    print(f"  picked on the other folds, scored on the held-out fold: F1 "
          f"{statistics.fmean(held_out):.3f}, spread (std) {statistics.stdev(held_out):.4f}, "
          f"min {min(held_out):.3f}, max {max(held_out):.3f}")
    print(f"  shipped setting ({names} = {shipped}) on the same held-out folds: F1 "
          f"{statistics.fmean(own):.3f}, spread {statistics.stdev(own):.4f}")
    print(f"  settings picked ({names}): {dict(picked.most_common())}")
    print("  each switch as shipped against flipped, the rest as shipped, on the same held-out "
          "folds (paired difference):")
    for i, differences in flips.items():
        print(f"    {labels[i]} = {shipped[i]}: {statistics.fmean(differences):+.4f}, spread "
              f"{statistics.stdev(differences):.4f}, ahead in "
              f"{sum(d > 0 for d in differences)}, behind in {sum(d < 0 for d in differences)} "
              f"of {len(differences)}")
    for setting, by_set in results.items():
        print(f"    {setting}: " + " ".join(f"{label} {aggregate(c)['f1']:.3f}"
                                           for label, c in by_set.items()))
