"""The "before" extractor of bench/fetch.py: the extractor as it stood before layout
tables were read as blocks, today's read_html after."""

from __future__ import annotations

import lxml.etree
import pytest
from extraction_before import before_read_html

from sovereign.net import extract as today
from sovereign.net import read_html

SENTENCE = "This is a sentence of the article, long enough to read as prose, and more. "
BOXES = "".join(f"<table><tr><td>Paragraph {n}. {SENTENCE * 3}</td></tr></table>"
                for n in range(10))
PAGE = (f"<html><body><div><a href='/a'>Home</a> <a href='/b'>News</a></div>"
        f"<div><h1>Title</h1>{BOXES}</div></body></html>")


def test_before_reads_a_layout_table_paragraph_by_paragraph_and_today_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read, found = today._readability, []

    def counting(root: lxml.etree._Element) -> lxml.etree._Element | None:
        element = read(root)
        text = " ".join(" ".join(element.itertext()).split()) if element is not None else ""
        found.append(sum(f"Paragraph {n}." in text for n in range(10)))
        return element

    monkeypatch.setattr(today, "_readability", counting)
    before_read_html(PAGE)
    read_html(PAGE)
    assert found == [1, 10]
