"""web.fetch v1: its contract, stage-2 checks, and result shaping over a handler transport."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sovereign.capabilities import web_fetch
from sovereign.executor import (
    CapabilityError,
    Confirmation,
    ConfirmationStore,
    ErrorCode,
    Executor,
    OutcomeKind,
    Registry,
    Stage,
    TurnState,
)


def test_contract() -> None:
    registry = Registry()
    web_fetch.register(registry)
    capability = registry.get("web.fetch", 1)
    assert capability is not None
    assert capability.confirmation is Confirmation.REQUIRED
    assert capability.policy_key == "external_enabled"
    assert capability.timeout_seconds == 15
    assert capability.max_result_bytes == 65536
    assert str(capability.effect) == "read_only" and str(capability.locality) == "external"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "gopher://x/", "ftp://example.com/",
                                 "//example.com/", "javascript:alert(1)", "http://exa mple.com/"])
async def test_non_http_or_malformed_urls_stop_at_validation(url: str) -> None:
    registry = Registry()
    web_fetch.register(registry)
    outcome = await Executor(registry).invoke(
        "web.fetch", 1, {"url": url}, policy={"external_enabled": True}, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert outcome.stage is Stage.VALIDATE


async def test_switched_off_policy_refuses_before_any_confirmation() -> None:
    registry = Registry()
    web_fetch.register(registry)
    store = ConfirmationStore()
    outcome = await Executor(registry, confirmations=store).invoke(
        "web.fetch", 1, {"url": "https://example.com/"}, policy={}, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.POLICY_DISABLED
    assert len(store) == 0


def _fetcher(handler: Any) -> web_fetch.WebFetch:
    return web_fetch.WebFetch(lambda: httpx.MockTransport(handler))


async def test_result_shape_for_a_page() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert "cookie" not in request.headers and "referer" not in request.headers
        return httpx.Response(200, headers={"Content-Type": "text/html; charset=utf-8"},
                              content=b"<html><body><p>Hello page</p></body></html>")

    result = await _fetcher(handler)({"url": "HTTPS://Example.com/a#frag"})
    assert result["url"] == "HTTPS://Example.com/a#frag"
    assert result["final_url"] == "https://example.com/a"
    assert result["text"] == "Hello page"
    assert result["title"] is None
    assert (result["start_index"], result["next_start_index"], result["omitted_characters"]) == (
        0, None, 0)
    assert result["content_type"] == "text/html"
    assert (result["truncated"], result["redirected"]) == (False, False)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", result["retrieved_at"])


@pytest.mark.parametrize(
    ("location", "final_url"),
    [
        ("file:///etc/passwd", "file:///etc/passwd"),  # not re-normalised to file:/etc/passwd
        ("HTTP://EXAMPLE.com:80/%7e/./x", "HTTP://EXAMPLE.com:80/%7e/./x"),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("http://[::1]:8081/", "http://[::1]:8081/"),
        ("gopher://x:70/_GET", "gopher://x:70/_GET"),
        ("/next?x=1", "https://example.com/next?x=1"),
        ("../up", "https://example.com/up"),
        ("sibling", "https://example.com/a/sibling"),
        ("?q=2", "https://example.com/a/b?q=2"),
        ("//other.example/p", "https://other.example/p"),
        ("  /padded  ", "https://example.com/padded"),
        ("   ", None),
    ],
)
async def test_final_url_is_the_location_as_sent_resolved_only_when_relative(
    location: str, final_url: str | None
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(301, headers={"Location": location})

    result = await _fetcher(handler)({"url": "https://example.com/a/b?x=1"})
    assert result["redirected"] is True and result["text"] == ""
    assert result["final_url"] == final_url


async def test_redirect_without_location_reports_no_target() -> None:
    result = await _fetcher(lambda r: httpx.Response(302))({"url": "https://example.com/x"})
    assert result["redirected"] is True and result["final_url"] is None and result["text"] == ""


async def test_a_network_failure_is_fetch_failed_with_a_reason() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("boom")

    with pytest.raises(CapabilityError) as caught:
        await _fetcher(handler)({"url": "https://example.com/"})
    assert caught.value.code is ErrorCode.FETCH_FAILED
    assert "could not connect" in caught.value.message


async def test_executed_result_passes_the_shape_stage() -> None:
    registry = Registry()
    web_fetch.register(registry)
    capability = registry.get("web.fetch", 1)
    big = ("word " * 40000).encode()

    async def execute(arguments: dict[str, Any]) -> dict[str, Any]:
        handler = lambda r: httpx.Response(  # noqa: E731
            200, headers={"Content-Type": "text/plain"}, content=big)
        return await _fetcher(handler)(arguments)

    patched = Registry()
    patched.add(type(capability)(**{**capability.__dict__, "execute": execute}))  # type: ignore[arg-type]
    store = ConfirmationStore()
    arguments = {"url": "https://example.com/"}
    outcome = await Executor(patched, confirmations=store).invoke(
        "web.fetch", 1, arguments, policy={"external_enabled": True}, turn_state=TurnState(),
        confirmation_token=store.issue("web.fetch", 1, arguments),
    )
    assert outcome.kind is OutcomeKind.EXECUTED, outcome
    assert outcome.result["truncated"] is True


BASE = {"url": "u", "final_url": "u", "content_type": "text/plain", "title": None,
        "truncated": False, "redirected": False, "retrieved_at": "2026-01-01T00:00:00Z"}


@st.composite
def page_texts(draw: st.DrawFn) -> web_fetch.PageText:
    """A body of words and line breaks with ``[n]`` markers at random places."""
    pieces = draw(st.lists(st.one_of(st.text(min_size=1, max_size=40), st.just("\n"),
                                     st.integers(1, 5)), max_size=80))
    body, markers = "", []
    for piece in pieces:
        if isinstance(piece, int):
            marker = f"[{piece}]"
            markers.append((len(body), len(body) + len(marker), piece))
            piece = marker
        body += piece
    links = tuple(f"https://l{n}.example/" + "p" * n for n in range(1, 6))
    return web_fetch.PageText(body, links, tuple(markers))


@given(page_texts(), st.integers(min_value=0, max_value=50), st.integers(400, 3000))
def test_fit_part_keeps_the_longest_part_that_fits(
    page: web_fetch.PageText, start: int, cap: int
) -> None:
    result = web_fetch.fit_part(BASE, page, start, cap)
    assert len(json.dumps(result, ensure_ascii=False).encode()) <= cap
    first = min(start, len(page.body))
    end = result["next_start_index"] if result["next_start_index"] is not None else len(page.body)
    assert result["text"] == page.part(first, end)
    assert result["start_index"] == first
    assert result["omitted_characters"] == len(page.body) - (end - first)
    assert result["truncated"] is (end < len(page.body))
    assert not any(s < end < e for s, e, _ in page.markers)  # never inside a marker
    if end < len(page.body):
        assert end > first or len(json.dumps(web_fetch.fit_part(BASE, page, first, 10**9))) > cap


def test_reading_on_from_next_start_index_covers_the_whole_text_once() -> None:
    body = "".join(f"Paragraph {i} says [{i % 3 + 1}] things.\n\n" for i in range(400))
    markers = []
    for i, line in enumerate(body.split("\n\n")[:-1]):
        offset = sum(len(part) + 2 for part in body.split("\n\n")[:i])
        at = offset + line.index("[")
        markers.append((at, at + 3, i % 3 + 1))
    page = web_fetch.PageText(body, ("https://a.example/", "https://b.example/",
                                     "https://c.example/"), tuple(markers))
    seen, start, parts = "", 0, 0
    while start is not None:
        result = web_fetch.fit_part(BASE, page, start, 2000)
        part_body = result["text"].split("\n\nLinks:\n")[0]
        assert len(json.dumps(result, ensure_ascii=False).encode()) <= 2000
        assert part_body.endswith("\n") or result["next_start_index"] is None  # cut at a line
        seen += part_body
        start, parts = result["next_start_index"], parts + 1
    assert seen == body and parts > 5


def test_a_start_past_the_end_gives_an_empty_last_part() -> None:
    result = web_fetch.fit_part(BASE, web_fetch.PageText("short"), 99, 65536)
    assert (result["text"], result["start_index"], result["next_start_index"]) == ("", 5, None)
    assert result["omitted_characters"] == 5 and result["truncated"] is False


def _page(body: bytes, content_type: str = "text/html; charset=utf-8") -> Any:
    return lambda request: httpx.Response(200, headers={"Content-Type": content_type},
                                          content=body)


async def test_links_come_back_as_references_and_hostile_schemes_do_not() -> None:
    html = (b"<html><head><title>A page</title></head><body><article><h1>Head</h1>"
            b"<p>Read <a href='/next'>the next page</a> or <a href='javascript:alert(1)'>"
            b"this</a> or <a href='data:text/html,x'>that</a>.</p>"
            + b"<p>Long enough paragraph of article text to be the main content.</p>" * 5
            + b"<ol><li>first</li><li>second</li></ol></article></body></html>")
    result = await _fetcher(_page(html))({"url": "https://example.com/dir/a"})
    assert result["title"] == "A page"
    assert "Read the next page or this or that.[1]" in result["text"]
    assert "1. first\n2. second" in result["text"]
    assert result["text"].endswith("Links:\n[1] https://example.com/next")
    assert "javascript" not in result["text"] and "data:" not in result["text"]
    assert (result["start_index"], result["next_start_index"]) == (0, None)
    assert result["omitted_characters"] == 0


async def test_a_long_page_is_read_in_parts() -> None:
    html = b"<html><body><article>" + b"".join(
        b"<p>Paragraph %d of a long article with words enough to count.</p>" % i
        for i in range(3000)) + b"</article></body></html>"
    fetcher = web_fetch.WebFetch(lambda: httpx.MockTransport(_page(html)))
    first = await fetcher({"url": "https://example.com/long"})
    assert first["truncated"] is True and first["next_start_index"] > 0
    assert first["omitted_characters"] > 0
    second = await fetcher({"url": "https://example.com/long",
                            "start_index": first["next_start_index"]})
    assert second["start_index"] == first["next_start_index"]
    assert second["text"].lstrip().startswith("Paragraph")
    assert "Paragraph 0 " not in second["text"]
    last_seen = int(first["text"].rstrip().rsplit("Paragraph ", 1)[1].split()[0])
    assert f"Paragraph {last_seen + 1} " in second["text"]


@pytest.mark.parametrize("start_index", [-1, 1.5, "10", None, True, 2**40])
async def test_a_bad_start_index_stops_at_validation(start_index: Any) -> None:
    registry = Registry()
    web_fetch.register(registry)
    outcome = await Executor(registry).invoke(
        "web.fetch", 1, {"url": "https://example.com/", "start_index": start_index},
        policy={"external_enabled": True}, turn_state=TurnState(),
    )
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS


def test_the_description_tells_the_model_how_to_read_on() -> None:
    registry = Registry()
    web_fetch.register(registry)
    capability = registry.get("web.fetch", 1)
    assert capability is not None
    assert "next_start_index" in capability.description
    assert "start_index" in capability.arguments_schema["properties"]


async def test_a_continuation_is_a_new_proposal_with_its_own_approval() -> None:
    registry = Registry()
    web_fetch.register(registry)
    store = ConfirmationStore()
    executor = Executor(registry, confirmations=store)
    first = {"url": "https://example.com/long"}
    token = store.issue("web.fetch", 1, first)
    later = {**first, "start_index": 5000}
    outcome = await executor.invoke("web.fetch", 1, later, policy={"external_enabled": True},
                                    turn_state=TurnState(), confirmation_token=token)
    assert outcome.error_code is ErrorCode.INVALID_CONFIRMATION
    pending = await executor.invoke("web.fetch", 1, later, policy={"external_enabled": True},
                                    turn_state=TurnState())
    assert pending.error_code is ErrorCode.CONFIRMATION_REQUIRED


async def test_a_refused_destination_audits_its_verdict_but_not_the_url(tmp_path):
    import json as _json

    from sovereign.capabilities import web_fetch
    from sovereign.executor import AuditLog, Executor, Registry, TurnState

    registry = Registry()
    web_fetch.register(registry)
    executor = Executor(registry, audit=AuditLog(tmp_path))
    url = "http://127.0.0.1:8080/admin/canary-path"
    token = executor.confirmations.issue("web.fetch", 1, {"url": url})
    outcome = await executor.invoke(
        "web.fetch", 1, {"url": url}, policy={"external_enabled": True},
        turn_state=TurnState(), confirmation_token=token,
    )
    assert outcome.error_code == "FETCH_TARGET_REJECTED"
    raw = (tmp_path / "capabilities" / "audit.jsonl").read_text()
    assert _json.loads(raw)["reason"] == "deny: loopback"
    assert "canary-path" not in raw
    assert "127.0.0.1" not in raw


@pytest.mark.parametrize(
    "markup",
    ["<h1>Opening hours</h1><ul><li>Monday closed</li><li>Tuesday 9 to 5</li></ul>",
     "<article><h1>Opening hours</h1><p>We open most days.</p><ol><li>Monday closed</li>"
     "<li>Tuesday 9 to 5</li></ol></article>",
     "<div><h1>Opening hours</h1><table><tr><td>Monday closed</td></tr>"
     "<tr><td>Tuesday 9 to 5</td></tr></table></div>"],
    ids=["list", "article-ol", "table"],
)
async def test_the_returned_text_keeps_the_h1_and_every_item_as_a_line(markup: str) -> None:
    html = f"<html><head><title>Opening hours</title></head><body>{markup}</body></html>"
    result = await _fetcher(_page(html.encode()))({"url": "https://example.com/hours"})
    lines = [re.sub(r"^(- |\d+\. |\| )|( \|)$", "", line) for line in result["text"].splitlines()]
    assert "# Opening hours" in result["text"].splitlines()
    assert "Monday closed" in lines and "Tuesday 9 to 5" in lines
