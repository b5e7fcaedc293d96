"""Choosing a page's main content among the extractors' candidates (DESIGN §3 "Text").

Two extractors of different kinds each propose the article (:mod:`sovereign.net.extract`);
a third opinion comes from the page's own markup when it declares its article body
(JSON-LD ``articleBody``). The rule, in order:

1. **A dump is no candidate.** A candidate holding :data:`DUMP_SHARE` of the page's words
   is the whole page, unless its text is as free of links as an article's
   (:data:`ARTICLE_LINK_DENSITY`): a page that *is* one long article stays whole.
2. **The page's own declaration referees.** When JSON-LD declares an ``articleBody`` of
   at least :data:`DECLARED_MIN_WORDS` words, the candidate whose shingles agree best
   with it wins (the declaration is often cut or unstructured, so it referees and is
   never the text itself).
3. **Agreement trims, it never extends.** When one candidate is contained in the other
   (:data:`CONTAINMENT` of its shingles) and holds at least :data:`SUBSTANTIAL_SHARE` of
   its words, both found the same article. If the preferred
   (markup-following, recall-first) candidate is the larger, its surplus is what only it
   took for content. The blocks both agree on (:data:`AGREED_BLOCK` of a block's shingles
   in the other) mark where the article starts and ends: the preferred candidate is
   kept from its first agreed block to its last (:data:`TRIM_TO_AGREED_EXTENT`), so what
   lies between them (a list, a table, a quote the other missed) stays and what lies
   before or after (teasers, comments, related stories) goes, except the article's title
   (:data:`EXTENT_KEEPS_TITLE`: the headings just before the first agreed block from the
   nearest top-level one, the page's ``<h1>`` with its subtitles, which the
   density-scoring one often leaves out; a run of headings with no ``<h1>`` among them
   is a list of teasers and goes). If the
   density-scoring candidate is the larger, its surplus is text-dense neighbourhood
   (captions, bylines, comments), and the preferred one is kept, cut the same way to
   the extent the larger agrees on (:data:`TRIM_CORE_TO_AGREED_EXTENT`): what the
   preferred one holds before the first block the other agrees on or after the last
   is boilerplate the density-scoring one left out of the article (a share line, a
   caption, a footer), except the headings just before the first agreed block (its
   title, which the density-scoring one often leaves out).
4. **Disagreement: the larger article.** Candidates that do not contain one another found
   different regions; the one with more words is kept, unless its link density is that of
   navigation (:data:`NAVIGATION_LINK_DENSITY`) while the other's is not and the other
   holds at least :data:`SUBSTANTIAL_SHARE` of its words.

The thresholds are round numbers set from what they mean, then checked by
cross-validation over the public benchmark pages and their rewritten forms
(``bench/fetch.py``; docs/decisions/web-fetch-text-extraction.md).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

__all__ = ["Candidate", "choose"]

DUMP_SHARE = 0.9
"""A candidate with this share of the page's words is the page, not an extraction ..."""
ARTICLE_LINK_DENSITY = 0.05
"""... unless at most this share of its words are link text (an article's own rate)."""
NAVIGATION_LINK_DENSITY = 0.3
"""Link density of menus and link lists: a larger candidate this linked loses to an article."""
SUBSTANTIAL_SHARE = 0.25
"""A smaller candidate with less than this share of the larger's words is no alternative:
neither a core to trim to, nor another article."""
CONTAINMENT = 0.8
"""Share of the smaller candidate's 4-word shingles the larger must hold to agree."""
AGREED_BLOCK = 0.5
"""A block is agreed on when the other candidate holds this share of its shingles (most)."""
TRIM_TO_AGREED_EXTENT = True
"""The preferred candidate, when larger, is cut to its agreed extent (True), or replaced by
the smaller one (False, the rule before 2026-12-05)."""
EXTENT_KEEPS_TITLE = True
"""The preferred candidate, when larger and cut to its agreed extent, keeps its title: the
headings just before its first agreed block from the nearest top-level one (True, since
2026-12-06, as a cut core keeps the headings before it), or starts at that block (False,
before: the page's ``<h1>`` was lost where the other candidate leaves the title out)."""
TRIM_CORE_TO_AGREED_EXTENT = True
"""The preferred candidate, when it is the smaller and the larger holds it, is cut to the
extent the larger agrees on (True, since 2026-12-06), or kept whole (False, before)."""
SURPLUS_MAY_BE_ARTICLE = False
"""Whether a surplus that reads like the article (as free of links, in blocks as long as
the agreed core's) keeps the larger candidate whole; off since 2026-12-05 (the agreed
extent keeps what lies inside the article, cross-validated in ``bench/fetch.py``)."""
DECLARED_MIN_WORDS = 50
"""A declared ``articleBody`` shorter than this is a teaser, not a referee."""

_WORD = re.compile(r"\w+")
_HEADING = re.compile(r"#+ ")  # a rendered heading line
_TITLE = re.compile(r"# ")  # a rendered top-level heading (<h1>)


