"""choose(): the rule between the extractors' candidates, one behaviour at a time."""

from __future__ import annotations

import pytest

import sovereign.net.choose as choose_module
from sovereign.net.choose import (
    ARTICLE_LINK_DENSITY,
    NAVIGATION_LINK_DENSITY,
    Candidate,
    choose,
)

ARTICLE = tuple(f"Paragraph {i} of the article tells its story in a long sentence, with "
                f"enough words to read like prose, number {i}." for i in range(12))
MENU = tuple(f"Related story {i}" for i in range(20))
CAPTIONS = tuple(f"Photo {i}: a caption" for i in range(6))


def make(name: str, blocks: tuple[str, ...], link_share: float = 0.0) -> Candidate:
    words = sum(len(block.split()) for block in blocks)
    return Candidate(name, blocks, round(words * link_share))


def test_one_candidate_or_none() -> None:
    article = make("t", ARTICLE)
    assert choose([article, None], 10_000) is article
    assert choose([None, article], 10_000) is article
    assert choose([None, None], 10_000) is None
    assert choose([make("t", ()), None], 10_000) is None


def test_a_linked_dump_of_the_whole_page_is_no_candidate() -> None:
    dump = make("t", ARTICLE + MENU, link_share=0.3)
    core = make("r", ARTICLE)
    assert choose([dump, None], dump.words) is None
    assert choose([dump, core], dump.words) is core


def test_a_page_that_is_one_long_article_is_kept_whole() -> None:
    whole = make("t", ARTICLE, link_share=ARTICLE_LINK_DENSITY / 2)
    section = make("r", ARTICLE[:4])
    assert choose([whole, section], whole.words + 3) is whole


def test_agreement_trims_the_recall_candidates_boilerplate_to_the_agreed_extent() -> None:
    for surplus in (MENU, CAPTIONS):
        larger = make("t", surplus[:3] + ARTICLE + surplus, link_share=0.2)
        core = make("r", ARTICLE)
        chosen = choose([larger, core], 10_000)
        assert chosen is not None and chosen.name == "t", surplus[0]
        assert chosen.blocks == ARTICLE and chosen.span == (3, 3 + len(ARTICLE))


def test_what_lies_inside_the_agreed_extent_stays() -> None:
    items = ("- a first item of the list", "- a second item", "| a | table row |")
    larger = make("t", ARTICLE[:6] + items + ARTICLE[6:] + MENU, link_share=0.1)
    core = make("r", ARTICLE)
    chosen = choose([larger, core], 10_000)
    assert chosen is not None and chosen.blocks == ARTICLE[:6] + items + ARTICLE[6:]
    assert chosen.span == (0, len(ARTICLE) + len(items))


def test_a_larger_candidate_agreed_from_end_to_end_is_kept_as_it_is() -> None:
    larger = make("t", ARTICLE[:6] + CAPTIONS + ARTICLE[6:])
    core = make("r", ARTICLE)
    assert choose([larger, core], 10_000) is larger


def test_an_article_like_surplus_after_the_agreed_extent_goes_unless_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    more = tuple(f"Further paragraph {i} of the same article goes on at the same length as the "
                 f"others, with its own sentence and words, {i}." for i in range(6))
    larger = make("t", ARTICLE[:8] + more)
    core = make("r", ARTICLE[:8])
    chosen = choose([larger, core], 10_000)
    assert chosen is not None and chosen.blocks == ARTICLE[:8]
    monkeypatch.setattr(choose_module, "SURPLUS_MAY_BE_ARTICLE", True)  # the earlier rule
    assert choose([larger, core], 10_000) is larger


def test_without_the_extent_the_smaller_candidate_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(choose_module, "TRIM_TO_AGREED_EXTENT", False)
    larger = make("t", ARTICLE + MENU, link_share=0.2)
    core = make("r", ARTICLE)
    assert choose([larger, core], 10_000) is core


def test_agreement_never_extends_the_preferred_candidate() -> None:
    preferred = make("t", ARTICLE)
    density = make("r", ARTICLE + CAPTIONS)
    assert choose([preferred, density], 10_000) is preferred


