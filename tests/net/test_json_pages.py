"""Deeply nested JSON (and HTML) pages: a bounded outcome, never an internal error.

JSON nested past the parser's recursion limit, or whose indented layout would multiply
its size, is shown as the server sent it; ordinary JSON is laid out with indentation.
"""

from __future__ import annotations

import json

import pytest

from sovereign.executor import OutcomeKind
from sovereign.net import extract_text
from sovereign.net.extract import JSON_LAYOUT_ALLOWANCE

from .support import LoopbackServer, invoke_fetch, respond
from .test_fetch_loopback import make_registry, url

DEPTHS = [1_000, 10_000, 100_000]


def nested(kind: str, depth: int) -> str:
    if kind == "arrays":
        return "[" * depth + "]" * depth
    if kind == "objects":
        return '{"a":' * depth + "1" + "}" * depth
    if kind == "mixed":
        return '[{"k":' * (depth // 2) + '"x"' + "}]" * (depth // 2)
    return "[" * depth  # never closed: not JSON at all


KINDS = ["arrays", "objects", "mixed", "unclosed"]


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("kind", KINDS)
def test_deep_json_is_shown_as_sent(kind: str, depth: int) -> None:
    document = nested(kind, depth)
    assert extract_text(document.encode(), "application/json", None).body == document


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("kind", KINDS)
async def test_web_fetch_answers_a_deep_json_page(server: LoopbackServer, kind: str,
                                                  depth: int) -> None:
    document = nested(kind, depth).encode()
    server.routes["/"] = respond("200 OK", {"Content-Type": "application/json"}, document)
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert document.decode().startswith(outcome.result["text"][:1000])


@pytest.mark.parametrize("depth", DEPTHS)
async def test_web_fetch_answers_a_deep_html_page(server: LoopbackServer, depth: int) -> None:
    document = ("<html><body>" + "<div>" * depth + "<p>deep words here</p>").encode()
    server.routes["/"] = respond("200 OK", {"Content-Type": "text/html"}, document)
    registry, _, _ = make_registry()
    outcome = await invoke_fetch(registry, url(server, "/"))
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert "deep words here" in outcome.result["text"]


def test_a_layout_that_would_multiply_the_size_is_not_made() -> None:
    document = json.dumps([nested("arrays", 150) for _ in range(3000)])
    document = document.replace('"', "")  # a list of 3000 arrays 150 deep
    body = extract_text(document.encode(), "application/json", None).body
    assert len(body) <= len(document) + JSON_LAYOUT_ALLOWANCE


def test_ordinary_json_is_laid_out_and_odd_json_passes_through() -> None:
    assert extract_text(b'{"a":[1,{"b":2}]}', "application/json", None).body == (
        '{\n  "a": [\n    1,\n    {\n      "b": 2\n    }\n  ]\n}')
    huge_number = b"[" + b"9" * 5000 + b"]"  # past Python's int digit limit
    assert extract_text(huge_number, "application/json", None).body == huge_number.decode()
    assert extract_text(b"[NaN, 1e999]", "application/json", None).body == (
        "[\n  NaN,\n  Infinity\n]")
