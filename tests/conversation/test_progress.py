"""A turn reports its stages, and the embedded backend its waits (conversation.progress)."""

from __future__ import annotations

import asyncio

from sovereign.conversation import Progress
from sovereign.conversation.backends.base import ModelReply, ToolCall
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend
from sovereign.conversation.progress import ProgressReporter

from .one_capability import loop_over, registry_with
from .token_model import FakeModel

ASK = [{"role": "user", "content": "hello"}]
TOOLS = [
    {
        "type": "function",
        "function": {"name": "ping", "description": "", "parameters": {"type": "object"}},
    }
]


async def test_a_household_read_reports_choosing_checking_it_and_writing(tmp_path):
    registry = registry_with("device.status", {"ok": True})
    script = [
        ModelReply(tool_calls=(ToolCall("c1", "device_status", {}),)),
        ModelReply(),  # the decision to answer, then the prose, written without tools
        "All is well.",
    ]
    loop, _ = loop_over(script, tmp_path, registry)
    seen: list[Progress] = []

    async def sink(progress: Progress) -> None:
        seen.append(progress)

    messages = [{"role": "user", "content": "status?"}]
    await loop.process_turn(messages, policy={}, owner="o", on_progress=sink)
    stages = [(p.stage, p.capability) for p in seen]
    assert ("checking", "device.status") in stages
    assert stages.index(("choosing", None)) < stages.index(("checking", "device.status"))
    assert stages[-1] == ("writing", None)
    fields = {"stage", "capability", "language", "words", "stop", "stopping"}
    assert all(p.to_wire().keys() == fields for p in seen)
    assert seen[-1].to_wire()["words"] == "Writing the answer"
    # Choosing once the read ran is choosing what else to check, not reading the question.
    choosing = dict.fromkeys(p.to_wire()["words"] for p in seen if p.stage == "choosing")
    assert list(choosing) == [
        "Reading your question and choosing what to check",
        "Choosing what else to check",
    ]


async def test_each_stage_is_said_in_the_question_s_language_also_after_an_approval(tmp_path):
    from sovereign.executor import Locality

    registry = registry_with("web.search", {"results": []}, locality=Locality.EXTERNAL)
    script = [ModelReply(tool_calls=(ToolCall("c1", "web_search", {}),)), "Nichts gefunden."]
    loop, _ = loop_over(script, tmp_path, registry)
    seen: list[dict] = []

    async def sink(progress: Progress) -> None:
        seen.append(progress.to_wire())

    question = "Bitte such im Internet nach den Öffnungszeiten der Stadtbibliothek"
    messages = [{"role": "user", "content": question}]
    paused = await loop.process_turn(messages, policy={}, owner="o", on_progress=sink)
    assert seen[0]["words"] == "Ich lese Ihre Frage und wähle aus, was ich nachsehe"
    assert {(event["stop"], event["stopping"]) for event in seen} == {
        ("Anhalten", "Wird angehalten")
    }
    seen.clear()
    token = paused.pending_confirmation.token
    await loop.resume_turn(token, True, policy={"external_enabled": True}, owner="o",
                           on_progress=sink)  # fmt: skip
    assert {"stage": "checking", "capability": "web.search", "language": "de",
            "words": "Ich suche im Web", "stop": "Anhalten", "stopping": "Wird angehalten"
            } in seen  # fmt: skip
    assert all(event["stop"] == "Anhalten" for event in seen)


async def test_a_call_waiting_for_approval_is_not_reported_as_being_checked(tmp_path):
    from sovereign.executor import Locality

    registry = registry_with("web.search", {"results": []}, locality=Locality.EXTERNAL)
    script = [ModelReply(tool_calls=(ToolCall("c1", "web_search", {}),))]
    loop, _ = loop_over(script, tmp_path, registry)
    seen: list[Progress] = []

    async def sink(progress: Progress) -> None:
        seen.append(progress)

    result = await loop.process_turn(
        [{"role": "user", "content": "search"}], policy={}, owner="o", on_progress=sink
    )
    assert result.pending_confirmation is not None
    assert not [p for p in seen if p.stage == "checking"]


async def test_the_embedded_backend_says_loading_first_and_queued_behind_another_request():
    fake = FakeModel(replies=['{"action": "answer"}'] * 2, seconds_per_step=0.01)
    backend = EmbeddedBackend(loader=lambda _load: fake)
    first: list[str] = []
    second: list[str] = []

    async def hear(into: list[str]):
        async def sink(event: str) -> None:
            into.append(event)

        return sink

    one = asyncio.create_task(backend.complete(ASK, tools=TOOLS, on_progress=await hear(first)))
    await asyncio.sleep(0)
    two = asyncio.create_task(backend.complete(ASK, tools=TOOLS, on_progress=await hear(second)))
    await asyncio.gather(one, two)
    await asyncio.sleep(0.05)  # announcements from the worker thread land on the loop
    backend.close()
    assert first[:2] == ["loading_model", "started"]
    assert second[0] == "queued" and second[-1] == "started"
    assert "loading_model" not in second


async def test_the_loops_stage_is_said_again_when_a_backend_wait_ends():
    seen: list[Progress] = []

    async def sink(progress: Progress) -> None:
        seen.append(progress)

    reporter = ProgressReporter(sink)
    await reporter.stage("choosing")
    await reporter.backend("queued")
    await reporter.backend("started")
    await reporter.backend("something else")
    assert [p.stage for p in seen] == ["choosing", "queued", "choosing"]
    assert seen[1].to_wire()["words"] == "Waiting for another question to finish"


async def test_a_backend_wait_is_said_in_the_reporter_s_language():
    seen: list[Progress] = []

    async def sink(progress: Progress) -> None:
        seen.append(progress)

    reporter = ProgressReporter(sink, "fr")
    await reporter.backend("loading_model")
    assert seen[0].to_wire()["words"] == (
        "Chargement du modèle (la première question après un démarrage prend plus de temps)"
    )
