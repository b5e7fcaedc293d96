"""Markdown-like rendering: headings, lists, tables, quotes, code, and links as references."""

from __future__ import annotations

import lxml.etree
import lxml.html
import pytest

import sovereign.net.render as render_module
from sovereign.net import PageText
from sovereign.net.render import (
    LINK_BUDGET_FLOOR,
    LINK_BUDGET_SHARE,
    MAX_LINKS,
    absolute_http_url,
    render,
    rendered_lines,
)

BASE = "https://news.example/section/story.html"


def html(markup: str, base: str | None = BASE):  # type: ignore[no-untyped-def]
    return render(lxml.html.fromstring(f"<div>{markup}</div>"), base)


def test_headings_are_marked_with_their_level() -> None:
    text = html("<h1>One</h1><p>a</p><h2>Two</h2><h3>Three <b>bold</b></h3><h6>Six</h6>").text
    assert text == "# One\n\na\n\n## Two\n\n### Three bold\n\n###### Six"


def test_ordered_lists_keep_their_numbers_and_unordered_ones_their_bullets() -> None:
    text = html("<ol><li>first</li><li>second</li></ol><ol start='7'><li>seventh</li></ol>"
                "<ul><li>dot</li><li>dot <ul><li>inner</li></ul></li></ul>").text
    assert text == "1. first\n2. second\n\n7. seventh\n\n- dot\n- dot\n  - inner"


def test_tables_become_one_line_per_row() -> None:
    text = html("<table><tr><th>Name</th><th>Score</th></tr><tr><td>Ann</td><td>3</td></tr>"
                "<tr><td>Bo <i>b</i></td><td></td></tr></table>").text
    assert text == "| Name | Score |\n| --- | --- |\n| Ann | 3 |\n| Bo b |  |"


def test_only_a_row_of_header_cells_is_ruled_as_the_table_s_header() -> None:
    text = html("<table><tr><th>Day</th><td>Hours</td></tr><tr><td>Mon</td><td>9-5</td></tr>"
                "<tr><th>Tue</th><th>closed</th></tr></table>").text
    assert text == "| Day | Hours |\n| Mon | 9-5 |\n| Tue | closed |\n| --- | --- |"


def test_a_layout_table_renders_its_cells_as_paragraphs() -> None:
    text = html("<table><tr><td><p>First paragraph.</p><p>Second paragraph.</p></td>"
                "<td><p>Side.</p></td></tr></table>").text
    assert text == "First paragraph.\n\nSecond paragraph.\n\nSide."


def test_paragraphs_are_separated_and_line_breaks_kept() -> None:
    assert html("<p>one\n   two</p><p>three<br>four</p>").text == "one two\n\nthree\nfour"


def test_quotes_and_code_keep_their_shape() -> None:
    text = html("<blockquote><p>said</p><p>more</p></blockquote>"
                "<pre>def f():\n    return 1</pre>").text
    assert text == "> said\n>\n> more\n\n```\ndef f():\n    return 1\n```"


def test_trafilatura_vocabulary_renders_the_same_way() -> None:
    body = lxml.etree.fromstring(
        '<body><head rend="h2">Sub</head><p>See <ref target="https://a.example/x">this</ref>'
        '<lb/>next</p><list rend="ol"><item>one</item><item>two</item></list>'
        '<table><row><cell role="head">k</cell><cell>v</cell></row></table>'
        "<quote>q</quote></body>")
    rendered = render(body, BASE)
    assert rendered.text == "## Sub\n\nSee this[1]\nnext\n\n1. one\n2. two\n\n| k | v |\n\n> q"
    assert rendered.links == ("https://a.example/x",)


