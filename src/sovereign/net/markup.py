"""HTML parsing that never loses a page's text, and the page's title (DESIGN §3 "Text").

libxml2, under lxml, stops at 255 levels of nesting and then drops the *whole*
document's text, not only the deep part: a page of 10 000 nested ``<div>``s, or
10 000 unclosed ``<b>``s, parses to nothing. :func:`parse_html` notices that (the
parser reports "Excessive depth") and parses again from a copy of the markup in
which no element sits deeper than :data:`MAX_DEPTH`: the tags past that depth are
left out, their text is kept. The copy is made by the standard library's streaming
tokenizer, which has no depth limit and never raises on broken markup.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser

import lxml.etree
import lxml.html

__all__ = ["MAX_DEPTH", "page_title", "parse_html"]

MAX_DEPTH = 128
"""Elements nested deeper than this are flattened into their ancestor (their text stays)."""

MAX_TITLE_CHARACTERS = 300

_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
     "source", "track", "wbr"}
)
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "noscript", "template"})
_SPACES = re.compile(r"\s+")


def parse_html(html: str) -> lxml.html.HtmlElement:
    """The document tree of ``html``, whatever its depth or brokenness.

    Args:
        html: the page as text (already decoded from its charset).

    Returns:
        The ``<html>`` element. Comments and processing instructions are removed.
    """
    root, too_deep = _parse(html)
    if too_deep:
        root, _ = _parse(flatten_deep_markup(html))
    return root


def _parse(html: str) -> tuple[lxml.html.HtmlElement, bool]:
    parser = lxml.html.HTMLParser(
        remove_comments=True, remove_pis=True, collect_ids=False, default_doctype=False
    )
    try:
        root = lxml.html.document_fromstring(html or "<html></html>", parser=parser)
    except (ValueError, lxml.etree.LxmlError):  # nothing parseable at all
        root = lxml.html.document_fromstring("<html><body></body></html>", parser=parser)
        root.find("body").text = html
    too_deep = any("Excessive depth" in entry.message for entry in parser.error_log)
    return root, too_deep


def flatten_deep_markup(html: str) -> str:
    """``html`` re-serialised with no element nested deeper than :data:`MAX_DEPTH`."""
    flattener = _Flattener()
    flattener.feed(html)
    flattener.close()
    return "".join(flattener.out)


class _Flattener(HTMLParser):
    """Copies tags and text, dropping the start and end tags of elements past the cap."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[tuple[str, bool]] = []  # (tag, written)
        self.depth = 0  # written elements still open

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        written = self.depth < MAX_DEPTH
        if written:
            self.out.append(_start_tag(tag, attrs))
        if tag not in _VOID:
            self.open.append((tag, written))
            self.depth += written

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth < MAX_DEPTH:
            self.out.append(_start_tag(tag, attrs) + ("" if tag in _VOID else f"</{tag}>"))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.open) - 1, max(-1, len(self.open) - 1 - MAX_DEPTH), -1):
            if self.open[index][0] == tag:
                for open_tag, written in reversed(self.open[index:]):
                    if written:
                        self.out.append(f"</{open_tag}>")
                        self.depth -= 1
                del self.open[index:]
                return

    def handle_data(self, data: str) -> None:
        raw = self.open and self.open[-1][0] in _RAW_TEXT
        self.out.append(data if raw else escape(data, quote=False))


def _start_tag(tag: str, attrs: list[tuple[str, str | None]]) -> str:
    attributes = "".join(
        f' {name}="{escape(value or "", quote=True)}"' for name, value in attrs
    )
    return f"<{tag}{attributes}>"


def page_title(root: lxml.html.HtmlElement) -> str | None:
    """The page's title: ``og:title``, else ``<title>``, else the first ``<h1>``; ``None`` if none.

    Whitespace is collapsed and the title cut to :data:`MAX_TITLE_CHARACTERS`.
    """
    candidates = [
        *root.xpath("//meta[@property='og:title']/@content"),
        *(element.text_content() for element in root.iter("title")),
        *(element.text_content() for element in root.iter("h1")),
    ]
    for candidate in candidates:
        title = _SPACES.sub(" ", str(candidate)).strip()
        if title:
            return title[:MAX_TITLE_CHARACTERS]
    return None
