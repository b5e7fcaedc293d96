"""The "before" extractor of bench/fetch.py: the extractor as it stood before a cut
recall-first candidate kept the headings that open its agreed extent, today's read_html
after."""

from __future__ import annotations

import pytest
from extraction_before import before_read_html

import sovereign.net.choose as choose_module
from sovereign.net import extract as today
from sovereign.net import read_html

SENTENCE = "This is a sentence of the article, long enough to read as prose, and more. "
PAGE = ("<html><body><div><h1>Title</h1>"
        + "".join(f"<p>Paragraph {n}. {SENTENCE * 3}</p>" for n in range(10))
        + "</div></body></html>")


def test_before_cuts_the_opening_headings_and_today_keeps_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    choose, seen = today.choose, []

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(choose_module.EXTENT_KEEPS_TITLE)
        return choose(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(today, "choose", recording)
    before_read_html(PAGE)
    read_html(PAGE)
    assert seen == [False, True]
    assert choose_module.EXTENT_KEEPS_TITLE is True