def test_links_are_numbered_references_to_absolute_addresses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(render_module, "LINK_BUDGET_FLOOR", 1000)  # resolution, not the budget
    rendered = html("<p><a href='/a'>root</a>, <a href='b?q=1#frag'>sibling</a>, "
                    "<a href='//other.example/c'>other</a>, <a href='/a'>again</a></p>")
    assert rendered.text == "root, sibling, other, again[1][2][3]"
    assert rendered.links == ("https://news.example/a", "https://news.example/section/b?q=1",
                              "https://other.example/c")
    for start, end, number in rendered.markers:
        assert rendered.text[start:end] == f"[{number}]"


@pytest.mark.parametrize(
    "href",
    ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "&#106;avascript:x",
     "java\nscript:alert(1)", "data:text/html,<script>x</script>", "DATA:,x",
     "vbscript:msgbox", "mailto:a@b.example", "tel:+100", "file:///etc/passwd",
     "ftp://files.example/x", "about:blank", "http://", "http://exa mple.com/", ""],
)
def test_links_to_other_schemes_keep_their_text_but_get_no_number(href: str) -> None:
    rendered = html(f"<p>Click <a href='{href}'>here</a> now</p>")
    assert rendered.text == "Click here now"
    assert rendered.links == ()


def test_no_base_keeps_only_absolute_links() -> None:
    rendered = html("<p><a href='/rel'>rel</a> <a href='https://x.example/d'>abs</a></p>", None)
    assert rendered.text == "rel abs[1]" and rendered.links == ("https://x.example/d",)


def test_a_link_without_text_gets_no_marker() -> None:
    assert html("<p>before<a href='/img'><img src='i.png'></a>after</p>").text == "beforeafter"


PROSE = "<p>" + "Words of the article, told at some length for the budget. " * 60 + "</p>"


def test_the_number_of_links_is_bounded() -> None:
    links = "".join(f"<p>see <a href='/p{i}'>link {i}</a></p>" for i in range(MAX_LINKS + 20))
    rendered = html(PROSE * 20 + links)  # a long text: only the count binds
    assert len(rendered.links) == MAX_LINKS
    assert f"link {MAX_LINKS - 1}[{MAX_LINKS}]" in rendered.text
    assert f"link {MAX_LINKS}\n" in rendered.text + "\n"  # past the bound: text only


@pytest.mark.parametrize("paragraphs", [1, 3, 10, 30])
def test_the_reference_lines_fit_a_share_of_the_text(paragraphs: int) -> None:
    links = "".join(f"<p>see <a href='/a/rather/long/path/{i}'>this</a></p>" for i in range(40))
    rendered = html(PROSE * paragraphs + links)
    page = PageText(rendered.text, rendered.links, rendered.markers)
    listed = len(page.text) - len(page.body)
    assert listed <= max(LINK_BUDGET_FLOOR, LINK_BUDGET_SHARE * len(page.body)) + 20
    assert rendered.links  # the floor keeps at least one on a short page
    assert [n for _, _, n in rendered.markers] == list(range(1, len(rendered.links) + 1))


def test_links_in_running_text_come_before_those_in_lists_and_the_pages_own_is_left_out(
) -> None:
    long_path = "/section/" + "x" * 90  # one menu address alone fills the short-page floor
    menu = "".join(f"<li><a href='{long_path}{i}'>menu {i}</a></li>" for i in range(5))
    page = ("<div><ul>" + menu + "</ul><p>As <a href='/cited'>the study</a> shows, and "
            "<a href='https://news.example/page'>this page</a> says.</p></div>")
    rendered = render(lxml.html.fromstring(page), "https://news.example/page")
    assert rendered.links == ("https://news.example/cited",)
    assert "As the study shows, and this page says.[1]" in rendered.text
    assert "menu 0\n" in rendered.text + "\n"


@pytest.mark.parametrize(
    ("markup", "expected"),
    [("<a href='/w'>Wiki</a>pedia is", "Wikipedia is[1]"),
     ("<a href='/w'>Wiki</a>pédia, is", "Wikipédia, is[1]"),
     ("the <a href='/w'>end</a>.", "the end.[1]"),
     ("<b><a href='/w'>bold</a>face</b> word", "boldface word[1]"),
     ("<a href='/w'>x</a>2<a href='/v'>y</a>z", "x2yz[1][2]")],
)
def test_a_marker_never_splits_a_word(markup: str, expected: str) -> None:
    assert html(f"<p>{markup}</p>").text == expected


