"""Markup made as a browser shows it: paragraphs from `<br><br>` text, layout tables as blocks."""

from __future__ import annotations

import lxml.html
import pytest

import sovereign.net.extract as extract_module
from sovereign.net import read_html
from sovereign.net.markup import layout_tables_as_blocks, paragraphs_from_breaks, parse_html


def _body(html: str) -> lxml.html.HtmlElement:
    return paragraphs_from_breaks(parse_html(html)).find("body")


def _paragraphs(element: lxml.html.HtmlElement) -> list[str]:
    return [" ".join(p.text_content().split()) for p in element.iter("p")]


def test_text_runs_between_double_breaks_become_paragraphs() -> None:
    body = _body("<div>First <b>one</b> here.<br><br>Second one.<br>\n<br>Third.</div>")
    assert _paragraphs(body) == ["First one here.", "Second one.", "Third."]
    assert body.find(".//br") is None


def test_a_single_break_stays_a_line_break_inside_its_paragraph() -> None:
    body = _body("<div>Line one<br>line two<br><br>Next</div>")
    first = next(body.iter("p"))
    assert first.find("br") is not None
    assert _paragraphs(body) == ["Line oneline two", "Next"]


def test_text_after_a_block_keeps_its_place_in_a_paragraph_of_its_own() -> None:
    body = _body("<div>Before.<br><br><aside>Menu</aside>After the menu.<br><br>End.</div>")
    div = body.find("div")
    assert [child.tag for child in div] == ["p", "aside", "p", "p"]
    assert " ".join(div.text_content().split()) == "Before.MenuAfter the menu.End."
    assert div.find("aside").tail is None


@pytest.mark.parametrize("markup", [
    "<p>One<br><br>two</p>",
    "<pre>code<br><br>more</pre>",
    "<ul><li>item<br><br>rest</li></ul>",
    "<div><span>inline<br><br>text</span></div>",
    "<div>no double<br>break</div>",
])
def test_paragraphs_code_items_inline_text_and_single_breaks_are_left_alone(markup: str) -> None:
    untouched = lxml.html.tostring(parse_html(markup).find("body"))
    assert lxml.html.tostring(_body(markup)) == untouched


def test_whitespace_only_runs_make_no_empty_paragraph() -> None:
    body = _body("<div><br><br>  <br><br>Only text<br><br> </div>")
    assert _paragraphs(body) == ["Only text"]


def test_text_after_a_dropped_block_is_kept_by_the_extraction() -> None:
    sentence = "This is a sentence of the article, long enough to read as prose. "
    paragraphs = "<br><br>".join(f"Paragraph {n}. " + sentence * 4 for n in range(8))
    html = ("<html><body><nav><a href='/a'>Home</a> <a href='/b'>News</a></nav><div>"
            f"<aside><a href='/c'>Related story</a></aside>Opening words. {sentence * 3}"
            f"<br><br>{paragraphs}</div><footer>Copyright</footer></body></html>")
    text = read_html(html, "https://example.org/story").body
    assert "Opening words." in text
    assert all(f"Paragraph {n}." in text for n in range(8))
    assert "\n\nParagraph 1." in text  # a paragraph of its own, not a line of a larger one


def test_a_page_too_large_to_analyse_keeps_its_break_text_as_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(extract_module, "MAX_ANALYSED_ELEMENTS", 50)
    lines = "".join(f"line {n}<br><br>" for n in range(60))
    html = f"<html><body><div>{lines}</div></body></html>"
    text = read_html(html).body
    assert [line for line in text.split("\n") if line] == [f"line {n}" for n in range(60)]


def _tables(html: str) -> lxml.html.HtmlElement:
    return layout_tables_as_blocks(parse_html(html)).find("body")


def test_a_table_of_boxes_becomes_blocks_its_paragraphs_siblings() -> None:
    body = _tables("<table><tr><td>One box.</td></tr><tr><td>Two box.</td></tr></table>"
                   "<table><tr><td><p>First.</p><p>Second.</p></td><td>Menu</td></tr></table>")
    assert body.find(".//table") is None and body.find(".//tr") is None
    assert [" ".join(div.text_content().split()) for div in body] == [
        "One box.Two box.", "First.Second.Menu"]
    second = body[1]
    assert [child.tag for child in second] == ["div", "div"]  # the cells, side by side
    assert [p.getparent() for p in second.iter("p")] == [second[0], second[0]]


def test_a_data_table_stays_a_table_inside_a_layout_table() -> None:
    body = _tables("<table><tr><td><p>Prices:</p><table><tr><th>Item</th><th>Price</th></tr>"
                   "<tr><td>Tea</td><td>2</td></tr></table></td></tr></table>")
    data = body.find(".//table")
    assert data is not None and [row.tag for row in data] == ["tr", "tr"]
    assert [cell.tag for cell in data[1]] == ["td", "td"]
    assert body[0].tag == "div"


def test_the_density_extractor_reads_a_layout_table_article_whole() -> None:
    sentence = "This is a sentence of the article, long enough to read as prose, and more. "
    boxes = "".join(f"<table><tr><td>Paragraph {n}. {sentence * 3}</td></tr></table>"
                    for n in range(10))
    html = (f"<html><body><div><a href='/a'>Home</a> <a href='/b'>News</a></div>"
            f"<div><h1>Title</h1>{boxes}</div></body></html>")
    candidate = extract_module._readability(paragraphs_from_breaks(parse_html(html)))
    assert candidate is not None
    text = " ".join(candidate.text_content().split())
    assert all(f"Paragraph {n}." in text for n in range(10))
