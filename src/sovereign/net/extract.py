"""Page text for the model: the main content, with its structure and links (DESIGN §3 "Text").

An HTML page is parsed once (:func:`sovereign.net.markup.parse_html`, which survives
any depth and broken markup), then read by two extractors of different kinds:

1. trafilatura in recall mode (``favor_recall=True, fast=True``): rule-based, it
   follows the markup (``<article>``, ``<p>``, tables, ``<br>`` text) and would
   rather keep a paragraph too many than lose one;
2. the readability algorithm (the fork trafilatura ships): it scores text density
   and picks one region, so it does not depend on semantic markup.

When the second's text is (at least 90 % of its 4-word shingles) contained in the
first's and shorter, the two agree on a core and the first's surplus is what only
one of them took for content: the core is kept, if it is at least half of the
first. Otherwise the first is kept (a second opinion that is much smaller, or
elsewhere on the page, is a disagreement about what the article is, not a trim).
A first heading that repeats the page's title is left out of the text: the title
is reported on its own. When neither finds anything, the whole page is rendered
without its ``<nav>``, ``<header>``, ``<footer>``, ``<aside>`` and ``<form>``
(or, if that leaves nothing, all of it), so a page with text never comes back
empty. Pages too large to analyse within the memory bound are rendered whole the
same way (:data:`MAX_ANALYSED_ELEMENTS`, :data:`MAX_SECOND_OPINION_CHARACTERS`).
docs/decisions/web-fetch-text-extraction.md has the measurements.

The chosen content is rendered as Markdown-like text (:mod:`sovereign.net.render`).
JSON is pretty-printed; plain text passes through.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from dataclasses import dataclass

import lxml.etree
import lxml.html
import trafilatura
from trafilatura.readability_lxml import Document as Readability

from .charset import decode_body
from .markup import page_title, parse_html
from .render import Rendered, absolute_http_url, render

__all__ = ["LINKS_HEADING", "PageText", "extract_text", "main_text", "page_text", "read_html"]

LINKS_HEADING = "Links:"
"""The line that starts the reference list after a part's text."""

CONTAINMENT = 0.9
"""Share of the second opinion's shingles the first must hold for the two to agree."""
SMALLEST_CORE = 0.5
"""A core shorter than this share of the first extraction is a disagreement, not a trim."""

MAX_ANALYSED_ELEMENTS = 20_000
"""Past this many elements a page is rendered whole (without navigation) instead of
analysed: both extractors need about 2 KiB per element (a 2 MiB table of 135 000
elements took 226 MiB), and the largest public benchmark page has 1 600."""
MAX_SECOND_OPINION_CHARACTERS = 256 * 1024
"""Past this much visible text the readability check is skipped (it needs ~19 MiB per
MiB of text); the largest public benchmark page has 89 000 characters."""

JSON_LAYOUT_ALLOWANCE = 64 * 1024
"""Characters of indentation a JSON layout may add beyond the text's own length."""
MAX_JSON_LAYOUT_DEPTH = 200
"""JSON nested deeper than this is shown as sent (the encoder's recursion stays far away)."""

_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")  # never text; NUL-filled bombs
_WORD = re.compile(r"\w+")
_BOILERPLATE = frozenset({"nav", "header", "footer", "aside", "form"})
_COUNT_ELEMENTS = lxml.etree.XPath("count(//*)")
_VISIBLE_TEXT = lxml.etree.XPath(
    "//body//text()[not(ancestor::script or ancestor::style or ancestor::noscript"
    " or ancestor::template)]",
    smart_strings=False,
)

logging.getLogger("trafilatura").setLevel(logging.CRITICAL)


