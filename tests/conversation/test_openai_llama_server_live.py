"""The service with ``--backend openai`` against llama-server, the specification's model server.

One ``llama-server --jinja`` (built from source by ``scripts/setup-llama-server``)
serves the verified default model on 127.0.0.1 for the whole module, as the
appliance's unit runs it. The real service (``create_app`` under uvicorn, every
capability family, SearXNG replaced by the replaying fake) is driven over HTTP
as the Console drives it, in each tool mode the backend can choose against it:

- ``auto``: the probe sees ``json_schema`` constrain the output and the model
  write its calls as text (llama-server's parser finds no call in them), so it
  picks **schema** decisions;
- ``--tool-mode native``: ``tools`` in every round, the calls read from the
  text the model writes, earlier calls sent back as that text.

In each: a household question answered with ``system.health``, a search card
carrying exactly the model's arguments then denied, an approved search against
the replaying SearXNG, an answer streamed token by token, a conversation longer
than the context (413, plain and streamed), and last the server killed in the
middle of a streamed answer. Turns alternate between JSON and server-sent events.
Generation is greedy and short (CI time, not behaviour). Deselect with
``-m "not slow"``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import choose_plan
from sovereign.conversation.voice.sentences import OWN_SENTENCES
from sovereign.doctor import DoctorConfig, check_model_server, check_tool_mode, run_checks
from sovereign.service.settings import Settings
from tests.e2e.household import Household, Service, serve
from tests.fakes.searxng import FakeSearxng

from .live_llama_server import LlamaServer, llama_server
from .live_recording import RecordingTransport

pytestmark = pytest.mark.slow

SEARCH = "Search the web for the latest Raspberry Pi 5 firmware."
STORY = "Tell me a long story about a cat who climbs trees."
TIMEOUT_SECONDS = 900.0
"""Per read: generous, since a busy two-core machine may take minutes for a first decision."""
EXECUTED_HEALTH = {
    "capability": "system.health",
    "locality": "local",
    "outcome": "executed",
    "name": "This device's health",
}
CUT_OFF = OWN_SENTENCES["cut_off"]
"""What a reply that broke off ends with (the stream-reading rule: no terminal event)."""
TOO_LONG = (
    "The conversation is too long for the model to read; start a new conversation "
    "or send less history."
)
UNUSED = "http://127.0.0.1:9"
"""SearXNG's address where no search can be proposed."""
LONG_HISTORY = [{"role": "user", "content": "word " * 6000}]
"""About 6,000 tokens: more than the server's 4,096-token context."""

MODES = {
    "auto": ("schema", "json_schema", "text"),
    "native": ("native", "json_schema", "text"),
}
"""``--tool-mode`` → the plan (mode, response_format, history) it must lead to."""


@dataclass
class Live:
    tool_mode: str
    server: LlamaServer
    service: Service
    household: Household
    backend: OpenAIBackend
    wire: RecordingTransport
    searxng: FakeSearxng


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[LlamaServer]:
    with llama_server(tmp_path_factory.mktemp("llama-server")) as running:
        yield running


@pytest.fixture(scope="module", params=list(MODES), ids=[f"tool-mode-{m}" for m in MODES])
def live(request, server, tmp_path_factory) -> Iterator[Live]:
    tool_mode = request.param
    data_dir = tmp_path_factory.mktemp(tool_mode)
    wire = RecordingTransport()
    with (
        FakeSearxng() as searxng,
        running_service(data_dir, server.base_url, tool_mode, wire, searxng.base_url) as running,
    ):
        service, backend, household = running
        yield Live(tool_mode, server, service, household, backend, wire, searxng)


@contextmanager
def running_service(
    data_dir: Path, base_url: str, tool_mode: str, wire: RecordingTransport, searxng_url: str
) -> Iterator[tuple[Service, OpenAIBackend, Household]]:
    """The service with the openai backend as ``make_backend`` builds it, with short greedy
    answers and the recording transport; yields it, the backend and a signed-in household."""
    settings = Settings(
        data_dir=data_dir,
        backend="openai",
        openai_base_url=base_url,
        tool_mode=tool_mode,
        searxng_url=searxng_url,
    )
    backend = OpenAIBackend(
        base_url,
        mode=tool_mode,
        max_tokens=96,
        temperature=0.0,
        timeout_seconds=TIMEOUT_SECONDS,
        transport=wire,
    )
    with serve(settings, backend) as service:
        household = Household(service)
        household.client.timeout = httpx.Timeout(TIMEOUT_SECONDS)
        household.sign_in()
        try:
            yield service, backend, household
        finally:
            household.close()


def events_of(household: Household, body: dict[str, Any]) -> list[tuple[float, str, dict]]:
    """POST ``body`` with ``Accept: text/event-stream``; each event with its arrival time."""
    events: list[tuple[float, str, dict]] = []
    headers = {"X-CSRF-Token": household.csrf or "", "Accept": "text/event-stream"}
    with household.client.stream(
        "POST", "/api/v1/conversation/message", json=body, headers=headers
    ) as response:
        assert response.status_code == 200
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                events.append((time.monotonic(), kind, json.loads(line[5:])))
    return events


