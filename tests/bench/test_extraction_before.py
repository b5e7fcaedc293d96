"""The "before" extractor of bench/fetch.py: the extractor as it stood before the link
rules of 2026-12-05 (afternoon), today's read_html after them."""

from __future__ import annotations

from extraction_before import before_read_html

from sovereign.net import read_html

PAGE = ("<html><body><p>As <a href='https://a.example/study'>the study</a> shows, and "
        "<a href='https://a.example/study'>again</a>, see "
        "<a href='https://a.example/tag/space-travel'>space travel</a>. Next.</p></body></html>")


def test_before_cites_a_tag_page_and_today_only_the_study() -> None:
    before = before_read_html(PAGE)
    assert "the study shows, and again, see space travel.[1][2] Next." in before.body
    assert before.links == ("https://a.example/study", "https://a.example/tag/space-travel")
    today = read_html(PAGE)
    assert "the study shows, and again, see space travel.[1] Next." in today.body
    assert today.links == ("https://a.example/study",)
