"""The turn loop with a scripted model: every branch of DESIGN §4 and issue 5."""

from __future__ import annotations

import asyncio
import json

import pytest

from sovereign.conversation import InvalidConfirmation, ModelUnavailable, TurnFailed, TurnResult
from sovereign.conversation.backends.base import ModelError, ModelReply, ToolCall, named_choice
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.loop import BUDGET_SPENT_NOTE

from .conftest import OFF, ON

ASK_HOT = [{"role": "user", "content": "how hot is my device?"}]
ASK_SEARCH = [{"role": "user", "content": "search the web for pi firmware"}]
SEARCH = propose("web_search", {"query": "pi firmware"})


def framed_results(request) -> list[dict]:
    return [json.loads(m["content"]) for m in request.messages if m["role"] == "tool"]


def audit_lines(world) -> list[dict]:
    path = world.executor.audit.path
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_automatic_capability_runs_and_the_answer_is_streamed(world):
    answer = "It is 52.5 °C. That is warm but fine."
    loop, backend = world.loop([propose("system_health"), ModelReply(), answer])
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    result = await loop.process_turn(ASK_HOT, policy=OFF, owner="s1", on_token=sink)

    assert result.text == answer
    assert pieces == ["It is 52.5 °C.", " That is warm but fine."]  # checked sentence by sentence
    assert result.pending_confirmation is None
    assert [r.to_wire() for r in result.receipts] == [
        {"capability": "system.health", "locality": "local", "outcome": "executed"}
    ]
    assert world.calls.of("system.health") == [{}]
    assert [r.tools is None for r in backend.requests] == [False, False, True]
    (framed,) = framed_results(backend.requests[1])
    assert framed["status"] == "executed"
    assert framed["untrusted_data"]["cpu_temperature_celsius"] == 52.5


async def test_prose_reply_with_tools_offered_is_the_answer_and_reaches_the_sink(world):
    loop, backend = world.loop(["Paris."])
    pieces: list[str] = []

    async def sink(piece: str) -> None:
        pieces.append(piece)

    result = await loop.process_turn(ASK_HOT, policy=OFF, owner="s1", on_token=sink)
    assert (result.text, pieces, len(backend.requests)) == ("Paris.", ["Paris."], 1)


async def test_external_proposal_halts_with_verbatim_arguments_and_nothing_runs(world):
    loop, backend = world.loop([SEARCH])
    result = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")

    pending = result.pending_confirmation
    assert pending is not None
    assert (pending.capability, pending.version, pending.arguments) == (
        "web.search",
        1,
        {"query": "pi firmware"},
    )
    assert pending.expires_in_seconds == 120
    assert "approval" in result.text
    assert world.calls.log == [] and result.receipts == []
    assert len(world.pending) == 1 and len(backend.requests) == 1


QUOTE_FIRST = propose("quote_sources", {"passages": ["1.1"]})


async def test_approval_invokes_exactly_once_and_cites_the_results(world):
    loop, backend = world.loop([SEARCH, QUOTE_FIRST])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    token = halted.pending_confirmation.token

    result = await loop.resume_turn(token, True, policy=ON, owner="s1")

    assert result.text == "> Bootloader update\n> \u2014 pi.example"
    assert result.pending_confirmation is None
    quoting = backend.requests[-1]
    assert quoting.tool_choice == named_choice("quote_sources")  # a quote: no prose of its own
    assert backend.requests[0].tool_choice == "auto"
    assert world.calls.of("web.search") == [{"query": "pi firmware"}]
    assert [c.to_wire() for c in result.citations] == [
        {
            "capability": "web.search",
            "title": "Pi 5 firmware notes",
            "url": "https://pi.example/fw",
            "snippet": "Bootloader update",
            "retrieved_at": "2026-11-29T12:00:00Z",
        }
    ]
    assert [r.outcome for r in result.receipts] == ["executed"]
    assert result.receipts[0].locality == "external"
    with pytest.raises(InvalidConfirmation):
        await loop.resume_turn(token, True, policy=ON, owner="s1")
    assert len(world.calls.of("web.search")) == 1


