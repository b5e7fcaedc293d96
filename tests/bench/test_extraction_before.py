"""The "before" extractor of bench/fetch.py: the extractor as it stood before a contained
recall-first candidate was cut to its agreed extent, today's read_html after."""

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


def test_before_keeps_a_contained_core_whole_and_today_cuts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    choose, seen = today.choose, []

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(choose_module.TRIM_CORE_TO_AGREED_EXTENT)
        return choose(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(today, "choose", recording)
    before_read_html(PAGE)
    read_html(PAGE)
    assert seen == [False, True]
    assert choose_module.TRIM_CORE_TO_AGREED_EXTENT is True