@dataclass(frozen=True)
class Candidate:
    """One extractor's proposal, measured.

    Attributes:
        name: which extractor (for tests and benches).
        blocks: the text of its blocks (paragraphs, items, rows...), in order.
        link_words: how many of its words are inside links.
        span: ``(first, end)`` when only blocks ``first`` to ``end - 1`` of the proposal
            are kept (its agreed extent); ``None`` for all of it.
    """

    name: str
    blocks: tuple[str, ...]
    link_words: int
    span: tuple[int, int] | None = None

    @property
    def words(self) -> int:
        """Its word count."""
        return sum(_count(block) for block in self.blocks)

    @property
    def link_density(self) -> float:
        """Share of its words that are link text (0 for an empty candidate)."""
        return self.link_words / self.words if self.words else 0.0

    @property
    def text(self) -> str:
        """Its blocks joined by line breaks."""
        return "\n".join(self.blocks)


def choose(
    candidates: list[Candidate | None], page_words: int, declared: str = ""
) -> Candidate | None:
    """The main content among ``candidates`` (see the module docstring); ``None`` if none.

    Args:
        candidates: the extractors' proposals, the preferred first (``None`` = nothing).
        page_words: words of visible text on the whole page.
        declared: the page's JSON-LD ``articleBody`` (``""`` when it declares none).
    """
    usable = [c for c in candidates if c is not None and c.words and not _dump(c, page_words)]
    if len(usable) < 2:
        return usable[0] if usable else None
    first, second = usable[0], usable[1]
    if _count(declared) >= DECLARED_MIN_WORDS:
        reference = _shingles(declared)
        return max((first, second), key=lambda c: _agreement(_shingles(c.text), reference))
    small, large = sorted((first, second), key=lambda c: c.words)
    if _contained(small, large) and small.words >= SUBSTANTIAL_SHARE * large.words:
        if large is second:
            if TRIM_CORE_TO_AGREED_EXTENT:
                return _agreed_extent(second, first, keep_headings=True)
            return first
        if SURPLUS_MAY_BE_ARTICLE and _surplus_is_article(small, large):
            return large
        if not TRIM_TO_AGREED_EXTENT:
            return small
        return _agreed_extent(small, large, keep_title=EXTENT_KEEPS_TITLE)
    if (large.link_density >= NAVIGATION_LINK_DENSITY > small.link_density
            and small.words >= SUBSTANTIAL_SHARE * large.words):
        return small
    return large


def _dump(candidate: Candidate, page_words: int) -> bool:
    return (candidate.words >= DUMP_SHARE * page_words
            and candidate.link_density > ARTICLE_LINK_DENSITY)


def _contained(small: Candidate, large: Candidate) -> bool:
    inner = _shingles(small.text)
    shared = sum((inner & _shingles(large.text)).values())
    return shared >= CONTAINMENT * sum(inner.values())


def _agreed_extent(other: Candidate, kept: Candidate, keep_headings: bool = False,
                   keep_title: bool = False) -> Candidate:
    """``kept`` from its first block ``other`` agrees on to its last (all of it when none
    is agreed on, which containment makes rare); with ``keep_headings``, from the
    headings just before its first agreed block; with ``keep_title``, from the nearest
    top-level heading among them (the title and its subtitles; without one, none)."""
    reference = _shingles(other.text)
    agreed = [i for i, block in enumerate(kept.blocks) if _agreed(block, reference)]
    if not agreed:
        return kept
    first, end = agreed[0], agreed[-1] + 1
    while keep_headings and first and _HEADING.match(kept.blocks[first - 1]):
        first -= 1
    start = first
    while keep_title and start and _HEADING.match(kept.blocks[start - 1]):
        start -= 1
        if _TITLE.match(kept.blocks[start]):
            first = start
            break
    if (first, end) == (0, len(kept.blocks)):
        return kept
    return replace(kept, blocks=kept.blocks[first:end], span=(first, end))


def _agreed(block: str, reference: Counter[tuple[str, ...]]) -> bool:
    own = _shingles(block)
    return sum((own & reference).values()) >= AGREED_BLOCK * sum(own.values())


def _surplus_is_article(small: Candidate, large: Candidate) -> bool:
    """Whether what only ``large`` holds reads like the agreed core: as free of links and
    in blocks at least as long (menus, teasers and captions come in short linked blocks)."""
    core = set(small.blocks)
    surplus = [block for block in large.blocks if block not in core]
    surplus_words = large.words - small.words
    if not surplus or surplus_words <= 0:
        return False
    surplus_links = (large.link_words - small.link_words) / surplus_words
    core_length = small.words / max(len(small.blocks), 1)
    surplus_length = sum(map(_count, surplus)) / len(surplus)
    return surplus_links <= ARTICLE_LINK_DENSITY and surplus_length >= core_length


def _agreement(candidate: Counter[tuple[str, ...]], reference: Counter[tuple[str, ...]]) -> float:
    """F1 of the shared shingles (the benchmark's own overlap measure)."""
    shared = sum((candidate & reference).values())
    if not shared:
        return 0.0
    precision, recall = shared / sum(candidate.values()), shared / sum(reference.values())
    return 2 * precision * recall / (precision + recall)


def _count(text: str) -> int:
    return _WORD.subn("", text)[1]


def _shingles(text: str) -> Counter[tuple[str, ...]]:
    """The multiset of 4-word shingles (Broder's resemblance measure) of ``text``."""
    words = _WORD.findall(text)
    return Counter(zip(words, words[1:], words[2:], words[3:], strict=False)) or Counter(
        [tuple(words)])
