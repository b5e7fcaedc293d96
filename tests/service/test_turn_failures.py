"""A turn that fails after its search ran still tells the household the search left.

Issue: the household approves a search, it runs (and is audited), then the model
server answers 500 twice. The answer must still carry that search's receipt and
citations beside the error, in the plain JSON response and in the stream's
``error`` event alike (DESIGN §4).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sovereign.conversation.backends.base import ContextTooLong, ModelError, ModelUnavailable
from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ServerFeatures
from sovereign.conversation.backends.scripted import propose
from tests.conversation.replay_server import Canned, ReplayServer, captured, start
from tests.spoken import deciding

from .harness import build_harness
from .test_streaming import answer_of, stream

QUESTION = "pi 5 firmware news"
EXECUTED = {
    "capability": "web.search",
    "locality": "external",
    "outcome": "executed",
    "name": "Web search",
}
SERVER_500 = Canned(500, {"error": {"code": 500, "message": "Internal Server Error"}})


def failing_after_the_search(failure: Any):
    """A model that proposes a search for the user's words, then fails with ``failure``."""

    def model(messages: list[dict[str, Any]], tools: Any) -> Any:
        if deciding(messages):
            return propose("web_search", {"query": messages[-1]["content"]})
        return failure

    return model


async def approved_search(harness, *, streamed: bool) -> tuple[int, dict[str, Any]]:
    """Ask, approve the card, and return (status, body or error event's data)."""
    await harness.sign_in()
    await harness.set_policy(True)
    halted = (await harness.message({"message": QUESTION})).json()
    answer = {"confirmation": {"token": halted["pending_confirmation"]["token"], "approve": True}}
    if not streamed:
        response = await harness.message(answer)
        return response.status_code, response.json()
    response, events = await stream(harness, answer)
    assert [kind for kind, _ in events if kind != "token"] == ["error"], events
    return response.status_code, events[-1][1]


def assert_search_reported(harness, body: dict[str, Any], code: str) -> None:
    assert body["error"]["code"] == code and body["error"]["message"]
    assert body["receipts"] == [EXECUTED]
    assert harness.searxng.queries == [QUESTION]
    assert body["citations"], "the search results the household's query produced"
    assert {c["capability"] for c in body["citations"]} == {"web.search"}
    assert all(c["url"].startswith("http") and c["retrieved_at"] for c in body["citations"])
    audit = (harness.data_dir / "capabilities" / "audit.jsonl").read_text().splitlines()
    assert any(json.loads(line)["outcome"] == "executed" for line in audit)


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    ("failure", "status", "code"),
    [
        pytest.param(ModelError("HTTP 500"), 503, "MODEL_UNAVAILABLE", id="500-twice"),
        pytest.param(ModelUnavailable("connection refused"), 503, "MODEL_UNAVAILABLE", id="gone"),
        pytest.param(ContextTooLong("exceed context window"), 413, "CONVERSATION_TOO_LONG",
                     id="overflow"),
        pytest.param(OSError(28, "No space left on device"), 503, "STORAGE_UNAVAILABLE",
                     id="disk-full"),
        pytest.param(RuntimeError("a bug"), 500, "INTERNAL_ERROR", id="bug"),
    ],
)
async def test_an_error_after_an_approved_search_carries_its_receipt_and_citations(
    tmp_path, streamed, failure, status, code
):
    harness = build_harness(tmp_path, failing_after_the_search(failure))
    async with harness.client:
        got_status, body = await approved_search(harness, streamed=streamed)
    assert got_status == (200 if streamed else status)
    assert_search_reported(harness, body, code)


@pytest.fixture(scope="module")
def model_server():
    state = ReplayServer()
    httpd = start(state)
    yield state
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
async def test_a_model_server_answering_500_after_the_search_still_reports_it(
    tmp_path, model_server, streamed
):
    """The replay of the issue: a real OpenAI-compatible client against a stub server."""
    model_server.replies.clear()
    model_server.requests.clear()
    model_server.queue(
        captured("llama-server_qwen2.5-coder-1.5b_search.json"), SERVER_500, SERVER_500
    )
    features = ServerFeatures(response_format=None, streams=True, tool_calls="text")
    backend = OpenAIBackend(model_server.base_url, "local", mode="native", features=features)
    harness = build_harness(tmp_path, backend=backend)
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        halted = (await harness.message({"message": QUESTION})).json()
        pending = halted["pending_confirmation"]
        answer = {"confirmation": {"token": pending["token"], "approve": True}}
        status, kind, body = await answer_of(harness, answer, streamed=streamed)
    assert kind == "error" and (streamed or status == 502)
    assert body["error"]["code"] == "MODEL_ERROR"  # a refusal by the server: never retried
    assert body["receipts"] == [EXECUTED]
    assert harness.searxng.queries == [pending["arguments"]["query"]]
    assert body["citations"] and body["citations"][0]["capability"] == "web.search"
    # The proposal; the follow-up, refused with tool_choice "required" (a server may not
    # take it); once more with "auto", refused too: then the error, never another retry.
    sent = [request.get("tool_choice") for request in model_server.requests]
    assert sent == ["auto", "required", "auto"]



@pytest.mark.parametrize(
    ("failure", "sentence"),
    [
        (ModelUnavailable("connection refused"),
         "Das Sprachmodell ist nicht erreichbar: connection refused"),
        (ContextTooLong("exceed context window"),
         "Das Gespräch ist zu lang, als dass das Modell es lesen könnte; beginnen Sie ein neues "
         "Gespräch oder senden Sie weniger Verlauf."),
        (ModelError("HTTP 500"), "Das Sprachmodell hat unbrauchbar geantwortet: HTTP 500"),
        (RuntimeError("a bug"), "Die Antwort ist unerwartet fehlgeschlagen."),
    ],
)
def test_a_failed_turn_is_said_in_its_language(failure, sentence):
    from sovereign.conversation import TurnFailed
    from sovereign.service.routes.conversation import turn_error

    assert turn_error(TurnFailed(failure, [], [], "de")).message == sentence
