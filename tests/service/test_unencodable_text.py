"""Half an emoji anywhere never costs an answer, a receipt or an audit outcome: in the
household's message, history, denial reason or password (as a JSON escape or as bytes
that are not UTF-8), and in a search result after an approved call, answered as JSON
and as a stream."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.fakes.searxng import CapturedSearchHandler

from .harness import build_harness

HALF = "\\ud83d"
"""Half an emoji as the JSON escape a browser's JSON.stringify writes."""


def post_raw(harness, body: bytes, **headers: str):
    return harness.client.post(
        "/api/v1/conversation/message",
        content=body,
        headers=harness.headers(**{"Content-Type": "application/json", **headers}),
    )


def valid(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def audit_outcomes(harness) -> list[str]:
    lines = (harness.data_dir / "capabilities" / "audit.jsonl").read_bytes().decode("utf-8")
    return [json.loads(line)["outcome"] for line in lines.splitlines()]


@pytest.mark.parametrize(
    "body",
    [
        f'{{"message": "half {HALF} an emoji"}}'.encode(),
        b'{"message": "low \\ude00 half"}',
        b'{"message": "bytes \xed\xa0\xbd that are no UTF-8"}',
        b'{"message": "a stray \xff byte"}',
        f'{{"message": "hi", "history": [{{"role": "user", "content": "{HALF}"}}]}}'.encode(),
        f'{{"message": "key", "history": [{{"role": "assistant", "content": "x{HALF}"}}]}}'
        .encode(),
    ],
    ids=["high-half", "low-half", "surrogate-bytes", "stray-byte", "history", "history-answer"],
)
async def test_a_message_with_half_an_emoji_is_answered(signed_in, body):
    response = await post_raw(signed_in, body)
    assert response.status_code == 200, response.text
    seen = signed_in.backend.requests[-1].messages
    assert all(valid(m["content"]) for m in seen if isinstance(m.get("content"), str))
    assert any("\ufffd" in m["content"] for m in seen if isinstance(m.get("content"), str))


async def test_a_streamed_answer_to_half_an_emoji_is_one_whole_stream(signed_in):
    response = await post_raw(
        signed_in, f'{{"message": "half {HALF}"}}'.encode(), Accept="text/event-stream"
    )
    assert response.status_code == 200
    assert "event: result" in response.text and "event: error" not in response.text


@dataclass
class BrokenTextSearch(CapturedSearchHandler):
    """A SearXNG whose titles and snippets hold half an emoji, as JSON escapes."""

    def handler(self, request: Any) -> Any:
        query = request.url.params.get("q", "")
        self.queries.append(query)
        body = json.dumps({
            "query": query, "number_of_results": 1, "unresponsive_engines": [],
            "results": [{"url": "https://pi.example/fw", "title": "Firmware @ notes",
                         "content": "Bootloader @ update, and @ more", "engine": "x"}],
        }).replace("@", HALF)  # fmt: skip
        return httpx.Response(200, content=body.encode(),
                              headers={"content-type": "application/json"})  # fmt: skip


@pytest.fixture
async def broken_search(tmp_path, monkeypatch):
    from . import harness as harness_module

    monkeypatch.setattr(harness_module, "FakeSearxng", BrokenTextSearch)
    harness = build_harness(tmp_path)
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        yield harness


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_an_approved_search_whose_results_hold_half_an_emoji_keeps_its_receipt(
    broken_search, stream
):
    asked = await broken_search.message({"message": "pi firmware"})
    token = asked.json()["pending_confirmation"]["token"]
    headers = {"Accept": "text/event-stream"} if stream else {}
    approved = await broken_search.post(
        "/api/v1/conversation/message", {"confirmation": {"token": token, "approve": True}},
        **headers,
    )
    assert approved.status_code == 200
    if stream:
        assert "event: result" in approved.text and "event: error" not in approved.text
        result = json.loads(approved.text.split("event: result\ndata: ")[1].split("\n")[0])
    else:
        result = approved.json()
    assert result["receipts"] == [
        {
            "capability": "web.search",
            "locality": "external",
            "outcome": "executed",
            "name": "Web search",
        }
    ]
    (citation,) = result["citations"]
    assert citation["title"] == "Firmware \ufffd notes" and "\ufffd" in citation["snippet"]
    assert audit_outcomes(broken_search)[-2:] == ["executing", "executed"]
    assert broken_search.searxng.queries == ["pi firmware"]


async def test_a_denial_reason_with_half_an_emoji_is_taken(signed_in):
    await signed_in.set_policy(True)
    token = (await signed_in.message({"message": "pi firmware"})).json()[
        "pending_confirmation"
    ]["token"]
    body = f'{{"confirmation": {{"token": "{token}", "approve": false, "reason": "no {HALF}"}}}}'
    response = await post_raw(signed_in, body.encode())
    assert response.status_code == 200, response.text
    assert response.json()["receipts"][0]["outcome"] == "denied"


async def test_a_password_with_half_an_emoji_signs_in_again(harness):
    token = harness.app.state.services.owner.setup_token()
    password = f"correct horse {HALF} battery"
    setup = f'{{"setup_token": "{token}", "password": "{password}"}}'.encode()
    response = await harness.client.post(
        "/api/v1/auth/setup", content=setup, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200, response.text
    again = await harness.another_client()
    async with again:
        login = await again.post(
            "/api/v1/auth/login", content=f'{{"password": "{password}"}}'.encode(),
            headers={"Content-Type": "application/json"},
        )
    assert login.status_code == 200, login.text


async def test_a_body_that_is_not_json_is_still_a_clear_400(signed_in):
    response = await post_raw(signed_in, b'{"message": "\xff')
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "MALFORMED_JSON"
