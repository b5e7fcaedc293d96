"""The extractor web.fetch shipped before links that only name their text were left out.

That is the extractor of the second 2026-12-05 change (commit f2e5acd): the same parser,
extractors, choice rule and renderer as today, with the link rules added since turned
off: every link whose text is not its own address is cited (today a link to a tag,
topic, author, section or home page, or one that acts on the page itself, is not), and a
citation stops at any full stop before a space (today not before a digit or a lower-case
letter, which follow an abbreviation).

Used by ``bench/fetch.py`` for the "before" figures (F1, tokens the links add, time).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import sovereign.net.render as render_module
from sovereign.net import PageText
from sovereign.net import extract as today

__all__ = ["before_read_html", "shipped_before"]


def _spells(label: str, address: str) -> bool:
    """The rule before: a link is left uncited only when its text is its address."""
    return render_module._bare_address(label) == render_module._bare_address(address)


@contextlib.contextmanager
def shipped_before() -> Iterator[None]:
    """Inside this block :func:`sovereign.net.read_html` is the extractor shipped before."""
    saved = (render_module._names, render_module._acts_on_page,
             render_module._may_start_sentence)
    render_module._names = _spells
    render_module._acts_on_page = lambda address, page: False
    render_module._may_start_sentence = lambda character: True
    try:
        yield
    finally:
        (render_module._names, render_module._acts_on_page,
         render_module._may_start_sentence) = saved


def before_read_html(html: str, url: str | None = None) -> PageText:
    """:func:`sovereign.net.read_html` as shipped before (see the module docstring)."""
    with shipped_before():
        return today.read_html(html, url)