@dataclass(frozen=True)
class PageText:
    """A page's text, its numbered links and its title.

    Attributes:
        body: Markdown-like text; a link reads ``its text[n]``.
        links: ``links[n - 1]`` is the absolute http(s) address of ``[n]``.
        markers: ``(start, end, n)`` offsets of every ``[n]`` in ``body``.
        title: the page's title, ``None`` when it has none (or is not HTML).
    """

    body: str
    links: tuple[str, ...] = ()
    markers: tuple[tuple[int, int, int], ...] = ()
    title: str | None = None

    def part(self, start: int, end: int) -> str:
        """``body[start:end]``, then the addresses of the markers wholly inside it.

        The list reads ``Links:`` and one ``[n] address`` line per marker, so a
        continuation carries the addresses its own markers need.
        """
        numbers = sorted({n for s, e, n in self.markers if start <= s and e <= end})
        text = self.body[start:end]
        if not numbers:
            return text
        references = "\n".join(f"[{n}] {self.links[n - 1]}" for n in numbers)
        return f"{text}\n\n{LINKS_HEADING}\n{references}"

    @property
    def text(self) -> str:
        """The whole body with every reference."""
        return self.part(0, len(self.body))

    def boundary(self, end: int) -> int:
        """``end``, moved back to before a marker it would cut in two."""
        for start, stop, _ in self.markers:
            if start < end < stop:
                return start
        return end


def extract_text(
    body: bytes, media_type: str, charset: str | None, url: str | None = None
) -> PageText:
    """Text of a fetched body.

    Args:
        body: the body bytes, decoded from their transfer encoding (possibly cut
            at the byte cap).
        media_type: ``text/html``, ``text/plain`` or ``application/json``.
        charset: the Content-Type ``charset`` parameter, if any.
        url: the page's address, to resolve relative links against.

    Returns:
        The text; its ``body`` is ``""`` only when the page has no text at all.
    """
    text = _CONTROLS.sub("", decode_body(body, charset, html=media_type == "text/html"))
    if media_type == "application/json":
        return PageText(_pretty_json(text))
    if media_type == "text/html":
        return read_html(text, url)
    return PageText(text.replace("\r\n", "\n"))


def read_html(html: str, url: str | None = None) -> PageText:
    """Main content of an HTML document as :class:`PageText` (see the module docstring)."""
    root = parse_html(html)
    title, base_url = page_title(root), _base_url(root, url)
    content = _main_content(root, url)  # changes root (the readability pass works in place)
    rendered = render(content, base_url) if content is not None else Rendered("")
    if not rendered.text:
        del root, content  # the changed tree goes before a fresh one is parsed
        rendered = _whole_page(parse_html(html), base_url)
    return PageText(*_without_title(rendered, title), title)


def _without_title(
    rendered: Rendered, title: str | None
) -> tuple[str, tuple[str, ...], tuple[tuple[int, int, int], ...]]:
    """The text without a first ``# heading`` line that only repeats ``title``."""
    first, _, rest = rendered.text.partition("\n")
    heading = first.lstrip("#").strip()
    if not title or not first.startswith("#") or heading != title or not rest.strip():
        return rendered.text, rendered.links, rendered.markers
    cut = len(rendered.text) - len(rest.lstrip("\n"))
    markers = tuple((s - cut, e - cut, n) for s, e, n in rendered.markers if s >= cut)
    return rendered.text[cut:], rendered.links, markers


def main_text(html: str) -> str:
    """:func:`read_html`'s text with its reference list (what a reader of the page gets)."""
    return read_html(html).text


def page_text(html: str) -> str:
    """All visible text of an HTML document, rendered the same way (no extraction)."""
    root = parse_html(html)
    body = root.find("body")
    return render(body if body is not None else root).text


def _main_content(root: lxml.html.HtmlElement, url: str | None) -> lxml.etree._Element | None:
    if _COUNT_ELEMENTS(root) > MAX_ANALYSED_ELEMENTS:
        return None
    visible = " ".join(_VISIBLE_TEXT(root))
    page = _word_count(visible)
    first = _extraction(_trafilatura(root, url), page)
    if len(visible) > MAX_SECOND_OPINION_CHARACTERS:
        return first
    second = _extraction(_readability(root), page)
    if first is None or second is None:
        return first if first is not None else second
    first_size, second_size = _word_count(_text(first)), _word_count(_text(second))
    if not SMALLEST_CORE * first_size <= second_size < first_size:
        return first
    first_words, second_words = _WORD.findall(_text(first)), _WORD.findall(_text(second))
    first_bag, second_bag = _shingles(first_words), _shingles(second_words)
    agreed = sum((first_bag & second_bag).values()) >= CONTAINMENT * sum(second_bag.values())
    return second if agreed else first