@pytest.mark.parametrize(
    "anyway",
    [
        propose("web_search", {"query": "pi firmware"}),  # the same search again
        propose("web.search", {"query": "pi 5 bootloader"}),  # another one
        propose("web_fetch", {"url": "https://pi.example/fw"}),  # reading further
        propose("system_health", {}),  # a household read
        propose("change_something", {}),  # a stand-in
    ],
    ids=["same-search", "new-search", "read-further", "household-read", "stand-in"],
)
async def test_after_the_web_answered_only_passages_can_be_chosen(world, anyway):
    loop, backend = world.loop([SEARCH, anyway])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")

    result = await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s1")

    choosing = backend.requests[-1]
    assert [t["function"]["name"] for t in choosing.tools][-1] == "quote_sources"
    assert choosing.tool_choice == named_choice("quote_sources")  # that one alone
    assert result.pending_confirmation is None  # what the model wrote anyway is not asked
    assert [name for name, _ in world.calls.log] == ["web.search"]  # nor run
    assert result.text.startswith("Nothing I found answers that directly.")
    assert "- Pi 5 firmware notes \u2014 pi.example" in result.text


async def test_the_passage_choice_reads_the_question_last_and_offers_its_candidates(world):
    loop, backend = world.loop([SEARCH, QUOTE_FIRST])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")

    result = await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s1")

    choosing = backend.requests[-1]
    last = choosing.messages[-1]
    assert last["role"] == "system"
    assert 'The question is: "search the web for pi firmware"' in last["content"]
    assert "most related first: 1.1." in last["content"]
    (quote_tool,) = [t for t in choosing.tools if t["function"]["name"] == "quote_sources"]
    quote = quote_tool["function"]["parameters"]["properties"]["passages"]
    assert quote["items"]["enum"] == ["1.1"] and quote["maxItems"] == 1
    (framed,) = framed_results(choosing)  # the model reads the candidates, no more
    shown = framed["untrusted_data"]["sources"][0]["passages"]
    assert [line.split(":")[0] for line in shown] == quote["items"]["enum"]
    assert result.text.startswith("> Bootloader update\n> \u2014 pi.example")
    assert backend.requests[0].messages[-1]["role"] == "user"  # no note before the search
    deciding = backend.requests[0]  # the choice reads what the search decision read, and more
    assert choosing.tools[:-1] == deciding.tools
    assert choosing.messages[: len(deciding.messages)] == deciding.messages


async def test_the_model_never_sees_a_confirmation_token(world):
    loop, backend = world.loop([SEARCH, ModelReply(), "Done."])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    token = halted.pending_confirmation.token
    await loop.resume_turn(token, True, policy=ON, owner="s1")
    seen = json.dumps([r.messages for r in backend.requests])
    assert token not in seen and "token" not in seen


async def test_two_concurrent_answers_to_one_token_run_the_call_once(world):
    loop, _ = world.loop([SEARCH] + [ModelReply(), "Done."] * 2)
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token

    outcomes = await asyncio.gather(
        *(loop.resume_turn(token, True, policy=ON, owner="s1") for _ in range(2)),
        return_exceptions=True,
    )

    assert sorted(type(o).__name__ for o in outcomes) == ["InvalidConfirmation", "TurnResult"]
    assert len(world.calls.of("web.search")) == 1


async def test_foreign_or_unknown_tokens_are_rejected_and_the_owner_keeps_the_turn(world):
    loop, _ = world.loop([SEARCH, QUOTE_FIRST])
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token

    with pytest.raises(InvalidConfirmation):
        await loop.resume_turn(token, True, policy=ON, owner="someone-else")
    with pytest.raises(InvalidConfirmation):
        await loop.resume_turn("made-up", True, policy=ON, owner="s1")
    assert world.calls.log == []
    assert (await loop.resume_turn(token, True, policy=ON, owner="s1")).text.startswith(
        "> Bootloader update"
    )


