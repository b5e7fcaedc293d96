"""A turn that fails after it began still says what it did (DESIGN §4, issue: receipts lost).

Whatever breaks once a call has run — the model failing on every attempt, the model
server gone, the conversation overflowing, a bug — the turn loop raises
:class:`TurnFailed` carrying that call's receipt and citations, never the bare error.
"""

from __future__ import annotations

import pytest

from sovereign.conversation import InvalidConfirmation, ModelUnavailable, TurnFailed
from sovereign.conversation.backends.base import ContextTooLong, ModelError, ModelReply
from sovereign.conversation.backends.scripted import propose

from .conftest import OFF, ON

ASK_SEARCH = [{"role": "user", "content": "search the web for pi firmware"}]
ASK_HOT = [{"role": "user", "content": "how hot is my device?"}]
SEARCH = propose("web_search", {"query": "pi firmware"})
CITED = {
    "capability": "web.search",
    "title": "Pi 5 firmware notes",
    "url": "https://pi.example/fw",
    "snippet": "Bootloader update",
    "retrieved_at": "2026-11-29T12:00:00Z",
}
FAILURES = [
    pytest.param([ModelError("HTTP 500: Internal Server Error")] * 2, ModelUnavailable, id="500x2"),
    pytest.param([ModelUnavailable("connection refused")], ModelUnavailable, id="unreachable"),
    pytest.param([ContextTooLong("exceed context window")], ContextTooLong, id="overflow"),
    pytest.param([RuntimeError("a bug")], RuntimeError, id="bug"),
]


async def approve_search(world, after: list) -> TurnFailed:
    loop, _ = world.loop([SEARCH, *after])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    with pytest.raises(TurnFailed) as failed:
        await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s1")
    return failed.value


@pytest.mark.parametrize(("after", "cause"), FAILURES)
async def test_a_failure_after_an_approved_search_carries_its_receipt_and_citations(
    world, after, cause
):
    failed = await approve_search(world, after)

    assert isinstance(failed.error, cause)
    assert failed.__cause__ is failed.error
    assert world.calls.of("web.search") == [{"query": "pi firmware"}]
    assert failed.provenance() == {
        "citations": [{**CITED, "heading": "Sources", "kind": "search result snippet"}],
        "receipts": [{
            "capability": "web.search",
            "locality": "external",
            "outcome": "executed",
            "name": "Web search",
        }],
    }


async def test_the_turn_is_spent_after_such_a_failure_and_the_call_ran_once(world):
    loop, _ = world.loop([SEARCH, ModelUnavailable("gone")])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    token = halted.pending_confirmation.token
    with pytest.raises(TurnFailed):
        await loop.resume_turn(token, True, policy=ON, owner="s1")
    with pytest.raises(InvalidConfirmation):
        await loop.resume_turn(token, True, policy=ON, owner="s1")
    assert len(world.calls.of("web.search")) == 1
    outcomes = [line["outcome"] for line in _audit(world) if line["capability"] == "web.search"]
    assert "executed" in outcomes


async def test_a_failure_while_the_answer_streams_keeps_the_receipt(world):
    """The stream dies while the answer is sent, after the search ran."""
    sent: list[str] = []

    async def sink(piece: str) -> None:
        sent.append(piece)
        raise ModelError("stream cut mid-answer")

    answer = "Found three notes about firmware. One covers the bootloader. One covers USB."
    loop, _ = world.loop([SEARCH, ModelReply(), answer])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    with pytest.raises(TurnFailed) as failed:
        await loop.resume_turn(
            halted.pending_confirmation.token, True, policy=ON, owner="s1", on_token=sink
        )
    assert [r.outcome for r in failed.value.receipts] == ["executed"]
    assert [c.url for c in failed.value.citations] == ["https://pi.example/fw"]


async def test_a_failure_after_a_local_call_in_a_new_turn_carries_its_receipt(world):
    loop, _ = world.loop([propose("system_health"), ModelUnavailable("gone")])
    with pytest.raises(TurnFailed) as failed:
        await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")
    assert [r.to_wire() for r in failed.value.receipts] == [
        {"capability": "system.health", "locality": "local", "outcome": "executed"}
    ]


async def test_a_failure_after_a_denial_carries_the_denial(world):
    loop, _ = world.loop([SEARCH, ModelError("500"), ModelError("500")])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    with pytest.raises(TurnFailed) as failed:
        await loop.resume_turn(halted.pending_confirmation.token, False, policy=ON, owner="s1")
    assert [(r.capability, r.outcome) for r in failed.value.receipts] == [("web.search", "denied")]
    assert world.calls.of("web.search") == []


async def test_a_failure_before_anything_ran_carries_nothing(world):
    loop, _ = world.loop([ModelUnavailable("gone")])
    with pytest.raises(TurnFailed) as failed:
        await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    assert failed.value.provenance() == {"citations": [], "receipts": []}


async def test_an_unknown_token_is_still_invalid_confirmation_not_a_failed_turn(world):
    loop, _ = world.loop([])
    with pytest.raises(InvalidConfirmation):
        await loop.resume_turn("no-such-token", True, policy=ON, owner="s1")


async def test_bad_history_is_still_a_value_error_not_a_failed_turn(world):
    loop, _ = world.loop([])
    with pytest.raises(ValueError, match="message 1"):
        await loop.process_turn([{"role": "system", "content": "x"}], policy=ON, owner="s1")


def _audit(world) -> list[dict]:
    import json

    path = world.executor.audit.path
    return [json.loads(line) for line in path.read_text().splitlines()]
