"""Page text for the model: main content first, the whole page as fallback (DESIGN §3).

HTML goes through trafilatura (main-content extraction, its ``fast`` mode: the
extra fallback passes cost 3x the memory on large pages for 0.003 F1; see
docs/decisions/web-fetch-text-extraction.md for the measured choice). When it finds
nothing, :func:`page_text` renders the whole page: block elements on their own
lines, inline elements kept together, ``<pre>`` whitespace kept, and
``<script>``, ``<style>``, ``<noscript>``, ``<template>`` dropped, so a page
that has text never comes back empty. JSON is pretty-printed; plain text passes.
"""

from __future__ import annotations

import json
import logging
import re

import lxml.etree
import lxml.html
import trafilatura

from .charset import decode_body

__all__ = ["extract_text", "main_text", "page_text"]

_DROPPED = frozenset({"script", "style", "noscript", "template", "head", "svg", "math"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details",
        "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
        "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "li", "main", "nav", "ol",
        "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
        "ul",
    }
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")  # never text; NUL-filled bombs
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")

logging.getLogger("trafilatura").setLevel(logging.CRITICAL)


def extract_text(body: bytes, media_type: str, charset: str | None) -> str:
    """Text of a fetched body.

    Args:
        body: the decoded-from-transfer body bytes (possibly cut at the byte cap).
        media_type: ``text/html``, ``text/plain`` or ``application/json``.
        charset: the Content-Type ``charset`` parameter, if any.

    Returns:
        The text; ``""`` only when the body has no text at all.
    """
    text = _CONTROLS.sub("", decode_body(body, charset, html=media_type == "text/html"))
    if media_type == "application/json":
        return _pretty_json(text)
    if media_type == "text/html":
        return main_text(text)
    return text.replace("\r\n", "\n")


def main_text(html: str) -> str:
    """Main content of an HTML document, or :func:`page_text` when none is found."""
    try:
        main = trafilatura.extract(
            html, favor_precision=True, fast=True, include_comments=False, include_tables=True
        )
    except (ValueError, lxml.etree.LxmlError):
        main = None
    return main.strip() if main and main.strip() else page_text(html)


def page_text(html: str) -> str:
    """All visible text of an HTML document, blocks on separate lines."""
    try:
        root = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.LxmlError):
        return _tidy(_SPACES.sub(" ", html))
    parts: list[str] = []
    _walk(root, parts, preformatted=False)
    return _tidy("".join(parts))


def _walk(element: lxml.html.HtmlElement, parts: list[str], *, preformatted: bool) -> None:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag in _DROPPED:
        return
    preformatted = preformatted or tag == "pre"
    block = tag in _BLOCKS
    if block:
        parts.append("\n")
    if tag and element.text:
        parts.append(_text(element.text, preformatted))
    for child in element:
        _walk(child, parts, preformatted=preformatted)
        if child.tail:
            parts.append(_text(child.tail, preformatted))
    if block:
        parts.append("\n")


def _text(text: str, preformatted: bool) -> str:
    if preformatted:
        return text.replace("\n", "\ue000")  # protected from _tidy's line joining
    return _SPACES.sub(" ", text.replace("\n", " "))


def _tidy(text: str) -> str:
    lines = (line.strip(" ") if "\ue000" not in line else line for line in text.split("\n"))
    joined = "\n".join(lines).replace("\ue000", "\n")
    return _BLANK_LINES.sub("\n", joined).strip()


def _pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text  # cut at the byte cap, or not JSON after all: pass it on as it is
