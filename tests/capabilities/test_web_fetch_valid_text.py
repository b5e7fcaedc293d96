"""An approved web.fetch of a page holding half an emoji is read, not reported failed: the
result is valid text, fitted to its byte cap, and its audit record has its outcome."""

from __future__ import annotations

import json

import httpx
import pytest

from sovereign.capabilities import web_fetch
from sovereign.executor import AuditLog, Capability, Effect, Executor, Locality, Registry, TurnState

PAGES = {
    "json-escape": ("application/json", b'{"note": "half \\ud83d an emoji", "n": 1}'),
    "utf7-text": ("text/plain; charset=utf-7", b"half +2D0- an emoji in a plain page"),
    "html-reference": ("text/html; charset=utf-8",
                       b"<html><body><p>half &#xD83D; an emoji</p></body></html>"),
}  # fmt: skip


def _registry(content_type: str, body: bytes) -> Registry:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Type": content_type}, content=body)

    registry = Registry()
    registry.add(
        Capability(
            name="web.fetch",
            version=1,
            description="Read one web page.",
            arguments_schema=web_fetch.ARGUMENTS_SCHEMA,
            result_schema=web_fetch.RESULT_SCHEMA,
            effect=Effect.READ_ONLY,
            locality=Locality.EXTERNAL,
            execute=web_fetch.WebFetch(lambda: httpx.MockTransport(handler)),
            timeout_seconds=web_fetch.TIMEOUT_SECONDS,
            max_result_bytes=web_fetch.MAX_RESULT_BYTES,
        )
    )
    return registry


@pytest.mark.parametrize("page", list(PAGES))
async def test_an_approved_fetch_of_a_page_with_half_an_emoji_is_read(tmp_path, page):
    executor = Executor(_registry(*PAGES[page]), audit=AuditLog(tmp_path))
    arguments = {"url": "https://news.example/pi"}
    token = executor.confirmations.issue("web.fetch", 1, arguments)
    outcome = await executor.invoke("web.fetch", 1, arguments, policy={},
                                    turn_state=TurnState(), confirmation_token=token)  # fmt: skip
    assert outcome.ok, outcome.message
    assert "\ufffd" in outcome.result["text"]
    json.dumps(outcome.result, ensure_ascii=False).encode("utf-8")
    lines = (tmp_path / "capabilities" / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["outcome"] for line in lines] == ["executing", "executed"]