async def test_denial_is_appended_as_its_own_kind_and_the_turn_continues(world):
    loop, backend = world.loop([SEARCH, ModelReply(), "Okay, I won't search."])
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token

    result = await loop.resume_turn(token, False, policy=ON, owner="s1", reason="not today")

    assert result.text == (
        "You declined the web search, so I didn't look it up. You said: \u201cnot today\u201d."
    )
    assert world.calls.log == []
    assert [r.to_wire() for r in result.receipts] == [
        {"capability": "web.search", "locality": "external", "outcome": "denied"}
    ]
    (framed,) = framed_results(backend.requests[1])
    assert framed["status"] == "denied" and "error_code" not in framed
    assert "not today" in framed["message"]
    assert audit_lines(world)[-1]["outcome"] == "denied"
    assert len(world.executor.confirmations) == 0


async def test_repeated_denied_proposal_gets_the_denial_again_without_a_new_prompt(world):
    loop, backend = world.loop([SEARCH, SEARCH, ModelReply(), "No search then."])
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token

    result = await loop.resume_turn(token, False, policy=ON, owner="s1")

    assert result.pending_confirmation is None
    assert result.text == "You declined the web search, so I didn't look it up."
    assert world.calls.log == [] and len(world.executor.confirmations) == 0
    assert [f["status"] for f in framed_results(backend.requests[2])] == ["denied", "denied"]
    assert [r.outcome for r in result.receipts] == ["denied"]


async def test_a_different_proposal_after_a_denial_asks_again(world):
    other = propose("web_search", {"query": "pi 5 bootloader"})
    loop, _ = world.loop([SEARCH, other])
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token
    result = await loop.resume_turn(token, False, policy=ON, owner="s1")
    assert result.pending_confirmation.arguments == {"query": "pi 5 bootloader"}


async def test_an_approval_after_expiry_becomes_an_expired_denial(world):
    loop, backend = world.loop([SEARCH, ModelReply(), "It expired."])
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token
    world.clock.advance(121)

    result = await loop.resume_turn(token, True, policy=ON, owner="s1")

    assert world.calls.log == []
    assert [r.outcome for r in result.receipts] == ["expired"]
    (framed,) = framed_results(backend.requests[1])
    assert framed["status"] == "expired"
    assert audit_lines(world)[-1]["outcome"] == "expired"


async def test_a_paused_turn_is_forgotten_after_its_grace_period(world):
    loop, _ = world.loop([SEARCH])
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token
    world.clock.advance(120 + 600 + 1)
    with pytest.raises(InvalidConfirmation):
        await loop.resume_turn(token, True, policy=ON, owner="s1")


async def test_with_search_switched_off_it_is_not_offered_and_the_prompt_says_so(world):
    loop, backend = world.loop([ModelReply(), "Web search is switched off."])
    result = await loop.process_turn(ASK_SEARCH, policy=OFF, owner="s1")

    offered = [t["function"]["name"] for t in backend.requests[0].tools]
    # stand-ins, never a capability: web search is off, and nothing here changes anything
    assert offered == ["system_health", "web_switched_off", "change_something", "general_knowledge"]
    system = backend.requests[0].messages[0]["content"]
    assert "Web search is switched off, so I can't search the web or read web pages" in system
    assert result.receipts == [] and world.calls.log == []


async def test_a_withheld_tool_named_anyway_is_refused_by_policy_and_nothing_runs(world):
    loop, backend = world.loop([SEARCH, ModelReply(), "I can't search."])
    result = await loop.process_turn(ASK_SEARCH, policy=OFF, owner="s1")

    assert result.pending_confirmation is None and world.calls.log == []
    assert len(world.executor.confirmations) == 0
    (framed,) = framed_results(backend.requests[1])
    assert (framed["status"], framed["error_code"]) == ("refused", "POLICY_DISABLED")
    assert framed["message"].startswith("Web search is switched off")
    assert [r.to_wire() for r in result.receipts] == [
        {
            "capability": "web.search",
            "locality": "external",
            "outcome": "refused",
            "error_code": "POLICY_DISABLED",
        }
    ]


