"""The "before" extractor of bench/fetch.py: the earlier steps inside its block, today's after."""

from __future__ import annotations

from extraction_before import before_read_html

from sovereign.net import read_html

PAGE = ("<html><body><p>As <a href='https://a.example/study'>the study</a> shows, and "
        "<a href='https://a.example/study'>again</a>, see "
        "<a href='https://www.b.example/'>www.b.example</a>. Next.</p></body></html>")


def test_before_cites_after_the_word_at_every_use_and_today_after_the_sentence() -> None:
    before = before_read_html(PAGE)
    assert "the study[1] shows, and again[1], see www.b.example[2]. Next." in before.body
    today = read_html(PAGE)
    assert "the study shows, and again, see www.b.example.[1] Next." in today.body
    assert today.links == ("https://a.example/study",)
