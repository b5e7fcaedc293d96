"""Stop: a streamed turn ends where nothing is half done, with what already ran kept."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import httpx

from sovereign.capabilities import system, web_search
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.executor import Registry
from sovereign.service.app import create_app
from sovereign.service.settings import Settings
from tests.fakes.clock import FakeClock
from tests.fixtures import SEARXNG
from tests.spoken import last_spoken

from .conftest import CHEAP_HASHER
from .harness import Harness, _client
from .test_streaming import MESSAGE, parse_events

STOP = "/api/v1/conversation/stop"
CAPTURE = json.loads((SEARXNG / "search_capability_shape.json").read_text())


class HeldModel:
    """The scripted model, but a prose answer (no tools offered) waits on ``release``
    until the request is cancelled; ``cancelled`` says whether it was."""

    def __init__(self, script: Any) -> None:
        self.inner = ScriptedBackend(script)
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()
        self.cancelled = False
        self.calls = 0

    async def complete(
        self, messages, *, tools, on_token=None, on_progress=None, tool_choice="auto"
    ) -> ModelReply:
        self.calls += 1
        if tools is None:
            self.waiting.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return await self.inner.complete(
            messages, tools=tools, on_token=on_token, on_progress=on_progress
        )


class HeldSearxng:
    """A SearXNG that holds each search until ``release`` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.answered = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        self.started.set()
        await self.release.wait()
        self.answered += 1
        query = request.url.params.get("q", "")
        return httpx.Response(CAPTURE["status"], json={**CAPTURE["body"], "query": query})


def _held(execute: Any, gate: asyncio.Event | None) -> Any:
    async def held(arguments: dict[str, Any]) -> Any:
        if gate is not None:
            await gate.wait()
        return await execute(arguments)

    return held


def search_then_answer(messages: list[dict[str, Any]], tools: Any) -> Any:
    last = last_spoken(messages)
    if last["role"] == "user" and tools:
        if last["content"].startswith("both"):
            health, search = propose("system_health", {}), propose("web_search", {"query": "x"})
            return ModelReply(tool_calls=(*health.tool_calls, *search.tool_calls))
        return propose("web_search", {"query": last["content"]})
    return "an answer"


def build(
    tmp_path, model: HeldModel, searxng: HeldSearxng, health_gate: asyncio.Event | None = None
) -> Harness:
    """The service around ``model`` and ``searxng``; with ``health_gate``, system.health
    waits for it before reading the device."""
    registry, system_only = Registry(), Registry()
    system.register(system_only, disk_path=tmp_path)
    for capability in system_only:
        registry.add(replace(capability, execute=_held(capability.execute, health_gate)))
    web_search.register(
        registry, base_url="http://searxng.test", transport=httpx.MockTransport(searxng.handler)
    )
    clock = FakeClock()
    app = create_app(
        Settings(data_dir=tmp_path, backend="scripted"),
        backend=model,
        clock=clock,
        registry=registry,
        password_hasher=CHEAP_HASHER,
    )
    return Harness(app, _client(app), clock, searxng, model, tmp_path)  # type: ignore[arg-type]


async def start_stream(harness: Harness, body: dict[str, Any]) -> asyncio.Task[httpx.Response]:
    headers = harness.headers(Accept="text/event-stream")
    return asyncio.create_task(harness.client.post(MESSAGE, json=body, headers=headers))


def running_turn(harness: Harness) -> str:
    [control] = harness.app.state.services.running.now()
    return control.id


def stage_of(harness: Harness) -> str | None:
    running = harness.app.state.services.running.now()
    return running[0].stage.stage if running and running[0].stage else None


def audit_outcomes(harness: Harness) -> list[str]:
    path = harness.data_dir / "capabilities" / "audit.jsonl"
    return [json.loads(line)["outcome"] for line in path.read_text().splitlines()]


async def test_stop_while_the_model_writes_cancels_the_generation_and_ends_the_stream(tmp_path):
    model = HeldModel(lambda messages, tools: "" if tools else "never said")
    harness = build(tmp_path, model, HeldSearxng())
    async with harness.client:
        await harness.sign_in()
        task = await start_stream(harness, {"message": "hello"})
        await asyncio.wait_for(model.waiting.wait(), 5)
        stopped = await harness.post(STOP, {"turn": running_turn(harness)})
        events = parse_events((await asyncio.wait_for(task, 5)).text)
    assert stopped.status_code == 202 and stopped.json()["stopping"] is True
    assert model.cancelled
    kind, body = events[-1]
    assert kind == "error" and body["error"]["code"] == "TURN_STOPPED"
    assert body["receipts"] == []
    assert not [data for kind, data in events if kind == "token"]
    assert not harness.app.state.services.running.now()


