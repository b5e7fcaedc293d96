"""The household edits a proposal on its card (DESIGN §4, ``confirmation.arguments``).

An edit is a new proposal: validated, policy-checked and flag-checked again, with a
token of its own; the original token is discarded, the model is told what was sent,
and a refused edit answers nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sovereign.conversation import InvalidConfirmation, InvalidEdit, PendingTurnStore, TurnLoop
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.egress import Household, check_arguments
from sovereign.executor import (
    AuditLog,
    Capability,
    ConfirmationStore,
    Effect,
    Executor,
    Locality,
    Registry,
)
from tests.fakes.clock import FakeClock

ON, OFF = {"external_enabled": True}, {"external_enabled": False}
ASK = [{"role": "user", "content": "search for my daughter's school"}]
PROPOSED = {"query": "Westbrook Primary term dates"}
HOUSEHOLD = Household.build(private_words=["Westbrook Primary"])


class World:
    """A web.search whose validate stage canonicalises like the real one (spaces merged,
    refused when blank) and a flag check over the household above."""

    def __init__(self, tmp_path) -> None:
        self.clock, self.sent = FakeClock(), []
        registry = Registry()
        registry.add(self._search())
        self.confirmations = ConfirmationStore(clock=self.clock)
        self.executor = Executor(
            registry,
            confirmations=self.confirmations,
            audit=AuditLog(tmp_path),
            flag_check=lambda name, args: [
                f.to_wire() for f in check_arguments(args, ["query"], HOUSEHOLD)
            ],
        )
        self.pending = PendingTurnStore(clock=self.clock, on_forget=self.confirmations.discard)

    def _search(self) -> Capability:
        async def execute(arguments: dict[str, Any]) -> dict[str, Any]:
            self.sent.append(arguments["query"])
            return {"query": arguments["query"], "results": []}

        def canonical(arguments: dict[str, Any]) -> dict[str, Any]:
            query = " ".join(arguments["query"].split(" "))
            query = " ".join(word for word in query.split(" ") if word)
            if not query:
                raise ValueError("The query is empty once its spaces are merged.")
            if "\u200b" in query:
                raise ValueError("The query contains an invisible character (U+200B).")
            return {**arguments, "query": query}

        return Capability(
            name="web.search",
            version=1,
            description="Search the web.",
            arguments_schema={
                "type": "object",
                "required": ["query"],
                "properties": {"query": {"type": "string", "minLength": 1, "maxLength": 50}},
                "additionalProperties": False,
            },
            result_schema={"type": "object"},
            effect=Effect.READ_ONLY,
            locality=Locality.EXTERNAL,
            execute=execute,
            policy_key="external_enabled",
            validate_arguments=canonical,
        )

    def loop(self, script: list[Any]) -> tuple[TurnLoop, ScriptedBackend]:
        backend = ScriptedBackend(script)
        return TurnLoop(self.executor, backend, pending=self.pending), backend

    def audit(self) -> list[dict[str, Any]]:
        path = self.executor.audit.path
        return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def world(tmp_path) -> World:
    return World(tmp_path)


def tool_results(request) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in request.messages if m["role"] == "tool"]


async def halted(world: World, script: list[Any]):
    loop, backend = world.loop([propose("web_search", PROPOSED), *script])
    result = await loop.process_turn(ASK, policy=ON, owner="s1")
    return loop, backend, result.pending_confirmation


async def test_a_card_carries_the_flags_and_the_ask_record_their_kinds_only(world):
    _, _, pending = await halted(world, [])
    assert pending.flags == [
        {"argument": "query", "start": 0, "end": 17, "kind": "private_word",
         "reason": "is on your household's list of private words"},
    ]  # fmt: skip
    [ask] = world.audit()
    assert ask["outcome"] == "confirmation_required" and ask["flags"] == ["private_word"]
    assert "Westbrook" not in json.dumps(world.audit())


async def test_an_edit_typed_as_it_leaves_runs_at_once_with_a_new_token(world):
    loop, backend, pending = await halted(world, [ModelReply(), "Here are the dates."])
    edited = {"query": "primary school term dates"}

    result = await loop.resume_turn(pending.token, True, policy=ON, owner="s1", arguments=edited)

    assert world.sent == ["primary school term dates"]  # the edit, not the proposal
    assert result.text == "Here are the dates." and result.pending_confirmation is None
    assert [r.outcome for r in result.receipts] == ["executed"]
    [framed] = tool_results(backend.requests[-1])
    assert framed["status"] == "executed"
    assert framed["household_edit"]["arguments"] == edited
    assert "edited" in framed["household_edit"]["note"]
    with pytest.raises(InvalidConfirmation):  # the original token is gone
        await loop.resume_turn(pending.token, True, policy=ON, owner="s1")
    assert world.sent == ["primary school term dates"]


async def test_the_audit_says_edited_then_asks_and_runs_the_edit(world):
    loop, _, pending = await halted(world, [ModelReply(), "ok"])
    await loop.resume_turn(
        pending.token, True, policy=ON, owner="s1", arguments={"query": "term dates"}
    )
    records = world.audit()
    ask, edited, new_ask, executing, executed = records
    ref = lambda r: f"{r['run']}.{r['seq']}"  # noqa: E731
    assert (edited["outcome"], edited["asked"]) == ("edited", ref(ask))
    assert new_ask["outcome"] == "confirmation_required" and new_ask["flags"] == []
    assert new_ask["reason"] == "edited by the household"
    assert executing["asked"] == executed["asked"] == ref(new_ask)
    assert executed["outcome"] == "executed"
    assert "term dates" not in json.dumps(records)


async def test_an_edit_that_still_carries_a_flag_gets_a_card_of_its_own(world):
    loop, _, pending = await halted(world, [ModelReply(), "ok"])
    edited = {"query": "westbrook primary uniform"}
    again = await loop.resume_turn(pending.token, True, policy=ON, owner="s1", arguments=edited)

    card = again.pending_confirmation
    assert card is not None and card.edited and card.token != pending.token
    assert card.arguments == edited and [f["kind"] for f in card.flags] == ["private_word"]
    assert world.sent == []
    done = await loop.resume_turn(card.token, True, policy=ON, owner="s1")
    assert world.sent == ["westbrook primary uniform"] and done.text == "ok"


async def test_an_edit_whose_canonical_form_differs_is_shown_before_it_leaves(world):
    loop, _, pending = await halted(world, [ModelReply(), "ok"])
    again = await loop.resume_turn(
        pending.token, True, policy=ON, owner="s1", arguments={"query": "  term   dates "}
    )
    card = again.pending_confirmation
    assert card is not None and card.arguments == {"query": "term dates"} and card.flags == []
    assert world.sent == []


async def test_an_edit_equal_to_the_card_is_a_plain_approval(world):
    loop, _, pending = await halted(world, [ModelReply(), "ok"])
    await loop.resume_turn(pending.token, True, policy=ON, owner="s1", arguments=dict(PROPOSED))
    assert world.sent == [PROPOSED["query"]]
    assert [r["outcome"] for r in world.audit()] == [
        "confirmation_required", "executing", "executed",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"query": "a\u200bb"}, "invisible character"),
        ({"query": "   "}, "empty"),
        ({"query": ""}, "query"),
        ({"query": "x" * 51}, "query"),
        ({"query": 7}, "query"),
        ({"q": "term dates"}, "query"),
        ({"query": "ok", "engine": "x"}, "engine"),
    ],
)
async def test_a_refused_edit_answers_nothing_and_the_card_stays_answerable(
    world, arguments, words
):
    loop, _, pending = await halted(world, [ModelReply(), "ok"])
    with pytest.raises(InvalidEdit) as refused:
        await loop.resume_turn(pending.token, True, policy=ON, owner="s1", arguments=arguments)
    assert refused.value.code == "INVALID_ARGUMENTS" and words in refused.value.message
    assert [r["outcome"] for r in world.audit()] == ["confirmation_required"]
    assert world.confirmations.seconds_left(pending.token) > 0
    result = await loop.resume_turn(pending.token, True, policy=ON, owner="s1")
    assert world.sent == [PROPOSED["query"]] and result.text == "ok"


async def test_an_edit_after_the_card_expired_is_an_expiry_not_an_error(world):
    loop, _, pending = await halted(world, ["Too late."])
    world.clock.advance(121)
    result = await loop.resume_turn(
        pending.token, True, policy=ON, owner="s1", arguments={"query": "a\u200bb"}
    )
    assert world.sent == [] and [r.outcome for r in result.receipts] == ["expired"]


async def test_an_edit_meets_the_policy_stage_again(world):
    loop, backend, pending = await halted(world, [ModelReply(), "Search is off."])
    result = await loop.resume_turn(
        pending.token, True, policy=OFF, owner="s1", arguments={"query": "term dates"}
    )
    assert world.sent == [] and result.pending_confirmation is None
    [framed] = tool_results(backend.requests[-1])
    assert framed["error_code"] == "POLICY_DISABLED"
    assert "not sent" in framed["household_edit"]["note"]


async def test_edited_arguments_come_only_with_an_approval(world):
    loop, _, pending = await halted(world, [])
    with pytest.raises(ValueError, match="approval"):
        await loop.resume_turn(pending.token, False, policy=ON, owner="s1", arguments={})


async def test_an_edit_of_another_sessions_card_is_an_invalid_confirmation(world):
    loop, _, pending = await halted(world, [])
    with pytest.raises(InvalidConfirmation):
        await loop.resume_turn(
            pending.token, True, policy=ON, owner="s2", arguments={"query": "x y"}
        )
    assert world.confirmations.seconds_left(pending.token) > 0


async def test_denying_an_edited_card_tells_the_model_it_was_the_households_edit(world):
    loop, backend, pending = await halted(world, [ModelReply(), "Fine."])
    again = await loop.resume_turn(
        pending.token, True, policy=ON, owner="s1", arguments={"query": "westbrook primary"}
    )
    await loop.resume_turn(again.pending_confirmation.token, False, policy=ON, owner="s1")
    [framed] = tool_results(backend.requests[-1])
    assert framed["status"] == "denied"
    assert framed["household_edit"]["arguments"] == {"query": "westbrook primary"}
    assert world.sent == []