def _extraction(
    element: lxml.etree._Element | None, page_words: int
) -> lxml.etree._Element | None:
    """``element``, unless it is (nearly) the whole page: a dump is not an extraction.

    Both extractors fall back to the whole body when they find nothing (trafilatura's
    baseline rescue, readability's "no candidate"); our own fallback then leaves the
    navigation out instead.
    """
    if element is None or _word_count(_text(element)) >= CONTAINMENT * page_words:
        return None
    return element


def _trafilatura(root: lxml.html.HtmlElement, url: str | None) -> lxml.etree._Element | None:
    try:
        document = trafilatura.bare_extraction(
            root, url=url, favor_recall=True, fast=True, include_comments=False,
            include_tables=True, include_links=True, include_formatting=True,
            include_images=False, output_format="xml",  # the tree only, no text serialised
        )
    except (ValueError, TypeError, RecursionError, lxml.etree.LxmlError):
        return None
    body = getattr(document, "body", None)
    return body if body is not None and _has_text(body) else None


def _readability(root: lxml.html.HtmlElement) -> lxml.etree._Element | None:
    try:
        summary = Readability(root, min_text_length=25).summary()  # works in place
        element = lxml.html.fromstring(summary) if summary.strip() else None
    except (ValueError, TypeError, RecursionError, lxml.etree.LxmlError):
        return None
    return element if element is not None and _has_text(element) else None


def _whole_page(root: lxml.html.HtmlElement, base_url: str | None) -> Rendered:
    body = root.find("body")
    body = body if body is not None else root
    trimmed = render(body, base_url, skip=_BOILERPLATE)
    return trimmed if trimmed.text else render(body, base_url)


def _base_url(root: lxml.html.HtmlElement, url: str | None) -> str | None:
    for href in root.xpath("//base/@href"):
        absolute = absolute_http_url(str(href), url)
        if absolute:
            return absolute
    return url


def _text(element: lxml.etree._Element) -> str:
    return " ".join(element.itertext())


def _word_count(text: str) -> int:
    return _WORD.subn("", text)[1]  # counted in C, without a list of every word


def _shingles(words: list[str]) -> Counter[tuple[str, ...]]:
    """The multiset of 4-word shingles (Broder's resemblance measure) of ``words``."""
    return Counter(zip(words, words[1:], words[2:], words[3:], strict=False)) or Counter(
        [tuple(words)])


def _has_text(element: lxml.etree._Element) -> bool:
    return any(text.strip() for text in element.itertext())


def _pretty_json(text: str) -> str:
    """``text`` laid out with two-space indentation, or as it is when that is unwise.

    As it is: not JSON (cut at the byte cap, or mislabelled), nested past the parser's
    recursion limit (``RecursionError``, a few thousand levels), numbers past Python's
    digit limit, or a layout whose indentation would add more than the text's own size
    (deep nesting multiplies it: :func:`_indentation_fits`).
    """
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if not _indentation_fits(value, budget=len(text) + JSON_LAYOUT_ALLOWANCE):
        return text
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


def _indentation_fits(value: object, budget: int) -> bool:
    """Whether two-space indentation of ``value`` adds at most ``budget`` characters.

    Walks the parsed value without recursion (it may be as deep as the parser allows)
    and stops as soon as the budget is spent.
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    spent = 0
    while stack:
        node, depth = stack.pop()
        spent += 2 * depth + 1
        if spent > budget or depth > MAX_JSON_LAYOUT_DEPTH:
            return False
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, dict | list):
            stack.extend((child, depth + 1) for child in children)
    return True
