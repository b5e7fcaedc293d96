"""A fetched page's text is valid UTF-8 whatever the page held: half an emoji in a JSON
escape, a charset that decodes to lone surrogates, every media type."""

from __future__ import annotations

import json

import pytest

from sovereign.net import extract_text

LONE = ["\\ud83d", "\\ude00", "\\udfff", "\\ud800"]
"""JSON escapes of lone surrogates: a high half, a low half, the range's two ends."""


def _encodes(text: str | None) -> bool:
    if text is None:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize("escape", LONE)
@pytest.mark.parametrize("where", ["value", "key", "nested"])
def test_a_json_page_with_a_lone_surrogate_escape_reads_as_a_replacement_character(
    escape: str, where: str
) -> None:
    documents = {
        "value": f'{{"title": "half an emoji {escape} here"}}',
        "key": f'{{"{escape}": 1}}',
        "nested": f'{{"a": [{{"b": ["x{escape}y"]}}]}}',
    }
    page = extract_text(documents[where].encode(), "application/json", "utf-8")
    assert _encodes(page.body)
    assert "\ufffd" in page.body
    json.loads(page.body)  # still the same document, pretty-printed


def test_a_surrogate_pair_escaped_in_json_stays_its_emoji() -> None:
    page = extract_text(b'{"a": "\\ud83d\\ude00 ok"}', "application/json", "utf-8")
    assert "\U0001f600 ok" in page.body


@pytest.mark.parametrize(
    ("body", "media_type", "charset"),
    [
        (b"+2D0- a page in utf-7", "text/plain", "utf-7"),
        (b"\\ud83d a page in unicode_escape", "text/plain", "unicode_escape"),
        (b"<html><body><p>+2D0- an html page in utf-7 with words</p></body></html>",
         "text/html", "utf-7"),
        (b"<html><head><title>+2D0- title</title></head><body><p>x</p></body></html>",
         "text/html", "utf-7"),
        (b'{"a": "+2D0-"}', "application/json", "utf-7"),
        (b"\xed\xa0\xbd raw surrogate bytes", "text/plain", "utf-8"),
        (b"<p>&#xD83D; &#55357; character references</p>", "text/html", "utf-8"),
    ],
    ids=["utf7-plain", "unicode-escape", "utf7-html", "utf7-title", "utf7-json",
         "surrogate-bytes", "html-references"],
)
def test_no_charset_or_markup_can_put_a_lone_surrogate_into_the_text(
    body: bytes, media_type: str, charset: str
) -> None:
    page = extract_text(body, media_type, charset)
    assert _encodes(page.body) and _encodes(page.title)
    assert "\ufffd" in page.body + (page.title or "")
    assert all(_encodes(link) for link in page.links)
