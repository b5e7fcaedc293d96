"""The scripted backend's demo script: the Console flow without a model."""

from __future__ import annotations

import pytest

from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.demo import INTRODUCTION
from sovereign.conversation.backends.scripted import ScriptedBackend, ScriptExhausted

from .conftest import OFF, ON


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


@pytest.fixture
def demo(world) -> TurnLoop:
    return TurnLoop(world.executor, ScriptedBackend(), pending=world.pending)


async def test_demo_answers_a_heat_question_from_the_health_result(demo, world):
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    result = await demo.process_turn(
        ask("how hot is my device?"), policy=OFF, owner="s", on_token=sink
    )
    assert "52.5 °C" in result.text and "".join(pieces) == result.text
    assert world.calls.of("system.health") == [{}]


async def test_demo_search_halts_then_lists_results_once_approved(demo, world):
    halted = await demo.process_turn(ask("search the web for pi firmware?"), policy=ON, owner="s")
    assert halted.pending_confirmation.arguments == {"query": "pi firmware"}
    result = await demo.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s")
    assert result.text == "> Bootloader update\n> \u2014 pi.example"  # quoted, with its host
    assert len(result.citations) == 1


async def test_demo_says_when_search_is_switched_off(demo):
    result = await demo.process_turn(ask("search for pi firmware"), policy=OFF, owner="s")
    assert "switched off" in result.text and result.pending_confirmation is None


async def test_demo_accepts_a_denial(demo):
    halted = await demo.process_turn(ask("search for pi firmware"), policy=ON, owner="s")
    result = await demo.resume_turn(halted.pending_confirmation.token, False, policy=ON, owner="s")
    assert result.text == "You declined the web search, so I didn't look it up."


async def test_demo_reads_a_page_after_approval(demo):
    halted = await demo.process_turn(
        ask("please read https://news.example/pi-firmware."), policy=ON, owner="s"
    )
    assert halted.pending_confirmation.arguments == {"url": "https://news.example/pi-firmware"}
    result = await demo.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s")
    assert result.text == (  # the page's orders are never quoted, and that is said
        "> Raspberry Pi 5 firmware 2026-11 released.\n> \u2014 news.example\n\n"
        "One of the sources gave me instructions, which I ignored."
    )


async def test_demo_introduces_itself_otherwise(demo):
    assert (await demo.process_turn(ask("hello"), policy=ON, owner="s")).text == INTRODUCTION


async def test_an_empty_queue_says_so():
    with pytest.raises(ScriptExhausted):
        await ScriptedBackend([]).complete(ask("hi"), tools=None)