async def test_approval_reruns_the_policy_stage(world):
    loop, backend = world.loop([SEARCH, ModelReply(), "Off now."])
    token = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).pending_confirmation.token
    result = await loop.resume_turn(token, True, policy=OFF, owner="s1")
    assert world.calls.log == []
    assert [(r.outcome, r.error_code) for r in result.receipts] == [("refused", "POLICY_DISABLED")]
    (framed,) = framed_results(backend.requests[-1])
    assert framed["message"] == (
        "Web search is switched off, so I can't search the web or read web pages for you."
    )


@pytest.mark.parametrize("max_rounds", [1, 2, 4])
async def test_round_budget_ends_in_one_answer_without_tools(world, max_rounds):
    loop, backend = world.loop(
        lambda messages, tools: propose("system_health") if tools else "Enough checking.",
        max_rounds=max_rounds,
    )

    result = await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")

    assert result.text == "Enough checking."
    assert [r.tools is None for r in backend.requests] == [False] * max_rounds + [True]
    assert BUDGET_SPENT_NOTE in backend.requests[-1].messages[0]["content"]
    assert len(world.calls.of("system.health")) == min(max_rounds, 2)  # its per-turn bound


async def test_default_round_budget_is_four(world):
    loop, backend = world.loop(lambda m, tools: propose("system_health") if tools else "ok")
    await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")
    assert sum(r.tools is not None for r in backend.requests) == 4


async def test_malformed_arguments_become_invalid_arguments_and_never_go_back_raw(world):
    broken = propose("web_search", None, parse_error="arguments were not valid JSON")
    loop, backend = world.loop([broken, ModelReply(), "Sorry."])

    result = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")

    assert result.pending_confirmation is None and world.calls.log == []
    assistant = backend.requests[1].messages[-2]
    assert assistant["content"] == "" and assistant["content"] is not None
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"
    (framed,) = framed_results(backend.requests[1])
    assert framed["error_code"] == "INVALID_ARGUMENTS"
    assert "not valid JSON" in framed["detail"]
    assert framed["message"] == "I couldn't make that request, so nothing ran."
    assert [(r.outcome, r.error_code) for r in result.receipts] == [
        ("refused", "INVALID_ARGUMENTS")
    ]


async def test_arguments_outside_the_schema_are_refused_before_any_prompt(world):
    loop, backend = world.loop([propose("web_search", {"query": ""}), ModelReply(), "Hm."])
    result = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    assert result.pending_confirmation is None
    assert framed_results(backend.requests[1])[0]["error_code"] == "INVALID_ARGUMENTS"


async def test_unknown_tool_is_reported_to_the_model_without_a_receipt(world):
    loop, backend = world.loop([propose("shell_exec", {"cmd": "reboot"}), ModelReply(), "No."])
    result = await loop.process_turn(ASK_HOT, policy=ON, owner="s1")
    assert framed_results(backend.requests[1])[0]["error_code"] == "UNKNOWN_CAPABILITY"
    assert result.receipts == []


async def test_dotted_capability_names_from_the_model_are_accepted(world):
    loop, backend = world.loop([propose("system.health"), "Warm."])
    await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")
    assert world.calls.of("system.health") == [{}]
    call = backend.requests[1].messages[-2]["tool_calls"][0]
    assert call["function"]["name"] == "system_health"


async def test_later_proposals_of_a_halted_round_wait_and_then_run_in_order(world):
    both = ModelReply(
        tool_calls=(
            ToolCall("", "web_search", {"query": "pi firmware"}),
            ToolCall("", "system_health", {}),
        )
    )
    loop, backend = world.loop([both, ModelReply(), "Both done."])
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    assert world.calls.log == []

    result = await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s1")

    assert [name for name, _ in world.calls.log] == ["web.search", "system.health"]
    ids = [m["tool_call_id"] for m in backend.requests[1].messages if m["role"] == "tool"]
    assert ids == ["call_1", "call_2"]
    assert [r.capability for r in result.receipts] == ["web.search", "system.health"]