BEFORE_THE_END = {"turn", "progress", "token"}
"""The events a stream sends before its one ``result`` or ``error``."""


def final(events: list[tuple[float, str, dict]]) -> tuple[str, dict]:
    """The closing event (``result`` or ``error``); every event before it is the turn's
    id, a stage or a token."""
    *before, (_, kind, data) = events
    assert {k for _, k, _ in before} <= BEFORE_THE_END, events
    return kind, data


def model_texts(wire: RecordingTransport) -> list[str]:
    """What the model wrote in each reply, in order (a stream's content deltas joined)."""
    texts = []
    for exchange in wire.exchanges():
        if "events" in exchange:
            deltas = [e["choices"][0]["delta"] for e in exchange["events"] if isinstance(e, dict)]
            texts.append("".join(d.get("content") or "" for d in deltas))
        elif exchange["status"] == 200:
            texts.append(exchange["response"]["choices"][0]["message"].get("content") or "")
    return texts


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object written in ``text`` (each once) and, recursively, the objects
    inside it."""
    decoder = json.JSONDecoder()
    resume = 0
    for start, char in enumerate(text):
        if char != "{" or start < resume:
            continue
        try:
            found, resume = decoder.raw_decode(text, start)
        except ValueError:
            continue
        stack = [found]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                yield item
                stack.extend(item.values())


def test_a_request_llama_server_refuses_is_502_in_our_words(server, tmp_path):
    # A base URL with the wrong API path: llama-server answers 404 "File Not Found".
    wrong = server.root + "/v2"
    with running_service(tmp_path, wrong, "auto", RecordingTransport(), UNUSED) as running:
        household = running[2]
        reply = household.client.post(
            "/api/v1/conversation/message",
            json={"message": "What is the capital of France?"},
            headers={"X-CSRF-Token": household.csrf},
        )
    assert reply.status_code == 502
    body = reply.json()
    assert body["error"]["code"] == "MODEL_ERROR"
    assert body["error"]["message"] == (
        "The language model answered unusably: the model server refused the request "
        "(HTTP 404); the service log has its reply"
    )
    assert body["receipts"] == [] and body["citations"] == []


async def test_doctor_names_the_server_its_build_and_the_mode_and_finds_it_private(server):
    config = DoctorConfig(
        backend="openai",
        openai_base_url=server.base_url,
        model_timeout_seconds=TIMEOUT_SECONDS,
    )
    named, cors, address, mode = await run_checks(config, [check_model_server, check_tool_mode])

    assert re.fullmatch(
        rf"llama-server b[1-9][0-9]*-[0-9a-f]{{7}} at {server.base_url}, "
        r"serving qwen2\.5-coder-1\.5b-instruct-q4_k_m\.gguf",
        named.detail,
    ), named.detail
    assert cors.ok, cors.detail  # only the Console's origin, as the appliance's unit runs it
    port = server.root.rsplit(":", 1)[1]
    assert address.ok and address.detail == f"listens on 127.0.0.1 port {port} only"
    assert mode.ok and mode.detail.startswith(
        "schema mode: auto: decisions constrained by response_format json_schema"
    ), mode.detail


def test_the_probe_picks_the_plan_and_a_household_question_runs_system_health(live):
    result = live.household.say("How hot is my device? Check its health.")

    plan = choose_plan(live.backend.features, live.tool_mode)  # type: ignore[arg-type]
    assert (plan.mode, plan.response_format, plan.history) == MODES[live.tool_mode]
    assert plan.stream
    assert result["pending_confirmation"] is None
    first, *again = result["receipts"]
    assert first == EXECUTED_HEALTH
    # A small model may ask again, up to the per-turn limit; only system.health ever ran.
    assert all(
        r == EXECUTED_HEALTH or r.get("error_code") == "INVOCATION_LIMIT_REACHED" for r in again
    ), again
    assert result["facts"][0]["capability"] == "system.health"
    assert result["text"].strip()


def test_a_search_card_carries_exactly_the_models_arguments_and_a_denial_sends_nothing(live):
    live.household.set_web_search(True)
    before = len(live.searxng.requests)

    kind, halted = final(events_of(live.household, {"message": SEARCH}))

    assert kind == "result"
    card = halted["pending_confirmation"]
    assert card and card["capability"] == "web.search", halted
    (proposed,) = [o for o in json_objects(model_texts(live.wire)[-1]) if "query" in o]
    # Verbatim what the model wrote, plus only the household's search settings.
    household = live.household.client.get(
        "/api/v1/settings/search", headers={"X-CSRF-Token": live.household.csrf}
    ).json()
    settings = {key: household[key] for key in ("language", "safesearch")}
    assert card["arguments"] == {**proposed, **settings}
    assert "firmware" in card["arguments"]["query"].lower()

    denied = live.household.answer(card["token"], approve=False)

    assert denied["receipts"] == [
        {
            "capability": "web.search",
            "locality": "external",
            "outcome": "denied",
            "name": "Web search",
        }
    ]
    assert denied["pending_confirmation"] is None and denied["text"].strip()
    assert len(live.searxng.requests) == before  # nothing left the device
    outcomes = [json.loads(line)["outcome"] for line in live.service.audit_lines()[-2:]]
    assert outcomes == ["confirmation_required", "denied"]


def test_an_approved_search_reaches_searxng_once_with_the_cards_query(live):
    live.household.set_web_search(True)
    before = len(live.searxng.requests)
    card = live.household.say(SEARCH)["pending_confirmation"]
    assert card and card["capability"] == "web.search"

    answer = {"confirmation": {"token": card["token"], "approve": True}}
    kind, done = final(events_of(live.household, answer))

    assert kind == "result", done
    assert [r.q for r in live.searxng.requests[before:]] == [card["arguments"]["query"]]
    assert done["receipts"] == [
        {
            "capability": "web.search",
            "locality": "external",
            "outcome": "executed",
            "name": "Web search",
        }
    ]
    assert done["citations"] and done["citations"][0]["capability"] == "web.search"
    assert done["text"].strip() and done["pending_confirmation"] is None


def test_an_answer_streams_token_by_token_before_it_ends(live):
    question = "What is the capital of France? Answer in two sentences."
    events = events_of(live.household, {"message": question})

    kind, result = final(events)
    assert kind == "result"
    arrivals = [(at, data["text"]) for at, k, data in events if k == "token"]
    assert len(arrivals) >= 2 and "".join(text for _, text in arrivals).strip()
    assert arrivals[0][0] < events[-1][0]  # the first piece was shown before the answer ended
    assert "Paris" in result["text"]
    assert all(r["outcome"] != "executed" for r in result["receipts"]), result["receipts"]


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
def test_a_conversation_longer_than_the_context_is_413_in_the_readmes_words(live, streamed):
    body = {"message": "Summarise what I said.", "history": LONG_HISTORY}
    if streamed:
        kind, error = final(events_of(live.household, body))
        assert kind == "error"
    else:
        headers = {"X-CSRF-Token": live.household.csrf}
        reply = live.household.client.post(
            "/api/v1/conversation/message", json=body, headers=headers
        )
        assert reply.status_code == 413
        error = reply.json()
    assert error["error"] == {"code": "CONVERSATION_TOO_LONG", "message": TOO_LONG}
    assert error["receipts"] == [] and error["citations"] == []
    assert live.backend.features is not None  # an overflow does not make it probe again


def test_the_server_killed_mid_stream_ends_the_turn_honestly(live):
    """The stream breaks off without its terminal event: what came is shown, said to be cut
    off (never checked as a whole answer), nothing ran; then 503 while the server is down,
    and answers again once it is back. The server is restarted whatever happens, so the
    next tool mode's tests find it running."""
    audit_before = len(live.service.audit_lines())
    try:
        events = streamed_until_killed(live)
        (last_kind, last), before = events[-1], events[:-1]
        assert "token" in {k for k, _ in before} and {k for k, _ in before} <= BEFORE_THE_END
        assert last_kind == "result", events
        assert last["text"].rstrip().endswith(CUT_OFF), last["text"]
        assert last["receipts"] == [] and last["citations"] == []  # no call ran; none claimed
        assert last["pending_confirmation"] is None
        assert live.service.audit_lines()[audit_before:] == []

        # While it is down: 503 at once, with the (empty) provenance; the service is fine.
        down = live.household.client.post(
            "/api/v1/conversation/message",
            json={"message": "Hello?"},
            headers={"X-CSRF-Token": live.household.csrf},
        )
        assert down.status_code == 503 and down.json()["error"]["code"] == "MODEL_UNAVAILABLE"
        assert down.json()["receipts"] == []
        assert live.household.client.get("/healthz").status_code == 200
    finally:
        live.server.restart()
    again = live.household.say("What is the capital of France? One word.")
    assert "Paris" in again["text"]


def streamed_until_killed(live: Live) -> list[tuple[str, dict]]:
    """A long answer streamed, the server SIGKILLed at its first token; every event."""
    events: list[tuple[str, dict]] = []
    headers = {"X-CSRF-Token": live.household.csrf or "", "Accept": "text/event-stream"}
    with live.household.client.stream(
        "POST", "/api/v1/conversation/message", json={"message": STORY}, headers=headers
    ) as response:
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                events.append((kind, json.loads(line[5:])))
                if kind == "token" and [k for k, _ in events].count("token") == 1:
                    live.server.kill()  # in the middle of the answer
    return events