async def test_a_stopped_turn_is_said_stopped_in_the_turn_s_language(tmp_path):
    model = HeldModel(lambda messages, tools: "" if tools else "nie gesagt")
    harness = build(tmp_path, model, HeldSearxng())
    async with harness.client:
        await harness.sign_in()
        question = "Schreib mir bitte ein langes Gedicht über den Herbst im Garten."
        task = await start_stream(harness, {"message": question})
        await asyncio.wait_for(model.waiting.wait(), 5)
        await harness.post(STOP, {"turn": running_turn(harness)})
        events = parse_events((await asyncio.wait_for(task, 5)).text)
    kind, body = events[-1]
    assert kind == "error" and body["error"]["code"] == "TURN_STOPPED"
    assert body["error"]["message"] == (
        "Angehalten. Nachdem Sie auf „Anhalten“ gedrückt haben, wurde nichts mehr getan."
    )
    assert body["language"] == "de"
    assert body["receipt"]["headline"] == "Alles ist auf diesem Gerät geblieben."


async def test_stop_during_an_approved_search_lets_it_finish_and_keeps_its_receipt(tmp_path):
    model, searxng = HeldModel(search_then_answer), HeldSearxng()
    harness = build(tmp_path, model, searxng)
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        first = parse_events((await start_stream_and_wait(harness, {"message": "solar"})).text)
        token = first[-1][1]["pending_confirmation"]["token"]
        task = await start_stream(harness, {"confirmation": {"token": token, "approve": True}})
        await asyncio.wait_for(searxng.started.wait(), 5)
        stopped = await harness.post(STOP, {"turn": running_turn(harness)})
        searxng.release.set()  # the search that started runs to its end
        events = parse_events((await asyncio.wait_for(task, 5)).text)
    assert stopped.status_code == 202
    assert searxng.answered == 1
    kind, body = events[-1]
    assert kind == "error" and body["error"]["code"] == "TURN_STOPPED"
    assert [r["outcome"] for r in body["receipts"]] == ["executed"]
    assert body["citations"]  # what the search found is still cited
    assert model.calls == 1  # the model was not asked to write after the stop
    assert audit_outcomes(harness)[-2:] == ["executing", "executed"]


async def test_a_card_reached_after_stop_is_withdrawn_and_nothing_is_left_waiting(tmp_path):
    model, searxng, gate = HeldModel(search_then_answer), HeldSearxng(), asyncio.Event()
    harness = build(tmp_path, model, searxng, health_gate=gate)
    services = harness.app.state.services
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        task = await start_stream(harness, {"message": "both please"})
        for _ in range(500):
            if stage_of(harness) == "checking":
                break
            await asyncio.sleep(0.01)
        stopped = await harness.post(STOP, {"turn": running_turn(harness)})
        gate.set()
        events = parse_events((await asyncio.wait_for(task, 5)).text)
    assert stopped.status_code == 202
    kind, body = events[-1]
    assert kind == "error" and body["error"]["code"] == "TURN_STOPPED"
    assert [(r["capability"], r["outcome"]) for r in body["receipts"]] == [
        ("system.health", "executed"),
        ("web.search", "denied"),
    ]
    assert body["receipt"]["lines"] == [  # said, as the answer's would be
        "This device's health: ran on this device",
        "Web search: denied by you; nothing was sent",
    ]
    assert len(services.turns._pending) == 0
    assert searxng.started.is_set() is False
    assert audit_outcomes(harness)[-1] == "denied"


async def test_another_session_cannot_stop_a_turn_and_an_ended_turn_is_not_running(tmp_path):
    model = HeldModel(lambda messages, tools: "" if tools else "done")
    harness = build(tmp_path, model, HeldSearxng())
    async with harness.client:
        await harness.sign_in()
        task = await start_stream(harness, {"message": "hello"})
        await asyncio.wait_for(model.waiting.wait(), 5)
        turn = running_turn(harness)
        stranger = Harness(
            harness.app,
            await harness.another_client(),
            harness.clock,
            harness.searxng,
            model,
            tmp_path,
        )
        async with stranger.client:
            await stranger.sign_in()
            foreign = await stranger.post(STOP, {"turn": turn})
        model.release.set()
        events = parse_events((await asyncio.wait_for(task, 5)).text)
        ended = await harness.post(STOP, {"turn": turn})
        malformed = await harness.post(STOP, {"turn": ""})
    assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "TURN_NOT_RUNNING"
    assert events[-1][0] == "result" and events[-1][1]["text"] == "done"
    assert ended.status_code == 404
    assert malformed.status_code == 422


async def start_stream_and_wait(harness: Harness, body: dict[str, Any]) -> httpx.Response:
    return await asyncio.wait_for(await start_stream(harness, body), 5)
