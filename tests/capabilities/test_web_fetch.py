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


BASE = {"url": "u", "final_url": "u", "content_type": "text/plain", "truncated": False,
        "redirected": False, "retrieved_at": "2026-01-01T00:00:00Z"}


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=200, max_value=4000))
def test_fit_text_keeps_the_longest_prefix_that_fits(text: str, cap: int) -> None:
    result = web_fetch.fit_text(BASE, text, cap)
    size = len(json.dumps(result, ensure_ascii=False).encode())
    assert size <= cap
    assert text.startswith(result["text"])
    assert result["truncated"] is (result["text"] != text)
    if result["text"] != text:
        keep = len(result["text"]) + 1
        longer = {**result, "text": text[:keep], "truncated": keep < len(text)}
        assert len(json.dumps(longer, ensure_ascii=False).encode()) > cap


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
