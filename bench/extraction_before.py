"""The extractor web.fetch shipped on 2026-12-05 (commit 74dab67), kept to measure against.

Same parser, extractors, choice rule and renderer as today, with the steps added since
turned off: when the markup-following candidate is the larger and contains the other, the
smaller is kept unless the surplus reads like the article (instead of the agreed extent),
and a link's marker stands right after the word that ends the link, at every use, even
when the link's text is its address (instead of after its sentence, once per address,
and not for a link that spells its address).

Used by ``bench/fetch.py`` for the "before" figures (F1, tokens the links add, time).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import sovereign.net.choose as choose_module
import sovereign.net.render as render_module
from sovereign.net import PageText
from sovereign.net import extract as today

__all__ = ["before_read_html", "shipped_before"]

_MARKER_IN_WORD = re.compile(
    f"({render_module.MARK_OPEN}\\d+{render_module.MARK_CLOSE})(\\w+)")


def _after_words(text: str) -> str:
    """Every mark moved past the word characters that follow it (``Wiki▮pedia``)."""
    for _ in range(text.count(render_module.MARK_OPEN)):
        moved = _MARKER_IN_WORD.sub(r"\2\1", text)
        if moved == text:
            break
        text = moved
    return text


@contextlib.contextmanager
def shipped_before() -> Iterator[None]:
    """Inside this block :func:`sovereign.net.read_html` is the 2026-12-05 extractor."""
    saved = (choose_module.TRIM_TO_AGREED_EXTENT, choose_module.SURPLUS_MAY_BE_ARTICLE,
             render_module._placed, render_module._names)
    choose_module.TRIM_TO_AGREED_EXTENT, choose_module.SURPLUS_MAY_BE_ARTICLE = False, True
    render_module._placed, render_module._names = _after_words, lambda label, address: False
    try:
        yield
    finally:
        (choose_module.TRIM_TO_AGREED_EXTENT, choose_module.SURPLUS_MAY_BE_ARTICLE,
         render_module._placed, render_module._names) = saved


def before_read_html(html: str, url: str | None = None) -> PageText:
    """:func:`sovereign.net.read_html` as shipped on 2026-12-05."""
    with shipped_before():
        return today.read_html(html, url)
