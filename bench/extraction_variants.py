"""Benchmark pages rewritten the ways unseen pages differ, to check an extractor generalises.

Each rewrite keeps the page's text (so its ground truth still holds) and changes only the
markup, after the failure modes seen on pages outside the public half:

- :func:`br_text`: every ``<p>`` unwrapped, paragraphs separated by ``<br><br>`` only;
- :func:`table_layout`: the body inside a layout table and every paragraph in a table row;
- :func:`no_semantics`: ``<article>``, ``<main>``, ``<nav>``... renamed ``<div>`` and every
  ``class``, ``id``, ``role`` and ``itemprop`` removed (nothing for markup rules to go by).
"""

from __future__ import annotations

from collections.abc import Callable

import lxml.etree
import lxml.html

__all__ = ["VARIANTS", "br_text", "no_semantics", "table_layout"]

_SEMANTIC = ("article", "main", "section", "header", "footer", "nav", "aside")
_HINTS = ("class", "id", "role", "itemprop")


def _tree(html: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(html)


def _html(root: lxml.html.HtmlElement) -> str:
    return lxml.html.tostring(root, encoding="unicode")


def br_text(html: str) -> str:
    """Every ``<p>`` replaced by its content followed by two ``<br>``."""
    root = _tree(html)
    for paragraph in list(root.iter("p")):
        if paragraph.getparent() is None:
            continue
        second = lxml.etree.Element("br")
        second.tail, paragraph.tail = paragraph.tail, None
        paragraph.append(lxml.etree.Element("br"))
        paragraph.append(second)
        paragraph.drop_tag()
    return _html(root)


def table_layout(html: str) -> str:
    """The body's content in one layout cell; each paragraph a one-cell table row."""
    root = _tree(html)
    body = root.find("body")
    if body is None:
        return html
    for paragraph in list(body.iter("p")):
        parent = paragraph.getparent()
        index, tail = parent.index(paragraph), paragraph.tail
        parent.remove(paragraph)
        paragraph.tag, paragraph.tail = "td", None
        table = lxml.etree.Element("table")
        lxml.etree.SubElement(table, "tr").append(paragraph)
        table.tail = tail
        parent.insert(index, table)
    children, text = list(body), body.text
    body.text = None
    cell = lxml.etree.SubElement(lxml.etree.SubElement(lxml.etree.SubElement(
        body, "table"), "tr"), "td")
    cell.text = text
    for child in children:
        cell.append(child)
    return _html(root)


def no_semantics(html: str) -> str:
    """Semantic containers renamed ``<div>``; class, id, role and itemprop removed."""
    root = _tree(html)
    for element in root.iter(*_SEMANTIC):
        element.tag = "div"
    for element in root.iter():
        if isinstance(element.tag, str):
            for name in _HINTS:
                element.attrib.pop(name, None)
    return _html(root)


VARIANTS: dict[str, Callable[[str], str]] = {
    "br_text": br_text, "table_layout": table_layout, "no_semantics": no_semantics,
}