def test_a_tiny_core_is_no_trim() -> None:
    larger = make("t", ARTICLE)
    tiny = make("r", ARTICLE[:1])
    assert choose([larger, tiny], 10_000) is larger


def test_disagreement_keeps_the_larger_article() -> None:
    box = make("t", ("A short guide box with a handful of words in it.",) * 2)
    article = make("r", ARTICLE)
    assert choose([box, article], 10_000) is article
    assert choose([article, box], 10_000) is article


def test_a_navigation_like_larger_region_loses_to_a_substantial_article() -> None:
    links = make("t", MENU * 3, link_share=NAVIGATION_LINK_DENSITY + 0.2)
    article = make("r", ARTICLE)
    assert choose([links, article], 10_000) is article
    small = make("r", ARTICLE[:1])
    assert choose([links, small], 10_000) is links  # too small to be the alternative


def test_the_pages_declared_article_body_referees() -> None:
    with_box = make("t", ARTICLE[:6] + ("Subscribe to our newsletter for more stories",) * 3)
    right = make("r", ARTICLE)
    declared = " ".join(ARTICLE)
    assert choose([with_box, right], 10_000, declared) is right
    assert choose([right, with_box], 10_000, declared) is right
    unrefereed = choose([with_box, right], 10_000, "too short to referee")
    assert unrefereed is not None and unrefereed.name == "t"  # agreement, then its extent
    assert unrefereed.blocks == ARTICLE[:6]


def test_a_contained_preferred_candidate_is_cut_to_the_extent_the_larger_agrees_on() -> None:
    share = ("Share this story on your favourite network today",)
    footer = ("Copyright of the publisher, all rights to this page reserved by them",)
    preferred = make("t", share + ARTICLE + footer)
    density = make("r", ARTICLE + CAPTIONS)
    chosen = choose([preferred, density], 10_000)
    assert chosen is not None and chosen.name == "t"
    assert chosen.blocks == ARTICLE and chosen.span == (1, 1 + len(ARTICLE))


def test_the_headings_that_open_a_cut_core_stay() -> None:
    share = ("Share this story on your favourite network today",)
    titled = make("t", (*share, "# The title", "## Its subtitle", *ARTICLE, *share))
    density = make("r", ARTICLE + CAPTIONS)
    chosen = choose([titled, density], 10_000)
    assert chosen is not None and chosen.blocks == ("# The title", "## Its subtitle", *ARTICLE)
    assert chosen.span == (1, 3 + len(ARTICLE))


def test_without_the_core_extent_the_contained_preferred_candidate_is_kept_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(choose_module, "TRIM_CORE_TO_AGREED_EXTENT", False)
    preferred = make("t", ("Share this story on your favourite network today", *ARTICLE))
    density = make("r", ARTICLE + CAPTIONS)
    assert choose([preferred, density], 10_000) is preferred


def test_the_title_that_opens_a_larger_candidates_extent_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The page's ``<h1>`` and its subtitle, which the density-scoring candidate leaves
    out, open the text; teasers before them still go."""
    titled = make("t", (*MENU[:3], "# The title", "## Its subtitle", *ARTICLE, *MENU),
                  link_share=0.2)
    core = make("r", ARTICLE)
    chosen = choose([titled, core], 10_000)
    assert chosen is not None and chosen.name == "t"
    assert chosen.blocks == ("# The title", "## Its subtitle", *ARTICLE)
    assert chosen.span == (3, 5 + len(ARTICLE))
    monkeypatch.setattr(choose_module, "EXTENT_KEEPS_TITLE", False)  # the rule before
    chosen = choose([titled, core], 10_000)
    assert chosen is not None and chosen.blocks == ARTICLE


def test_headings_with_no_title_among_them_are_teasers_and_go() -> None:
    teasers = tuple(f"### {story}" for story in MENU[:4])
    larger = make("t", ("# The site's name", *CAPTIONS[:1], *teasers, *ARTICLE, *MENU),
                  link_share=0.2)
    core = make("r", ARTICLE)
    chosen = choose([larger, core], 10_000)
    assert chosen is not None and chosen.blocks == ARTICLE
