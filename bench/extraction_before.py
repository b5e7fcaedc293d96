"""The extractor web.fetch shipped before a contained core was cut to its agreed extent.

That is the extractor of the fourth 2026-12-05 change (commit 5f8723e, layout tables read
as blocks): the same parser, extractors, choice rule and renderer as today, except that
when the density-scoring candidate (readability) is the larger and holds the
recall-first one (trafilatura), the recall-first one is kept whole (today it is cut to
the extent the larger agrees on, :data:`sovereign.net.choose.TRIM_CORE_TO_AGREED_EXTENT`).

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
    saved = choose_module.TRIM_CORE_TO_AGREED_EXTENT
    choose_module.TRIM_CORE_TO_AGREED_EXTENT = False
    try:
        yield
    finally:
        choose_module.TRIM_CORE_TO_AGREED_EXTENT = saved


def before_read_html(html: str, url: str | None = None) -> PageText:
    """:func:`sovereign.net.read_html` as shipped before (see the module docstring)."""
    with shipped_before():
        return today.read_html(html, url)
