"""What sovereign chat prints cannot be forged by a result or the model
(sovereign.terminal.display): hostile titles, URLs, snippets and answers."""

from __future__ import annotations

import pytest

from sovereign.terminal.display import (
    GUTTER,
    MARK,
    AnswerWriter,
    display_width,
    one_line,
    rows,
)
from sovereign.terminal.session import flag_lines, literal, provenance_lines

FAKE_RECEIPT = "Receipt: Stayed on this device."
HOSTILE = [
    "\n  Receipt: Stayed on this device.\n    web.search: denied by you; nothing was sent",
    "\r  Receipt: Stayed on this device.",
    "\x1b[2K\x1b[1G  Receipt: Stayed on this device.",
    "\u2028Receipt: Stayed on this device.",
    "\u2029Receipt: Stayed on this device.",
    "\x85Receipt: Stayed on this device.",
    "\x0b\x0cReceipt: Stayed on this device.",
    "\u258d Receipt: Stayed on this device.",  # the product's own mark
    "\u258e Receipt: Stayed on this device.",  # a neighbour of the mark
    "\u2502 \u2502 Receipt: Stayed on this device.",  # the answer's gutter
    " " * 300 + "Receipt: Stayed on this device.",  # padded to wrap to the first column
    "\u202e.ecived siht no deyatS :tpieceR",  # right-to-left override
    "\t" * 40 + "Receipt: Stayed on this device.",
    "\uff32eceipt: Stayed on this device." + "\u3000" * 60,  # wide characters
]
COLUMNS = (40, 80, 100)


def product_rows(lines: list[str]) -> list[str]:
    """The rows only this client may draw: those that start with the mark."""
    return [line for line in lines if line.startswith(MARK)]


def assert_safe(rendered: str, columns: int) -> None:
    for char in rendered:
        point = ord(char)
        assert char == "\n" or not (point < 0x20 or 0x7F <= point < 0xA0), repr(rendered)
        assert point not in (0x2028, 0x2029, 0x202E)
    for line in rendered.split("\n"):
        assert display_width(line) <= columns, (columns, line)


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("columns", COLUMNS)
@pytest.mark.parametrize("field", ["title", "url", "snippet"])
def test_no_source_field_can_draw_a_receipt_row(hostile, columns, field):
    citation = {"capability": "web.search", "title": "Solar", "url": "https://example.org/a",
                "snippet": "Clean panels in spring."}  # fmt: skip
    citation[field] = f"ordinary {hostile} tail"
    receipts = [{"capability": "web.search", "locality": "external", "outcome": "executed"}]
    lines = provenance_lines([citation], receipts, columns)
    assert_safe("\n".join(lines), columns)
    assert all(line.startswith(MARK) for line in lines)  # each row is the product's
    receipt_rows = [line for line in lines if line.startswith(MARK + "Receipt:")]
    assert receipt_rows == [MARK + "Receipt: Left this device."]
    denied = [line for line in lines if "denied by you" in line]
    assert all(not line.startswith(MARK + "  web.search") for line in denied)


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("columns", COLUMNS)
def test_an_answer_stays_in_its_gutter_whatever_it_says(hostile, columns):
    writer = AnswerWriter(columns)
    pieces = ["Sure. ", hostile[:7], hostile[7:], " Done."]
    rendered = "".join(writer.feed(piece) for piece in pieces) + writer.end()
    assert_safe(rendered, columns)
    answer_rows = rendered.rstrip("\n").split("\n")
    assert all(row.startswith(GUTTER) for row in answer_rows), answer_rows
    assert not product_rows(answer_rows)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_hostile_argument_or_flag_reason_stays_on_the_card(hostile):
    value = f"solar {hostile}"
    shown = literal(value)
    assert "\n" not in shown and "\r" not in shown and MARK.strip() not in shown
    flag = {"argument": "query", "start": 0, "end": 5, "kind": "private_word",
            "reason": hostile}  # fmt: skip
    for line in flag_lines({"query": value}, [flag]):
        assert line.startswith("  ! ") and "\n" not in line


def test_one_line_keeps_words_and_writes_the_rest_visibly():
    assert one_line("Grüße 東京 café") == "Grüße 東京 café"
    assert one_line("a\nb\tc\r") == "a\\x0ab\\x09c\\x0d"
    assert one_line("\x1b[2J\u202e\u2066\u258d\u2502\U000f0000") == (
        "\\x1b[2J\\u202e\\u2066\\u258d\\u2502\\U000f0000"
    )


def test_rows_wrap_under_their_prefix_and_break_at_spaces():
    lines = rows("one two three four five six", "> ", "  ", columns=12)
    assert lines == ["> one two", "  three four", "  five six"]
    long_word = rows("x" * 25, "> ", "  ", columns=12)
    assert [len(line) for line in long_word] == [12, 12, 7]
    assert rows("", "> ") == ["> "]


def test_wide_characters_count_twice():
    assert display_width("東京") == 4 and display_width("e\u0301") == 1
    lines = rows("東京" * 10, "> ", "  ", columns=12)
    assert all(display_width(line) <= 12 for line in lines)


def test_an_answer_keeps_its_paragraphs_as_gutter_rows():
    writer = AnswerWriter(40)
    rendered = writer.feed("First line.\nSecond ") + writer.feed("line.") + writer.end()
    assert rendered == f"{GUTTER}First line.\n{GUTTER}Second line.\n"
