"""The extractor web.fetch shipped before a cut candidate kept the headings that open it.

That is the extractor of the 2026-12-06 change (commit f1a095a, a contained core cut to
the extent the larger agrees on): the same parser, extractors, choice rule and renderer
as today, except that when the recall-first candidate (trafilatura) is the larger and
holds the density-scoring one (readability), its agreed extent starts at its first
agreed block, so the headings just before it (the article's title, the page's ``<h1>``)
go where readability leaves the title out (today they stay,
:data:`sovereign.net.choose.EXTENT_KEEPS_TITLE`).

Used by ``bench/fetch.py`` for the "before" figures (F1, tokens the links add, time).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import sovereign.net.choose as choose_module
from sovereign.net import PageText
from sovereign.net import extract as today

__all__ = ["before_read_html", "shipped_before"]


@contextlib.contextmanager
def shipped_before() -> Iterator[None]:
    """Inside this block :func:`sovereign.net.read_html` is the extractor shipped before."""
    saved = choose_module.EXTENT_KEEPS_TITLE
    choose_module.EXTENT_KEEPS_TITLE = False
    try:
        yield
    finally:
        choose_module.EXTENT_KEEPS_TITLE = saved


def before_read_html(html: str, url: str | None = None) -> PageText:
    """:func:`sovereign.net.read_html` as shipped before (see the module docstring)."""
    with shipped_before():
        return today.read_html(html, url)
