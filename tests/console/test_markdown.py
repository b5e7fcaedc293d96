"""The answers' Markdown renderer (markdown.js) in chromium: formatting, and what it never does.

It never makes an element outside a fixed list, never keeps an attribute outside a
fixed list, never links anything but an absolute http(s) address (and then shows
that address as the link's text), never makes an image, and never loses text.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from .conftest import CONSOLE_DIR, MODULE_ORIGIN

VENDORED_SHA256 = "d5432491790141da046b1197353705db03264f40b5727f3b4b591f5aba193e30"
ALLOWED_TAGS = {
    "div", "p", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "hr",
    "br", "strong", "em", "s", "span", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"class", "href", "rel", "target", "referrerpolicy", "start"}

RENDER = """async ([origin, sources]) => {
    const { renderMarkdown } = await import(origin + "/markdown.js");
    return sources.map((source) => {
        const root = renderMarkdown(source);
        const elements = [root, ...root.querySelectorAll("*")];
        return {
            html: root.innerHTML,
            text: root.textContent,
            plain: root.classList.contains("plain"),
            tags: [...new Set(elements.map((e) => e.localName))],
            attributes: [...new Set(elements.flatMap((e) => e.getAttributeNames()))],
            hrefs: [...root.querySelectorAll("a")]
                .map((a) => [a.getAttribute("href"), a.textContent]),
            depth: Math.max(0, ...elements.map((e) => {
                let d = 0; for (let n = e; n !== root; n = n.parentElement) d += 1; return d;
            })),
        };
    });
}"""


@pytest.fixture(scope="module")
def render(module_page):
    def call(*sources: str) -> list[dict]:
        return module_page.evaluate(RENDER, [MODULE_ORIGIN, list(sources)])

    return call


def one(render, source: str) -> dict:
    return render(source)[0]


def assert_safe(shape: dict) -> None:
    assert set(shape["tags"]) <= ALLOWED_TAGS, shape["tags"]
    assert set(shape["attributes"]) <= ALLOWED_ATTRIBUTES, shape["attributes"]
    for href, shown in shape["hrefs"]:
        assert href.startswith(("http://", "https://")), href
        assert shown == href, (href, shown)


def test_the_vendored_parser_is_the_pinned_release():
    vendored = CONSOLE_DIR / "vendor" / "markdown-it.min.js"
    assert hashlib.sha256(vendored.read_bytes()).hexdigest() == VENDORED_SHA256
    assert (
        (CONSOLE_DIR / "vendor" / "markdown-it-LICENSE.txt")
        .read_text()
        .startswith("Copyright (c) 2014 Vitaly Puzrin")
    )


def test_paragraphs_headings_lists_emphasis_and_code(render):
    shape = one(
        render,
        "# Title\n\nSome **bold**, *italic*, ~~gone~~ and `code`.\n\n"
        "- one\n- two\n  1. nested\n\n3. three\n4. four\n\n"
        "```sh\nrm -rf <b>\n```\n\n> quoted\n\n---",
    )
    assert shape["html"] == (
        "<h3>Title</h3>"
        "<p>Some <strong>bold</strong>, <em>italic</em>, <s>gone</s> and <code>code</code>.</p>"
        "<ul><li>one</li><li>two<ol><li>nested</li></ol></li></ul>"
        '<ol start="3"><li>three</li><li>four</li></ol>'
        "<pre><code>rm -rf &lt;b&gt;\n</code></pre>"
        "<blockquote><p>quoted</p></blockquote><hr>"
    )
    assert_safe(shape)


def test_a_simple_table_with_alignment(render):
    shape = one(render, "| item | cost |\n|:--|--:|\n| tea | 3 |\n| **cake** | 12 |")
    assert shape["html"] == (
        '<div class="table-wrap"><table><thead><tr><th class="align-left">item</th>'
        '<th class="align-right">cost</th></tr></thead><tbody>'
        '<tr><td class="align-left">tea</td><td class="align-right">3</td></tr>'
        '<tr><td class="align-left"><strong>cake</strong></td><td class="align-right">12</td>'
        "</tr></tbody></table></div>"
    )


def test_single_line_breaks_are_kept(render):
    assert one(render, "line one\nline two")["html"] == "<p>line one<br>line two</p>"


def test_an_http_link_shows_its_full_destination_beside_the_label(render):
    shape = one(render, "See [the docs](https://docs.example.org/a?b=1#c) now.")
    assert shape["html"] == (
        '<p>See <span class="link-label">the docs</span> (<a href="https://docs.example.org/a?b=1#c"'
        ' rel="noopener noreferrer nofollow" target="_blank" referrerpolicy="no-referrer"'
        ' class="link-destination">https://docs.example.org/a?b=1#c</a>) now.</p>'
    )


def test_a_link_whose_label_is_its_address_is_shown_once(render):
    shape = one(
        render, "<https://example.org/x> and [https://example.org/y](https://example.org/y)"
    )
    assert [shown for _, shown in shape["hrefs"]] == [
        "https://example.org/x",
        "https://example.org/y",
    ]
    assert "link-label" not in shape["html"]


def test_a_look_alike_host_is_shown_as_the_browser_would_reach_it(render):
    shape = one(render, "[apple.com](https://\u0430pple.com/login)")  # a Cyrillic "a" first
    (href, shown) = shape["hrefs"][0]
    assert href == shown == "https://xn--pple-43d.com/login"
    assert "apple.com" in shape["text"]


@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](java\tscript:alert(1))",
        "[x](javascript&#58;alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](file:///etc/passwd)",
        "[x](//evil.example/path)",
        "[x](/api/v1/auth/logout)",
        "[x](#top)",
        "[x](mailto:a@example.org)",
        "[x](blob:https://example.org/uuid)",
        "[x](ftp://example.org/)",
        "<javascript:alert(1)>",
        "[x]\n\n[x]: javascript:alert(1)",
        "[x]\n\n[x]: //evil.example",
    ],
)
def test_anything_but_an_absolute_http_link_stays_text(render, link):
    shape = one(render, link)
    assert shape["hrefs"] == []
    assert "a" not in shape["tags"]
    assert_safe(shape)


@pytest.mark.parametrize(
    "image",
    [
        "![a cat](https://evil.example/pixel.png)",
        '![a cat](https://evil.example/pixel.png "title")',
        "![a cat][pic]\n\n[pic]: https://evil.example/pixel.png",
        "[![a cat](https://evil.example/pixel.png)](https://example.org/)",
    ],
)
def test_an_image_is_never_made_its_alt_text_and_address_are_shown(render, image):
    shape = one(render, image)
    assert "img" not in shape["tags"]
    assert "[image: a cat] (https://evil.example/pixel.png)" in shape["text"]
    assert_safe(shape)


@pytest.mark.parametrize(
    "html",
    [
        "<img src=https://evil.example/a.png onerror=alert(1)>",
        '<iframe src="https://evil.example/"></iframe>',
        "<script>alert(1)</script>",
        "<style>@import url(https://evil.example/x.css);"
        " body{background:url(//evil.example/b)}</style>",
        '<link rel="stylesheet" href="https://evil.example/x.css">',
        '<link rel="prefetch" href="https://evil.example/p">',
        '<div style="background:url(https://evil.example/c)">x</div>',
        '<svg><image href="https://evil.example/s.png"/></svg>',
        '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
        '<base href="https://evil.example/">',
        '<object data="https://evil.example/o"></object>',
        '<video poster="https://evil.example/v.png"></video>',
        '<form action="https://evil.example/"><button>go</button></form>',
        '<a href="https://evil.example/">raw link</a>',
        "<!-- comment --><details open ontoggle=alert(1)>",
    ],
)
def test_raw_html_is_shown_as_its_characters(render, html):
    for source in (html, f"text {html} text", f"- {html}", f"> {html}"):
        shape = one(render, source)
        assert html in shape["text"].replace("\n", "") or html in shape["text"], (source, shape)
        assert_safe(shape)
        assert shape["hrefs"] == []


def test_nested_lists_deeper_than_the_indent_limit_keep_every_item(render):
    source = "".join("  " * level + f"- level {level}\n" for level in range(40))
    shape = one(render, source)
    assert not shape["plain"]
    assert all(f"level {level}" in shape["text"] for level in range(40))
    assert 'class="flat"' in shape["html"]
    assert_safe(shape)


@pytest.mark.parametrize(
    "source",
    [
        "".join("  " * level + f"- level {level}\n" for level in range(400)),
        ">" * 5000 + " the deepest words",
        "".join(">" * level + f" quote {level}\n" for level in range(1, 300)),
        "- " * 3000 + "deep",
    ],
    ids=["400-level-list", "5000-quotes", "stair-of-quotes", "3000-inline-bullets"],
)
def test_nesting_past_what_the_parser_follows_shows_the_whole_answer_as_text(render, source):
    shape = one(render, source)
    assert shape["plain"] and shape["text"] == source
    assert shape["tags"] == ["div"]


def test_a_one_megabyte_answer_is_shown_whole_as_text(render):
    source = ("**Bold** [link](https://example.org/) ![i](https://evil.example/i.png)\n\n") * 14_000
    assert len(source) > 1_000_000
    shape = one(render, source)
    assert shape["plain"] and shape["text"] == source
    assert shape["tags"] == ["div"]


def test_random_markdown_like_noise_is_always_safe(render):
    pieces = [
        "*", "**", "_", "`", "```", "~~", "#", "- ", "1. ", "> ", "|", "---", "\n", "\n\n", " ",
        "[", "]", "(", ")", "!", "<", ">", "&", "#58;", "javascript:", "data:", "//", "http://",
        "https://a.example/", "evil", "\\", '"', "'", "=", "<img src=x>", "<a href=", "\t",
    ]  # fmt: skip
    generator = random.Random(20261201)
    sources = [
        "".join(generator.choice(pieces) for _ in range(generator.randint(1, 60)))
        for _ in range(600)
    ]
    for source, shape in zip(sources, render(*sources), strict=True):
        assert_safe(shape)
        assert shape["depth"] < 250, source
