"""Text extraction: main content, whole-page fallback, deep and broken markup, JSON, plain text."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

import pytest

import sovereign.net.extract as extract_module
from sovereign.net import extract_text, main_text, page_text, read_html
from sovereign.net.extract import declared_article_body
from sovereign.net.markup import MAX_DEPTH, page_title, parse_html
from tests.fixtures import EXTRACTION as FIXTURES

ARTICLE = "<p>" + "The article says something worth reading here. " * 8 + "</p>"


def test_whole_page_keeps_blocks_apart_and_inline_text_together() -> None:
    html = ("<body><h1>Title</h1><div>Hello <b>bold</b>text &amp; <a href=x>link</a></div>"
            "<ul><li>one</li><li>two</li></ul><p>a<br>b</p></body>")
    assert page_text(html) == "# Title\n\nHello boldtext & link\n\n- one\n- two\n\na\nb"


def test_script_style_noscript_template_are_dropped() -> None:
    html = ("<html><head><style>p{}</style><script>var x</script></head><body><p>kept</p>"
            "<script>alert(1)</script><noscript>ns</noscript><template>tpl</template></body>")
    assert page_text(html) == "kept"


@pytest.mark.parametrize(
    "html",
    ["<html><body>ok</body></html>", "<p>tiny</p>", "no tags at all",
     "<html><body><div><span>short</span> <span>page</span></div></body></html>",
     "<table><tr><td>only a cell</td></tr></table>", "<br>after a break<br>",
     "<body>text<br>in lines<br>without paragraphs</body>"],
)
def test_a_page_with_text_never_comes_back_empty(html: str) -> None:
    assert main_text(html).strip()


def test_an_empty_page_gives_empty_text() -> None:
    assert main_text("<html><body><script>x()</script></body></html>") == ""
    assert main_text("") == ""


def test_main_content_leaves_navigation_out() -> None:
    html = (f"<html><body><nav><a>Home</a> <a>About us</a> <a>Contact</a></nav>"
            f"<article><h1>Heading</h1>{ARTICLE * 4}</article>"
            f"<footer>Copyright footer text</footer></body></html>")
    text = main_text(html)
    assert "worth reading" in text
    assert "About us" not in text and "Copyright" not in text


def test_the_fallback_leaves_navigation_out_when_nothing_else_is_found() -> None:
    menu = "".join(f"<li><a href='/s{i}'>Section number {i}</a></li>" for i in range(60))
    note = "A short note in a plain division, with no paragraph markup around it. " * 4
    html = (f"<body><header><nav><ul>{menu}</ul></nav></header><div>{note}</div>"
            f"<footer>{'Footer words and more footer words. ' * 20}</footer></body>")
    text = main_text(html)
    assert "A short note" in text
    assert "Section number" not in text and "Footer words" not in text


def test_only_navigation_is_still_text() -> None:
    assert "Menu one" in main_text("<body><nav><a href='/a'>Menu one</a></nav></body>")


DEEP_TEXT = "deep words of the only article on this page, told at some length. " * 6


@pytest.mark.parametrize(
    "markup",
    [
        "<div>" * 10_000 + DEEP_TEXT + "</div>" * 10_000,  # nested, closed
        "<div>" * 10_000 + DEEP_TEXT,  # nested, never closed
        "<b>" * 10_000 + DEEP_TEXT,  # inline elements, never closed
        "<span><font><i>" * 4_000 + DEEP_TEXT,
        "<table><tr><td>" * 3_000 + DEEP_TEXT,
        "<li><p><blockquote>" * 4_000 + DEEP_TEXT,
        "<div><p>" + "<div>" * 300 + DEEP_TEXT,  # just past libxml2's 255 levels
    ],
    ids=["nested", "unclosed-div", "unclosed-b", "unclosed-inline-mix", "unclosed-table",
         "unclosed-blocks", "past-255"],
)
def test_deep_and_unclosed_markup_keeps_its_text(markup: str) -> None:
    html = (f"<html><head><title>Deep</title></head><body><p>before</p>{markup}<p>after</p>"
            "</body></html>")
    assert "deep words" in main_text(html)
    whole = page_text(html)
    assert "before" in whole and "deep words" in whole
    assert read_html(html).title == "Deep"


def test_deep_markup_is_flattened_past_the_depth_cap_only() -> None:
    root = parse_html("<body>" + "<div>" * 10_000 + "x</body>")
    depth, element = 0, root
    while len(element):
        element, depth = element[0], depth + 1
    assert MAX_DEPTH <= depth <= MAX_DEPTH + 2  # html, body, then the kept divs
    assert element.text == "x"


def test_title_prefers_og_title_then_title_then_h1() -> None:
    assert page_title(parse_html(
        "<head><meta property='og:title' content=' The  Story '><title>Site | Story</title>"
        "</head><body><h1>H</h1></body>")) == "The Story"
    assert page_title(parse_html("<head><title>\n Site\n</title></head><h1>H</h1>")) == "Site"
    assert page_title(parse_html("<body><h1>Only <i>a</i> heading</h1></body>")) == "Only a heading"
    assert page_title(parse_html("<body><p>none</p></body>")) is None
    assert len(page_title(parse_html(f"<title>{'x' * 5000}</title>")) or "") == 300


def test_the_h1_stays_in_the_text_even_when_it_repeats_the_title() -> None:
    html = (f"<html><head><title>The Heading</title></head><body><article><h1>The Heading</h1>"
            f"{ARTICLE * 4}<h2>Next part</h2>{ARTICLE}</article></body></html>")
    page = read_html(html)
    assert page.title == "The Heading"
    assert page.body.startswith("# The Heading\n")
    assert "\n## Next part\n" in page.body


def test_json_is_pretty_printed_and_broken_json_passes_through() -> None:
    assert extract_text(b'{"a":1}', "application/json", None).body == '{\n  "a": 1\n}'
    assert extract_text(b'{"a": [1, 2', "application/json", None).body == '{"a": [1, 2'


def test_plain_text_passes_through() -> None:
    page = extract_text(b"<b>not html</b>\r\nline [1]", "text/plain", None)
    assert page.body == "<b>not html</b>\nline [1]"
    assert (page.links, page.markers, page.title) == ((), (), None)


def test_every_benchmark_page_gives_text_with_its_links_resolved() -> None:
    truth = json.loads((FIXTURES / "ground-truth.json").read_text(encoding="utf-8"))
    for page_id in sorted(truth)[:15]:
        html = gzip.decompress((FIXTURES / "html" / f"{page_id}.html.gz").read_bytes())
        page = extract_text(html, "text/html", None, truth[page_id]["url"])
        assert page.body.strip(), page_id
        assert all(link.startswith(("http://", "https://")) for link in page.links), page_id
        for start, end, number in page.markers:
            assert page.body[start:end] == f"[{number}]"


SHORT_PAGES = {
    "ul": ("<h1>Cooking pasta</h1><p>Boil water, add salt, then the pasta.</p>"
           "<ul><li>500 g pasta</li><li>Salt</li></ul><h2>Serving</h2><p>Drain it.</p>",
           ["# Cooking pasta", "- 500 g pasta", "- Salt", "## Serving"]),
    "ol-table-code": ("<h1>Release notes</h1><ol><li>Fixed the crash</li><li>Faster</li></ol>"
                      "<table><tr><th>Version</th><th>Date</th></tr><tr><td>2.1</td>"
                      "<td>2024-01-02</td></tr></table><pre>pip install thing\nthing --run</pre>",
                      ["# Release notes", "1. Fixed the crash", "2. Faster",
                       "| Version | Date |", "| 2.1 | 2024-01-02 |", "pip install thing",
                       "thing --run"]),
    "dl-h3": ("<h3>Glossary</h3><dl><dt>Term</dt><dd>What it means</dd></dl>",
              ["### Glossary", "Term", "- What it means"]),
    "nav-left-out": ("<nav><a href='/'>Home</a> <a href='/x'>Menu item</a></nav>"
                     "<h1>Notice</h1><ul><li>Closed on Monday</li></ul>",
                     ["# Notice", "- Closed on Monday"]),
}


@pytest.mark.parametrize("page", SHORT_PAGES.values(), ids=SHORT_PAGES.keys())
def test_a_short_page_keeps_its_headings_items_rows_and_code_as_lines(
        page: tuple[str, list[str]]) -> None:
    markup, lines = page
    text = main_text(f"<html><head><title>Page</title></head><body>{markup}</body></html>")
    for line in lines:
        assert line in text.splitlines(), (line, text)
    assert "Menu item" not in text


def test_an_articles_h1_and_list_items_are_kept() -> None:
    steps = "".join(f"<li>Step {i} of the method, in its own words</li>" for i in range(5))
    html = (f"<html><head><title>How to do it | Site</title></head><body><nav>"
            f"{'<a href=/s>Section</a> ' * 20}</nav><article><h1>How to do it</h1>{ARTICLE * 3}"
            f"<ul>{steps}</ul>{ARTICLE * 2}</article><footer>{'Footer text. ' * 30}</footer>"
            "</body></html>")
    lines = read_html(html).body.splitlines()
    assert "# How to do it" in lines
    assert all(f"- Step {i} of the method, in its own words" in lines for i in range(5))


def test_the_h1_stays_when_the_density_extractor_leaves_it_out() -> None:
    """The markup-following candidate holds the title and the article, the density-scoring
    one only the article's paragraphs: the first is cut to the extent both agree on, and
    the heading that opens it stays."""
    topics = ("bees", "hives", "honey", "frames", "queens", "smoke", "wax", "pollen")
    paragraphs = "".join(f"<p>Paragraph {i} says something worth reading about {topic}, in "
                         "a long sentence with enough words to read like prose.</p>"
                         for i, topic in enumerate(topics))
    html = (f"<html><body><article><h1>How to keep bees</h1><div>{paragraphs}</div>"
            "</article></body></html>")
    lines = read_html(html).body.splitlines()
    assert lines[0] == "# How to keep bees"
    assert lines[2].startswith("Paragraph 0 says something worth reading about bees")


def _ld(document: object) -> str:
    return f"<script type='application/ld+json'>{json.dumps(document)}</script>"


@pytest.mark.parametrize(
    "scripts",
    [_ld({"@type": "NewsArticle", "articleBody": "the declared body"}),
     _ld({"@graph": [{"@type": "WebPage"}, {"articleBody": "the declared body"}]}),
     "<script type='application/ld+json'>{broken</script>"
     + _ld([{"mainEntity": {"articleBody": "the declared body"}}]),
     "<script type='application/ld+json'>" + "[" * 50_000 + "</script>"
     + _ld({"articleBody": "the declared body"})],
    ids=["plain", "graph", "after-a-broken-one", "after-a-deep-one"],
)
def test_the_declared_article_body_is_found_wherever_it_sits(scripts: str) -> None:
    root = parse_html(f"<html><head>{scripts}</head><body><p>x</p></body></html>")
    assert declared_article_body(root) == "the declared body"


def test_the_agreed_extent_of_a_candidate_is_what_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the choice keeps only some blocks of a proposal, the text is those blocks,
    with the links they cite (and only those) renumbered from 1."""
    teaser = "<p>Teaser of another story, <a href='/other'>read it</a>.</p>"
    html = (f"<html><body><article>{teaser}<p>First paragraph of the article, citing "
            f"<a href='/source'>its source</a>.</p>{ARTICLE * 4}</article></body></html>")
    monkeypatch.setattr(extract_module, "choose", lambda candidates, *_: replace(
        candidates[0], blocks=candidates[0].blocks[1:], span=(1, len(candidates[0].blocks))))
    page = read_html(html, "https://news.example/a")
    assert page.body.startswith("First paragraph of the article, citing its source.[1]")
    assert "Teaser" not in page.body
    assert page.links == ("https://news.example/source",)
    assert [page.body[s:e] for s, e, _ in page.markers] == ["[1]"]


def test_a_page_without_semantic_markup_cites_its_source_and_not_its_navigation() -> None:
    """Where navigation reads like content (plain ``div``s, a byline in the first
    paragraph), the author's page, the site's home page, a tag and a share link keep
    their text and get no number; the study the article cites does."""
    html = ("<html><body><div><div><p>By <a href='/author/jane-doe/'>Jane Doe</a> for "
            "<a href='/'>Daily News</a>, in <a href='/tag/weather/'>Weather</a>. Rain fell "
            "all week, as <a href='https://lab.example/2019/rain-study.pdf'>the study</a> "
            "predicted.</p>" + ARTICLE * 3 + "<p>Tell a friend: <a href='https://social."
            "example/share?url=https://news.example/a'>share this story</a>.</p></div>"
            "</div></body></html>")
    page = read_html(html, "https://news.example/a")
    assert page.body.startswith("By Jane Doe for Daily News, in Weather.")
    assert page.links == ("https://lab.example/2019/rain-study.pdf",)
    assert "as the study predicted.[1]" in page.body
