"""``Accept: text/event-stream``: token events, then one result (or error) event."""

from __future__ import annotations

import json
from typing import Any

from sovereign.conversation.backends.base import ModelUnavailable

from .harness import build_harness

DEFAULT_SEARCH = {"language": "auto", "safesearch": 1}  # the household's defaults, on every card

MESSAGE = "/api/v1/conversation/message"


def parse_events(text: str) -> list[tuple[str, object]]:
    """``[(event, data)]`` from an SSE body (one ``data:`` line per event)."""
    events = []
    for frame in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in frame.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


async def stream_all(harness, body) -> tuple[object, list[tuple[str, object]]]:
    """Every event of the streamed answer, the ``turn`` and ``progress`` ones too."""
    headers = harness.headers(Accept="text/event-stream")
    response = await harness.client.post(MESSAGE, json=body, headers=headers)
    return response, parse_events(response.text)


async def stream(harness, body) -> tuple[object, list[tuple[str, object]]]:
    """The answer's events: tokens and the result or error (``turn`` and ``progress``
    events are checked in their own tests)."""
    response, events = await stream_all(harness, body)
    return response, [(kind, data) for kind, data in events if kind not in ("turn", "progress")]


async def answer_of(harness, body, *, streamed: bool) -> tuple[int, str, Any]:
    """``(status, kind, data)`` of the answer to ``body``: the plain response's status and
    JSON (kind ``result`` below 400, else ``error``), or the stream's last event."""
    if streamed:
        response, events = await stream(harness, body)
        kind, data = events[-1]
        return response.status_code, kind, data
    response = await harness.message(body)
    kind = "result" if response.status_code < 400 else "error"
    return response.status_code, kind, response.json()


async def test_streamed_answer_is_tokens_then_the_same_object_as_the_plain_response(tmp_path):
    answer = "The device is at 48 degrees and all is well."
    # "" while tools are offered: the loop then asks for the prose alone, streamed word by word
    harness = build_harness(tmp_path, lambda messages, tools: "" if tools else answer)
    async with harness.client:
        await harness.sign_in()
        plain = (await harness.message({"message": "how hot?"})).json()
        response, events = await stream(harness, {"message": "how hot?"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "result" and kinds.count("result") == 1
    assert set(kinds[:-1]) == {"token"} and len(kinds) > 2
    assert "".join(data["text"] for kind, data in events if kind == "token") == answer
    assert events[-1][1] == plain


async def test_stream_opens_with_the_turn_id_and_reports_each_stage_before_its_words(tmp_path):
    harness = build_harness(tmp_path, lambda messages, tools: "" if tools else "All is well.")
    async with harness.client:
        await harness.sign_in()
        _, events = await stream_all(harness, {"message": "how hot?"})
    assert events[0][0] == "turn" and len(events[0][1]["id"]) >= 16
    stages = [data["stage"] for kind, data in events if kind == "progress"]
    assert [s for i, s in enumerate(stages) if i == 0 or stages[i - 1] != s] == [
        "choosing",
        "writing",
    ]
    kinds = [kind for kind, _ in events]
    assert kinds.index("progress") < kinds.index("token")
    last_progress = max(i for i, kind in enumerate(kinds) if kind == "progress")
    assert last_progress < kinds.index("token")  # "writing" comes before the first word


async def test_streamed_pending_confirmation_ends_with_the_pending_object(signed_in):
    await signed_in.set_policy(True)
    _, events = await stream(signed_in, {"message": "search this"})
    kind, result = events[-1]
    assert kind == "result"
    assert result["pending_confirmation"]["arguments"] == {"query": "search this", **DEFAULT_SEARCH}
    _, resumed = await stream(
        signed_in,
        {"confirmation": {"token": result["pending_confirmation"]["token"], "approve": True}},
    )
    assert resumed[-1][0] == "result"
    assert resumed[-1][1]["receipts"][0]["outcome"] == "executed"
    streamed = "".join(d["text"] for k, d in resumed if k == "token")
    assert streamed.startswith("> ") and streamed == resumed[-1][1]["text"]


async def test_invalid_confirmation_in_a_stream_is_an_error_event(signed_in):
    _, events = await stream(signed_in, {"confirmation": {"token": "nope", "approve": True}})
    assert events == [
        (
            "error",
            {
                "error": {
                    "code": "INVALID_CONFIRMATION",
                    "message": events[0][1]["error"]["message"],
                }
            },
        )
    ]


async def test_unreachable_model_in_a_stream_is_an_error_event(tmp_path):
    harness = build_harness(tmp_path, [ModelUnavailable("llama-server is down")])
    async with harness.client:
        await harness.sign_in()
        _, events = await stream(harness, {"message": "hello"})
    assert [kind for kind, _ in events] == ["error"]
    assert events[0][1]["error"]["code"] == "MODEL_UNAVAILABLE"


async def test_bad_body_with_a_stream_accept_header_is_still_a_plain_4xx(signed_in):
    headers = signed_in.headers(Accept="text/event-stream")
    response = await signed_in.client.post(MESSAGE, json={"message": ""}, headers=headers)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "INVALID_REQUEST"
