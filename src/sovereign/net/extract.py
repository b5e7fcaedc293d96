"""Page text for the model: the main content, with its structure and links (DESIGN §3 "Text").

An HTML page is parsed once (:func:`sovereign.net.markup.parse_html`, which survives
any depth and broken markup), its ``<br><br>``-separated text made paragraphs as a
browser shows it (:func:`sovereign.net.markup.paragraphs_from_breaks`), then read by two
extractors of different kinds:

1. trafilatura in recall mode (``favor_recall=True, fast=True``): rule-based, it
   follows the markup (``<article>``, ``<p>``, tables, ``<br>`` text) and would
   rather keep a paragraph too many than lose one;
2. the readability algorithm (the fork trafilatura ships): it scores text density
   and picks one region, so it does not depend on semantic markup. It reads layout
   tables as the blocks they show (:func:`sovereign.net.markup.layout_tables_as_blocks`):
   it credits a paragraph to its parent and grandparent, in a layout table a row and a
   table of its own, so each paragraph would score alone.

Each proposal is rendered and measured, and :func:`sovereign.net.choose.choose` picks
one by principle: a whole-page dump is no candidate unless it is as free of links as an
article; the page's own JSON-LD ``articleBody`` referees when it declares one; when one
proposal contains the other they agree, and the recall-first one is cut to the extent
both agree on (from the first block they share to the last), whichever of the two is the
larger; when they disagree the larger article wins. The page's
headings, its ``<h1>`` included, stay in the text (the title is also reported on its own).
A page of fewer than :data:`SMALL_PAGE_WORDS` words, or one where neither extractor
finds anything, is rendered whole without its ``<nav>``, ``<header>``, ``<footer>``,
``<aside>`` and ``<form>`` (or, if that leaves nothing, all of it), so a page with text
never comes back empty and a short page keeps every heading, list item, table row and
code block. Pages too large to analyse within the memory bound are rendered whole the
same way (:data:`MAX_ANALYSED_ELEMENTS`, :data:`MAX_SECOND_OPINION_CHARACTERS`).
docs/decisions/web-fetch-text-extraction.md has the measurements.

The chosen content is rendered as Markdown-like text (:mod:`sovereign.net.render`), with
a few of its links numbered. JSON is laid out with indentation unless that is unwise;
plain text passes through.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

import lxml.etree
import lxml.html
import trafilatura
from trafilatura.readability_lxml import Document as Readability

from .charset import decode_body
from .choose import Candidate, choose
from .markup import layout_tables_as_blocks, page_title, paragraphs_from_breaks, parse_html
from .render import Rendered, absolute_http_url, render, rendered_lines

__all__ = ["LINKS_HEADING", "PageText", "extract_text", "main_text", "page_text", "read_html"]

LINKS_HEADING = "Links:"
"""The line that starts the reference list after a part's text."""

SMALL_PAGE_WORDS = 150
"""A page with fewer words than this is rendered whole (without navigation): too little
text for density to single out an article, so its headings, lists and tables all count."""

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
_JSON_LD = lxml.etree.XPath("//script[@type='application/ld+json']")
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
        body: Markdown-like text; a sentence citing a link ends ``.[n]``.
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
    text = _CONTROLS.sub("", _valid(decode_body(body, charset, html=media_type == "text/html")))
    if media_type == "application/json":
        return PageText(_valid(_pretty_json(text)))
    if media_type == "text/html":
        return read_html(text, url)
    return PageText(text.replace("\r\n", "\n"))


def read_html(html: str, url: str | None = None) -> PageText:
    """Main content of an HTML document as :class:`PageText` (see the module docstring)."""
    root = _paragraphs(parse_html(html))
    title, base_url = page_title(root), _base_url(root, url)
    rendered = _main_content(root, url, base_url)  # changes root (readability works in place)
    if rendered is None or not rendered.text:
        del root  # the changed tree goes before a fresh one is parsed
        rendered = _whole_page(_paragraphs(parse_html(html)), base_url)
    return PageText(rendered.text, rendered.links, rendered.markers, title)