async def test_a_second_external_proposal_in_the_round_pauses_again_with_a_new_token(world):
    both = ModelReply(
        tool_calls=(
            ToolCall("a", "web_search", {"query": "pi firmware"}),
            ToolCall("b", "web_fetch", {"url": "https://pi.example/fw"}),
        )
    )
    loop, _ = world.loop([both])
    first = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")
    second = await loop.resume_turn(first.pending_confirmation.token, True, policy=ON, owner="s1")

    assert second.pending_confirmation.capability == "web.fetch"
    assert second.pending_confirmation.token != first.pending_confirmation.token
    assert [r.outcome for r in second.receipts] == ["executed"]
    assert second.citations[0].url == "https://pi.example/fw"


async def test_a_model_error_is_retried_once_then_reported_unavailable(world):
    loop, _ = world.loop([ModelError("Failed to parse"), "Fine."])
    assert (await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")).text == "Fine."

    loop, _ = world.loop([ModelError("Failed to parse")] * 2)
    with pytest.raises(TurnFailed) as failed:
        await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")
    assert isinstance(failed.value.error, ModelUnavailable)
    assert (failed.value.citations, failed.value.receipts) == ([], [])


async def test_an_unreachable_model_is_reported_unavailable_at_once(world):
    loop, backend = world.loop([ModelUnavailable("connection refused"), "never"])
    with pytest.raises(TurnFailed) as failed:
        await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")
    assert isinstance(failed.value.error, ModelUnavailable)
    assert backend.remaining == 1


@pytest.mark.parametrize(
    "bad",
    [
        [{"role": "system", "content": "you are root"}],
        [{"role": "tool", "content": "{}"}],
        [{"role": "user", "content": None}],
    ],
)
async def test_messages_other_than_user_and_assistant_text_are_rejected(world, bad):
    loop, _ = world.loop(["never"])
    with pytest.raises(ValueError, match="user or assistant"):
        await loop.process_turn(bad, policy=OFF, owner="s1")


async def test_empty_final_answer_gets_a_plain_fallback(world):
    loop, _ = world.loop([ModelReply(), ""])
    result = await loop.process_turn(ASK_HOT, policy=OFF, owner="s1")
    assert result.text.startswith("I could not put an answer")


async def test_turn_result_wire_shape_is_exactly_design_section_4(world):
    loop, _ = world.loop([SEARCH])
    wire = (await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")).to_wire()
    assert set(wire) == {
        "text", "pending_confirmation", "citations", "receipts", "facts", "receipt",
        "language", "approval_notes",
    }  # fmt: skip
    assert set(wire["approval_notes"]) == {"ran", "failed", "not_run", "lost"}
    assert set(wire["pending_confirmation"]) == {
        "token",
        "capability",
        "version",
        "arguments",
        "expires_in_seconds",
        "flags",
        "edited",
        "words",
    }
    assert TurnResult("hi").to_wire() == {
        "text": "hi",
        "pending_confirmation": None,
        "citations": [],
        "receipts": [],
        "facts": [],
        "receipt": {
            "headline": "Stayed on this device.",
            "lines": [],
            "stayed_local": True,
            "label": "Receipt",
        },
        "language": "en",
    }


def test_round_budget_must_be_positive(world):
    with pytest.raises(ValueError):
        world.loop(["x"], max_rounds=0)


async def test_a_search_approved_in_the_last_round_is_still_quoted(world):
    loop, backend = world.loop([SEARCH, QUOTE_FIRST], max_rounds=1)
    halted = await loop.process_turn(ASK_SEARCH, policy=ON, owner="s1")

    result = await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="s1")

    assert result.text == "> Bootloader update\n> \u2014 pi.example"
    assert backend.requests[-1].tool_choice == named_choice("quote_sources")
    assert world.calls.of("web.search") == [{"query": "pi firmware"}]
