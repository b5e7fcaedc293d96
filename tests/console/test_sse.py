"""Unit tests of the Console's server-sent events parser (sse.js), run in chromium."""

from __future__ import annotations

FEED = """async ([chunks]) => {
  const { SseParser } = await import("http://127.0.0.1:9/sse.js");
  const parser = new SseParser();
  return chunks.map((chunk) => parser.feed(chunk));
}"""


def feed(module_page, *chunks):
    return module_page.evaluate(FEED, [list(chunks)])


def test_frames_split_anywhere_are_reassembled(module_page):
    stream = 'event: token\ndata: {"text":"Hel"}\n\nevent: result\ndata: {"text":"Hello"}\n\n'
    pieces = [stream[i : i + 5] for i in range(0, len(stream), 5)]
    frames = [frame for batch in feed(module_page, *pieces) for frame in batch]
    assert frames == [
        {"event": "token", "data": '{"text":"Hel"}'},
        {"event": "result", "data": '{"text":"Hello"}'},
    ]


def test_crlf_and_cr_line_endings_are_accepted(module_page):
    batches = feed(module_page, "event: token\r\ndata: a\r\n\r", "\nevent: x\rdata: b\r\r\n")
    frames = [frame for batch in batches for frame in batch]
    assert frames == [{"event": "token", "data": "a"}, {"event": "x", "data": "b"}]


def test_a_carriage_return_at_a_chunk_end_waits_for_a_possible_line_feed(module_page):
    first, second = feed(module_page, "data: a\r\n\r", "\n")
    assert first == []
    assert second == [{"event": "message", "data": "a"}]


def test_multiple_data_lines_join_with_newlines_and_comments_are_ignored(module_page):
    (frames,) = feed(module_page, ": keep-alive\ndata: one\ndata:two\nid: 7\n\n")
    assert frames == [{"event": "message", "data": "one\ntwo"}]


def test_a_frame_without_data_is_dropped_and_an_unfinished_frame_waits(module_page):
    first, second = feed(module_page, "event: token\n\ndata: x", "\n\n")
    assert first == []
    assert second == [{"event": "message", "data": "x"}]