def _paragraphs(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """``root`` with its ``<br><br>`` text made paragraphs, unless it is too large to
    analyse (it is then rendered whole, where a ``<br>`` is a line break anyway)."""
    if _COUNT_ELEMENTS(root) > MAX_ANALYSED_ELEMENTS:
        return root
    return paragraphs_from_breaks(root)


def main_text(html: str) -> str:
    """:func:`read_html`'s text with its reference list (what a reader of the page gets)."""
    return read_html(html).text


def page_text(html: str) -> str:
    """All visible text of an HTML document, rendered the same way (no extraction)."""
    root = parse_html(html)
    body = root.find("body")
    return render(body if body is not None else root).text


def _main_content(
    root: lxml.html.HtmlElement, url: str | None, base_url: str | None
) -> Rendered | None:
    """The chosen candidate, rendered; ``None`` for the whole-page fallback."""
    if _COUNT_ELEMENTS(root) > MAX_ANALYSED_ELEMENTS:
        return None
    visible = " ".join(_VISIBLE_TEXT(root))
    page = _word_count(visible)
    if page < SMALL_PAGE_WORDS:
        return None  # too little text for density to mean anything: all of it is content
    declared = declared_article_body(root)
    options = [_option("trafilatura", _trafilatura(root, url), base_url)]
    if len(visible) <= MAX_SECOND_OPINION_CHARACTERS:
        options.append(_option("readability", _readability(root), base_url))
    chosen = choose([candidate for candidate, _ in options], page, declared)
    if chosen is None:
        return None
    rendered = next(r for c, r in options if c is not None and r is not None
                    and c.name == chosen.name)
    if chosen.span is None:
        return rendered
    lines = _block_lines(rendered)
    first, end = chosen.span
    return rendered_lines(rendered, lines[first], lines[end - 1] + 1)


def _option(
    name: str, element: lxml.etree._Element | None, base_url: str | None
) -> tuple[Candidate | None, Rendered | None]:
    if element is None:
        return None, None
    rendered = render(element, base_url)
    lines = _without_markers(rendered).split("\n")
    blocks = tuple(lines[i].strip() for i in _block_lines(rendered))
    return Candidate(name, blocks, _link_words(element)), rendered


def _block_lines(rendered: Rendered) -> list[int]:
    """Indexes of the lines of ``rendered`` that are blocks (those with text)."""
    return [i for i, line in enumerate(_without_markers(rendered).split("\n")) if line.strip()]


def _without_markers(rendered: Rendered) -> str:
    pieces, last = [], 0
    for start, end, _ in rendered.markers:
        pieces.append(rendered.text[last:start])
        last = end
    return "".join(pieces) + rendered.text[last:]


def _link_words(element: lxml.etree._Element) -> int:
    return sum(_word_count(" ".join(link.itertext())) for link in element.iter("a", "ref"))


def declared_article_body(root: lxml.html.HtmlElement) -> str:
    """The longest JSON-LD ``articleBody`` the page declares (``""`` when none).

    Every ``<script type="application/ld+json">`` is read (a broken one is skipped); the
    value may sit at any depth (``@graph`` lists, nested ``mainEntity``).
    """
    best = ""
    for script in _JSON_LD(root):
        try:
            stack = [json.loads(script.text or "")]
        except (ValueError, RecursionError):
            continue
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                body = node.get("articleBody")
                if isinstance(body, str) and len(body) > len(best):
                    best = body
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return best


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
        layout_tables_as_blocks(root)  # in place, as readability works
        summary = Readability(root, min_text_length=25).summary()
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


def _valid(text: str) -> str:
    """``text`` encodable as UTF-8: a lone surrogate (a JSON ``"\\ud83d"`` escape, a page
    in ``utf-7``) becomes U+FFFD and a pair written as two code points its character,
    before anything counts the text's characters or encodes it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
