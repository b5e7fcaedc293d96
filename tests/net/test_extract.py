"""Text extraction: main content, whole-page fallback, block/inline layout, JSON and plain text."""

from __future__ import annotations

import gzip
import json

import pytest

from sovereign.net import extract_text, main_text, page_text
from tests.fixtures import EXTRACTION as FIXTURES


def test_blocks_on_lines_inline_kept_together_entities_decoded() -> None:
    html = ("<body><h1>Title</h1><div>Hello <b>bold</b>text &amp; <a href=x>link</a></div>"
            "<ul><li>one</li><li>two</li></ul><p>a<br>b</p></body>")
    assert page_text(html) == "Title\nHello boldtext & link\none\ntwo\na\nb"


def test_script_style_noscript_template_are_dropped() -> None:
    html = ("<html><head><style>p{}</style><script>var x</script></head><body><p>kept</p>"
            "<script>alert(1)</script><noscript>ns</noscript><template>tpl</template></body>")
    assert page_text(html) == "kept"


def test_pre_keeps_its_whitespace() -> None:
    html = "<body><p>Code:</p><pre>def f():\n    return  1\n</pre><p>after   it</p></body>"
    assert page_text(html) == "Code:\ndef f():\n    return  1\nafter it"


@pytest.mark.parametrize(
    "html",
    ["<html><body>ok</body></html>", "<p>tiny</p>", "no tags at all",
     "<html><body><div><span>short</span> <span>page</span></div></body></html>"],
)
def test_a_page_with_text_never_comes_back_empty(html: str) -> None:
    assert main_text(html).strip()


def test_an_empty_page_gives_empty_text() -> None:
    assert main_text("<html><body><script>x()</script></body></html>") == ""
    assert main_text("") == ""


def test_main_content_leaves_navigation_out() -> None:
    paragraph = "<p>" + "The article says something worth reading here. " * 8 + "</p>"
    html = (f"<html><body><nav><a>Home</a> <a>About us</a> <a>Contact</a></nav>"
            f"<article><h1>Heading</h1>{paragraph * 4}</article>"
            f"<footer>Copyright footer text</footer></body></html>")
    text = main_text(html)
    assert "worth reading" in text
    assert "About us" not in text and "Copyright" not in text


def test_json_is_pretty_printed_and_broken_json_passes_through() -> None:
    assert extract_text(b'{"a":1}', "application/json", None) == '{\n  "a": 1\n}'
    assert extract_text(b'{"a": [1, 2', "application/json", None) == '{"a": [1, 2'


def test_plain_text_passes_through() -> None:
    assert extract_text(b"<b>not html</b>\r\nline", "text/plain", None) == "<b>not html</b>\nline"


def test_every_benchmark_page_gives_text() -> None:
    truth = json.loads((FIXTURES / "ground-truth.json").read_text(encoding="utf-8"))
    for page_id in sorted(truth)[:15]:
        html = gzip.decompress((FIXTURES / "html" / f"{page_id}.html.gz").read_bytes())
        assert extract_text(html, "text/html", None).strip(), page_id
