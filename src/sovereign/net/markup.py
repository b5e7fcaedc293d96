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
from itertools import pairwise

import lxml.etree
import lxml.html

__all__ = [
    "MAX_DEPTH", "layout_tables_as_blocks", "page_title", "paragraphs_from_breaks", "parse_html",
]

MAX_DEPTH = 128
"""Elements nested deeper than this are flattened into their ancestor (their text stays)."""

MAX_TITLE_CHARACTERS = 300

_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
     "source", "track", "wbr"}
)
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "noscript", "template"})
_SPACES = re.compile(r"\s+")

_BREAK_CONTAINERS = frozenset(
    {"article", "blockquote", "body", "center", "div", "main", "section", "td", "th"}
)
"""Elements whose ``<br><br>``-separated text runs become paragraphs: block containers
(not ``<p>``, ``<pre>``, list items or inline elements, where a break is a line break)."""
_BLOCK_CHILDREN = frozenset(
    {"address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figure",
     "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "nav", "ol",
     "p", "pre", "section", "table", "ul"}
)

_CELLS = frozenset({"td", "th"})
_ROW_PARTS = ("thead", "tbody", "tfoot", "tr")


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


def paragraphs_from_breaks(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """``root`` with every run of text separated by two or more ``<br>`` made a ``<p>``.

    A browser shows ``text<br><br>text`` as two paragraphs, and older or hand-written
    pages write paragraphs that way (Readability.js makes them ``<p>`` for the same
    reason); extractors that look for paragraphs lose such text, above all a run that
    follows a block they drop (its text is that block's tail). Only block containers
    (:data:`_BREAK_CONTAINERS`) that hold two consecutive ``<br>`` are rewritten; their
    block children stay where they are, a single ``<br>`` stays a line break, and no
    text moves out of order. Changes the tree in place and returns it.
    """
    for parent in [element for element in root.iter(*_BREAK_CONTAINERS) if _double_break(element)]:
        _split_at_double_breaks(parent)
    return root


def _tag(element: lxml.etree._Element) -> str:
    return element.tag if isinstance(element.tag, str) else ""


def _is_break_pair(first: lxml.etree._Element, second: lxml.etree._Element) -> bool:
    return _tag(first) == "br" and _tag(second) == "br" and not (first.tail or "").strip()


def _double_break(element: lxml.etree._Element) -> bool:
    children = list(element)
    return any(_is_break_pair(a, b) for a, b in pairwise(children))


def _split_at_double_breaks(parent: lxml.etree._Element) -> None:
    children = list(parent)
    pieces: list[tuple[str | None, list[lxml.etree._Element]] | lxml.etree._Element] = []
    text, run = parent.text, []
    index = 0
    while index < len(children):
        child = children[index]
        if index + 1 < len(children) and _is_break_pair(child, children[index + 1]):
            last = index + 1
            while last + 1 < len(children) and _is_break_pair(children[last], children[last + 1]):
                last += 1
            pieces.append((text, run))
            text, run = children[last].tail, []
            index = last + 1
        elif _tag(child) in _BLOCK_CHILDREN:
            pieces.append((text, run))
            pieces.append(child)
            text, run = child.tail, []
            child.tail = None
            index += 1
        else:
            run.append(child)
            index += 1
    pieces.append((text, run))
    parent.text = None
    for child in children:
        parent.remove(child)
    for piece in pieces:
        if not isinstance(piece, tuple):
            parent.append(piece)
            continue
        text, run = piece
        if not (text and text.strip()) and not run:
            continue
        paragraph = lxml.etree.SubElement(parent, "p")
        paragraph.text = text
        paragraph.extend(run)
        if not _has_words(paragraph):
            paragraph.drop_tag()  # only breaks or empty inline elements: no paragraph


def _has_words(element: lxml.etree._Element) -> bool:
    return any(text.strip() for text in element.itertext())


def layout_tables_as_blocks(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """``root`` with every layout table made ``<div>`` blocks, data tables left alone.

    A table lays a page out, rather than holding data, when one of its own cells holds a
    block (a paragraph, list, heading, table...: :data:`_BLOCK_CHILDREN`) or when none of
    its own rows has more than one cell (a box, or a column of boxes): a data table has
    columns of inline values. Such a table becomes a ``<div>``, each of its cells a
    ``<div>``, and its rows and row groups are dropped, so the cells' paragraphs are
    siblings under one container, as the page shows them. Density scoring needs that:
    it credits a paragraph to its parent and grandparent, which in a layout table are a
    row and a table of its own, so each paragraph scores alone and the article falls apart.
    Nested tables are decided first (innermost first). Changes the tree in place and
    returns it.
    """
    for table in reversed(list(root.iter("table"))):
        rows = [row for row in table.iter("tr") if _nearest_table(row) is table]
        cells = [[cell for cell in row if _tag(cell) in _CELLS] for row in rows]
        holds_blocks = any(_tag(node) in _BLOCK_CHILDREN for row in cells for cell in row
                           for node in cell.iterdescendants())
        if not rows or not (holds_blocks or all(len(row) <= 1 for row in cells)):
            continue
        for row in cells:
            for cell in row:
                cell.tag = "div"
        for part in [e for e in table.iter(*_ROW_PARTS) if _nearest_table(e) is table]:
            part.drop_tag()
        table.tag = "div"
    return root


def _nearest_table(element: lxml.etree._Element) -> lxml.etree._Element | None:
    return next(element.iterancestors("table"), None)
