"""The extractor web.fetch shipped before layout tables were read as blocks.

That is the extractor of the third 2026-12-05 change (commit b974a7b): the same parser,
extractors, choice rule and renderer as today, with the density extractor (readability)
reading a layout table as it is written, a row and a table around each cell (today
:func:`sovereign.net.markup.layout_tables_as_blocks` makes such tables ``<div>`` blocks
first).

Used by ``bench/fetch.py`` for the "before" figures (F1, tokens the links add, time).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sovereign.net import PageText
from sovereign.net import extract as today

__all__ = ["before_read_html", "shipped_before"]


@contextlib.contextmanager
def shipped_before() -> Iterator[None]:
    """Inside this block :func:`sovereign.net.read_html` is the extractor shipped before."""
    saved = today.layout_tables_as_blocks
    today.layout_tables_as_blocks = lambda root: root
    try:
        yield
    finally:
        today.layout_tables_as_blocks = saved


def before_read_html(html: str, url: str | None = None) -> PageText:
    """:func:`sovereign.net.read_html` as shipped before (see the module docstring)."""
    with shipped_before():
        return today.read_html(html, url)