@pytest.mark.parametrize(
    ("markup", "expected"),
    [("As <a href='/s'>the study</a> shows, it rains. Then it stops.",
      "As the study shows, it rains.[1] Then it stops."),
     ("It said “<a href='/q'>no</a>.” Then more.", "It said “no.”[1] Then more."),
     ("Is it <a href='/a'>so</a>? And <a href='/b'>why</a>! Fine",
      "Is it so?[1] And why![2] Fine"),
     ("Version 2.5 of <a href='/v'>the tool</a> is out", "Version 2.5 of the tool is out[1]"),
     ("On Nov. 14 <a href='/d'>it</a> said so, e.g. here. Then more.",
      "On Nov. 14 it said so, e.g. here.[1] Then more."),
     ("It fell <a href='/f'>sharply</a>\u2026 but rose. Later",
      "It fell sharply\u2026 but rose.[1] Later")],
)
def test_a_marker_stands_after_the_sentence_that_holds_its_link(
    markup: str, expected: str
) -> None:
    assert html(f"<p>{markup}</p>").text == expected


def test_a_sentence_cites_its_links_once_and_a_page_each_address_once() -> None:
    rendered = html("<p>See <a href='/a'>one</a> and <a href='/b'>two</a>, then "
                    "<a href='/a'>one again</a>. Later <a href='/a'>one</a> once more.</p>")
    assert rendered.text == "See one and two, then one again.[1][2] Later one once more."
    assert [n for _, _, n in rendered.markers] == [1, 2]


def test_markers_in_a_table_row_stay_in_their_cell_and_in_items_end_the_item() -> None:
    rendered = html("<table><tr><td>see <a href='/a'>this</a> cell</td><td>plain</td></tr>"
                    "</table><ul><li><a href='/b'>item</a> text</li></ul>")
    assert "| see this cell[1] | plain |" in rendered.text
    assert "- item text[2]" in rendered.text


def test_marker_lookalikes_in_the_page_are_not_references() -> None:
    rendered = html("<p>as shown in [2] and \ue0012\ue002</p>")
    assert rendered.markers == () and rendered.text == "as shown in [2] and 2"


def test_absolute_http_url_keeps_the_address_and_drops_the_fragment() -> None:
    assert absolute_http_url("HTTPS://Example.com/a b", None) is None
    assert absolute_http_url("http://a.example/\x00x", None) is None
    assert absolute_http_url("http://a.example/" + "x" * 3000, None) is None
    assert absolute_http_url("https:///path", None) is None
    assert absolute_http_url("HTTPS://Example.com/a#x", None) == "https://Example.com/a"
    assert absolute_http_url("?q", "http://h.example") == "http://h.example/?q"


def test_a_part_lists_only_the_addresses_its_markers_need() -> None:
    rendered = html("<p>one <a href='/1'>a</a></p><p>two <a href='/2'>b</a></p>")
    page = PageText(rendered.text, rendered.links, rendered.markers)
    cut = page.body.index("two")
    assert page.part(0, cut) == "one a[1]\n\n\n\nLinks:\n[1] https://news.example/1"
    assert page.part(cut, len(page.body)).endswith("Links:\n[2] https://news.example/2")
    assert page.boundary(page.body.index("[2]") + 1) == page.body.index("[2]")
    assert page.text.endswith("[1] https://news.example/1\n[2] https://news.example/2")


