"""The extractor web.fetch shipped before the principled choice, kept to measure against.

Same parser, extractors and renderer as today; only the rule between the candidates and
the link handling are the earlier ones:

- a candidate with 90 % of the page's words is a dump, whatever its link density;
- readability's text replaces trafilatura's only when it is shorter, at least half as
  long, and 90 % of its 4-word shingles are inside trafilatura's; otherwise trafilatura's;
- a first heading that repeats the title is left out; up to 40 links are numbered, with
  no budget, a caption is kept.

Used by ``bench/fetch.py`` for the "before" figures (F1, tokens the links add, time).
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterator

import sovereign.net.render as render_module
from sovereign.net import PageText
from sovereign.net import extract as today
from sovereign.net.markup import page_title, parse_html
from sovereign.net.render import Rendered, render

__all__ = ["previous_read_html"]

_WORD = re.compile(r"\w+")


@contextlib.contextmanager
def _earlier_links() -> Iterator[None]:
    saved = (render_module.MAX_LINKS, render_module.LINK_BUDGET_SHARE,
             render_module.LINK_BUDGET_FLOOR, render_module._DROPPED)
    render_module.MAX_LINKS, render_module.LINK_BUDGET_SHARE = 40, float("inf")
    render_module.LINK_BUDGET_FLOOR = 10**9
    render_module._DROPPED = saved[3] - {"figcaption"}
    try:
        yield
    finally:
        (render_module.MAX_LINKS, render_module.LINK_BUDGET_SHARE,
         render_module.LINK_BUDGET_FLOOR, render_module._DROPPED) = saved


def previous_read_html(html: str, url: str | None = None) -> PageText:
    """:func:`sovereign.net.read_html` as it was before (see the module docstring)."""
    with _earlier_links():
        root = parse_html(html)
        title, base_url = page_title(root), today._base_url(root, url)
        content = _main_content(root, url)
        rendered = render(content, base_url) if content is not None else Rendered("")
        if not rendered.text:
            rendered = today._whole_page(parse_html(html), base_url)
        return PageText(*_without_title(rendered, title), title)


def _main_content(root, url):  # type: ignore[no-untyped-def]
    if today._COUNT_ELEMENTS(root) > today.MAX_ANALYSED_ELEMENTS:
        return None
    visible = " ".join(today._VISIBLE_TEXT(root))
    page = _count(visible)
    first = _not_dump(today._trafilatura(root, url), page)
    if len(visible) > today.MAX_SECOND_OPINION_CHARACTERS:
        return first
    second = _not_dump(today._readability(root), page)
    if first is None or second is None:
        return first if first is not None else second
    first_size, second_size = _count(today._text(first)), _count(today._text(second))
    if not 0.5 * first_size <= second_size < first_size:
        return first
    first_bag, second_bag = _shingles(today._text(first)), _shingles(today._text(second))
    agreed = sum((first_bag & second_bag).values()) >= 0.9 * sum(second_bag.values())
    return second if agreed else first


def _not_dump(element, page_words: int):  # type: ignore[no-untyped-def]
    if element is None or _count(today._text(element)) >= 0.9 * page_words:
        return None
    return element


def _without_title(rendered: Rendered, title: str | None):  # type: ignore[no-untyped-def]
    first, _, rest = rendered.text.partition("\n")
    heading = first.lstrip("#").strip()
    if not title or not first.startswith("#") or heading != title or not rest.strip():
        return rendered.text, rendered.links, rendered.markers
    cut = len(rendered.text) - len(rest.lstrip("\n"))
    markers = tuple((s - cut, e - cut, n) for s, e, n in rendered.markers if s >= cut)
    return rendered.text[cut:], rendered.links, markers


def _count(text: str) -> int:
    return len(_WORD.findall(text))


def _shingles(text: str) -> Counter[tuple[str, ...]]:
    words = _WORD.findall(text)
    return Counter(zip(words, words[1:], words[2:], words[3:], strict=False)) or Counter(
        [tuple(words)])
