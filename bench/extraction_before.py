"""The extractor web.fetch shipped on 2026-12-03, kept to measure against in the same run.

Same parser, extractors, choice rule and renderer as today, with the steps added since
turned off: text separated by ``<br><br>`` is not made paragraphs before extraction, and
the links' budget is the earlier one (3 % of the text, 120 characters on a short page).

Used by ``bench/fetch.py`` for the "before" figures (F1, tokens the links add, time).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import lxml.html

import sovereign.net.render as render_module
from sovereign.net import PageText
from sovereign.net import extract as today

__all__ = ["before_read_html", "shipped_before"]


def _as_parsed(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    return root


@contextlib.contextmanager
def shipped_before() -> Iterator[None]:
    """Inside this block :func:`sovereign.net.read_html` is the 2026-12-03 extractor."""
    saved = (today.paragraphs_from_breaks, render_module.LINK_BUDGET_SHARE,
             render_module.LINK_BUDGET_FLOOR)
    today.paragraphs_from_breaks = _as_parsed
    render_module.LINK_BUDGET_SHARE, render_module.LINK_BUDGET_FLOOR = 0.03, 120
    try:
        yield
    finally:
        (today.paragraphs_from_breaks, render_module.LINK_BUDGET_SHARE,
         render_module.LINK_BUDGET_FLOOR) = saved


def before_read_html(html: str, url: str | None = None) -> PageText:
    """:func:`sovereign.net.read_html` as shipped on 2026-12-03."""
    with shipped_before():
        return today.read_html(html, url)