def test_some_lines_keep_the_links_they_cite_renumbered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(render_module, "LINK_BUDGET_FLOOR", 1000)
    rendered = html("<p>one <a href='/1'>a</a>.</p><p>two <a href='/2'>b</a>.</p>"
                    "<p>three <a href='/3'>c</a> and <a href='/1'>a</a>.</p>")
    lines = rendered.text.split("\n")
    assert lines == ["one a.[1]", "", "two b.[2]", "", "three c and a.[3]"]
    part = rendered_lines(rendered, 2, 5)
    assert part.text == "two b.[1]\n\nthree c and a.[2]"
    assert part.links == ("https://news.example/2", "https://news.example/3")
    for start, end, number in part.markers:
        assert part.text[start:end] == f"[{number}]"
    assert rendered_lines(rendered, 0, 1).text == "one a.[1]"


@pytest.mark.parametrize(
    "markup",
    ["visit <a href='https://www.ascom.example/'>www.ascom.example</a>",
     "see <a href='https://t.example/XyZ'>https://t.example/XyZ</a>",
     "at <a href='http://a.example/doc#part'>HTTP://A.example/doc#part</a>",
     "read <a href='/news'>news.example/news</a>"],
)
def test_a_link_whose_text_is_its_address_needs_no_citation(markup: str) -> None:
    rendered = html(f"<p>{markup}.</p>")
    assert rendered.links == () and rendered.markers == ()
    assert "[" not in rendered.text


def test_a_link_whose_text_is_not_its_address_is_cited() -> None:
    rendered = html("<p>visit <a href='https://www.ascom.example/products'>"
                    "www.ascom.example</a>.</p>")
    assert rendered.text == "visit www.ascom.example.[1]"
    assert rendered.links == ("https://www.ascom.example/products",)


@pytest.mark.parametrize(
    ("markup", "address"),
    [("by <a href='/author/jane-doe/'>Jane Doe</a>", "an author's page"),
     ("filed under <a href='/tag/space+travel/'>space travel</a>", "a tag"),
     ("in <a href='/news/'>News</a>", "a section"),
     ("<a href='/topics/country/united-states.html'>United States</a> said", "a topic"),
     ("<a href='/tennis/players/rafael-nadal/184442'>Rafael Nadal</a> won", "a player, by id"),
     ("<a href='https://www.foxbusiness.example/'>Fox Business</a> says", "a site's home"),
     ("<a href='https://news.example/'>Return to top</a>", "the logo's home page"),
     ("ask <a href='https://twitter.example/JaneDoe'>@janedoe</a>", "an account")],
)
def test_a_navigation_link_that_only_names_its_text_is_not_listed(
    markup: str, address: str
) -> None:
    rendered = html(f"<p>The news, {markup}, and more words.</p>")
    assert rendered.links == (), address
    assert "[" not in rendered.text


@pytest.mark.parametrize(
    ("markup", "address"),
    [("as <a href='/2019/11/18/rain-study'>the study</a> shows",
      "https://news.example/2019/11/18/rain-study"),
     ("in <a href='/reviews/pokemon-sword-and-shield-review'>Pokemon Sword and Shield "
      "review</a>", "https://news.example/reviews/pokemon-sword-and-shield-review"),
     ("<a href='https://www.foxbusiness.example/markets/q3'>Fox Business</a> says",
      "https://www.foxbusiness.example/markets/q3"),
     ("<a href='https://data.example/?year=2019'>the figures</a> show",
      "https://data.example/?year=2019")],
)
def test_a_content_link_is_listed(markup: str, address: str) -> None:
    rendered = html(f"<p>The news, {markup}, and more words.</p>")
    assert rendered.links == (address,)
    assert rendered.text.endswith("and more words.[1]")


def test_a_link_that_acts_on_the_page_itself_is_not_listed() -> None:
    share = ("https://social.example/share?text=Quote&url="
             "https%3A%2F%2Fnews.example%2Fsection%2Fstory.html%3Futm_source%3Dx")
    rendered = html(f"<p>A quote worth sharing. <a href='{share}'>Click to share</a></p>"
                    "<p>And <a href='https://social.example/share?url=https://else.example/'>"
                    "this</a>.</p>")
    assert rendered.links == ("https://social.example/share?url=https://else.example/",)
    assert "Click to share\n" in rendered.text
