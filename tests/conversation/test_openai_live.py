"""The service with ``--backend openai`` against a real server: llama-cpp-python's own.

``python -m llama_cpp.server`` runs on 127.0.0.1 with the verified default model,
and the real service (``create_app`` under uvicorn, every capability family,
SearXNG replaced by the replaying fake) is driven over HTTP as the Console does,
in each tool plan the probe selects against it:

- default chat format, ``auto``: ``json_schema`` is refused, ``json_object`` with a
  schema constrains, the model writes calls as text → schema decisions;
- ``chatml-function-calling``, ``auto``: calls come back as ``tool_calls`` → native;
- default chat format, ``--tool-mode native``: calls read from text, history sent
  back as text (the plan ``auto`` picks for a server without ``response_format``).

Each plan gets a tool turn, an approved search, and a question without a tool
whose answer is streamed over SSE. Generation is greedy and short (CI time, not
behaviour). Cases a live server cannot produce stay with the replayed captures
(``test_openai_replay.py``). Deselect with ``-m "not slow"``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from sovereign.conversation.backends.openai.backend import OpenAIBackend
from sovereign.conversation.backends.openai.probe import ToolPlan, choose_plan
from sovereign.service.settings import Settings
from tests.e2e.household import Household, serve
from tests.fakes.searxng import FakeSearxng

from .live_llama_cpp_python import llama_cpp_server

pytestmark = pytest.mark.slow

SEARCH = "Search the web for the latest Raspberry Pi 5 firmware."
TIMEOUT_SECONDS = 900.0
"""Per read: generous, since a busy two-core machine may take minutes for a first decision."""
EXECUTED_HEALTH = {
    "capability": "system.health",
    "locality": "local",
    "outcome": "executed",
    "name": "This device's health",
}


@dataclass(frozen=True)
class Config:
    chat_format: str | None
    tool_mode: str
    plan: tuple[str, str | None, str]
    """(mode, response_format, history) the probe must lead to."""


CONFIGS = {
    "default-auto": Config(None, "auto", ("schema", "json_object", "text")),
    "chatml-function-calling-auto": Config(
        "chatml-function-calling", "auto", ("native", "json_object", "openai")
    ),
    "default-native": Config(None, "native", ("native", "json_object", "text")),
}


@dataclass
class Live:
    config: Config
    household: Household
    backend: OpenAIBackend
    searxng: FakeSearxng

    def plan(self) -> ToolPlan:
        assert self.backend.features is not None, "no turn has probed the server yet"
        return choose_plan(self.backend.features, self.config.tool_mode)  # type: ignore[arg-type]


@pytest.fixture(scope="module", params=list(CONFIGS), ids=list(CONFIGS))
def live(request, tmp_path_factory) -> Iterator[Live]:
    config = CONFIGS[request.param]
    data_dir = tmp_path_factory.mktemp(request.param)
    with (
        llama_cpp_server(data_dir, chat_format=config.chat_format) as base_url,
        FakeSearxng() as searxng,
    ):
        settings = Settings(
            data_dir=data_dir,
            backend="openai",
            openai_base_url=base_url,
            tool_mode=config.tool_mode,
            searxng_url=searxng.base_url,
        )
        # What make_backend builds from these settings, with short greedy answers.
        backend = OpenAIBackend(
            base_url,
            mode=config.tool_mode,
            max_tokens=96,
            temperature=0.0,
            timeout_seconds=TIMEOUT_SECONDS,
        )
        with serve(settings, backend) as service:
            household = Household(service)
            household.client.timeout = httpx.Timeout(TIMEOUT_SECONDS)
            household.sign_in()
            try:
                yield Live(config, household, backend, searxng)
            finally:
                household.close()


def streamed_turn(household: Household, message: str) -> list[tuple[float, str, dict]]:
    """POST a message with ``Accept: text/event-stream``; each event with its arrival time."""
    events = []
    headers = {"X-CSRF-Token": household.csrf or "", "Accept": "text/event-stream"}
    with household.client.stream(
        "POST", "/api/v1/conversation/message", json={"message": message}, headers=headers
    ) as response:
        assert response.status_code == 200
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                events.append((time.monotonic(), kind, json.loads(line[5:])))
    return events


def test_a_question_without_a_tool_streams_its_answer_as_it_is_written(live):
    events = streamed_turn(live.household, "What is the capital of France? One word.")

    kinds = [kind for _, kind, _ in events]
    assert kinds[-1] == "result", events[-1]
    # Before the result: the turn's id, its stages, and the answer's pieces.
    assert set(kinds[:-1]) <= {"turn", "progress", "token"} and kinds.count("token") >= 1
    first_token = next(at for at, kind, _ in events if kind == "token")
    ended, _, result = events[-1]
    assert "Paris" in result["text"]
    # The model may still propose a tool on its own; nothing may run or leave for it.
    assert all(r["outcome"] != "executed" for r in result["receipts"]), result["receipts"]
    assert live.searxng.requests == []
    assert "".join(data["text"] for _, kind, data in events if kind == "token").strip()
    assert ended > first_token  # the first piece was shown before the answer ended
    plan = live.plan()
    assert (plan.mode, plan.response_format, plan.history) == live.config.plan
    assert plan.stream


def test_a_tool_turn_runs_system_health_and_answers_from_it(live):
    result = live.household.say("How hot is my device? Check its health.")
    assert result["pending_confirmation"] is None
    first, *again = result["receipts"]
    assert first == EXECUTED_HEALTH
    # A small model reading calls from text may ask again, up to the per-turn limit; only
    # system.health ever ran, and the calls past the limit were refused.
    assert all(r["capability"] == "system.health" for r in again), again
    assert all(
        r == EXECUTED_HEALTH or r.get("error_code") == "INVOCATION_LIMIT_REACHED" for r in again
    ), again
    assert result["text"].strip()


def test_an_approved_search_reaches_searxng_once_and_is_receipted(live):
    live.household.set_web_search(True)
    before = len(live.searxng.requests)

    halted = live.household.say(SEARCH)
    pending = halted["pending_confirmation"]
    assert pending and pending["capability"] == "web.search", halted
    assert "firmware" in pending["arguments"]["query"].lower()
    assert len(live.searxng.requests) == before  # nothing left before the approval
    done = live.household.answer(pending["token"], approve=True)

    searches = live.searxng.requests[before:]
    assert [r.q for r in searches] == [pending["arguments"]["query"]]
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
