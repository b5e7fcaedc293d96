"""How a turn ends when the product states household facts (answer.finish, the loop)."""

from __future__ import annotations

from sovereign.capabilities import home_assistant_facts, system
from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.executor import (
    AuditLog,
    Capability,
    ConfirmationStore,
    Effect,
    Executor,
    Locality,
    Registry,
)

from .test_facts import HEALTH, entity

MEMORY = "5.3 GB of memory is free, of 8.0 GB in all (33.8% in use)."


def loop_over(script, tmp_path, *capabilities):
    registry = Registry()
    for capability in capabilities:
        registry.add(capability)
    backend = ScriptedBackend(script)
    executor = Executor(registry, confirmations=ConfirmationStore(), audit=AuditLog(tmp_path))
    return TurnLoop(executor, backend), backend


def health(seen=None):
    async def execute(arguments):
        if seen is not None:
            seen.append(arguments)
        return dict(HEALTH)

    return Capability(
        name="system.health",
        version=1,
        description="health",
        arguments_schema={"type": "object", "properties": {}, "additionalProperties": False},
        result_schema={"type": "object"},
        effect=Effect.READ_ONLY,
        locality=Locality.LOCAL,
        execute=execute,
        facts=system.FACTS,
        phrases=system.PHRASES,
        max_invocations_per_turn=2,
    )


def lock():
    async def execute(arguments):
        return entity("unlocked", domain="lock", name="Back door")

    return Capability(
        name="home.lock",
        version=1,
        description="lock",
        arguments_schema={"type": "object"},
        result_schema={"type": "object"},
        effect=Effect.READ_ONLY,
        locality=Locality.LOCAL,
        execute=execute,
        facts=home_assistant_facts.GET_STATE_FACTS,
    )


def ask(text):
    return [{"role": "user", "content": text}]


async def test_a_household_read_is_answered_by_the_product_with_no_prose_from_the_model(
    tmp_path,
):
    seen = []
    script = [propose("system_health", {"facts": ["memory"]}), ModelReply(), "never asked"]
    loop, backend = loop_over(script, tmp_path, health(seen))
    shown = []

    async def sink(piece):
        shown.append(piece)

    result = await loop.process_turn(ask("How much memory is free?"), policy={}, owner="o",
                                     on_token=sink)  # fmt: skip
    assert result.text == MEMORY and shown == [MEMORY]
    assert seen == [{}]  # the facts the model named never reach the capability
    assert backend.remaining == 1 and all(r.tools is not None for r in backend.requests)
    (fact,) = result.facts
    assert MEMORY in fact.lines and len(fact.lines) > 1  # the panel says every topic


async def test_the_facts_are_said_in_the_questions_language(tmp_path):
    script = [propose("system_health", {"facts": ["memory"]}), ModelReply()]
    loop, _ = loop_over(script, tmp_path, health())
    result = await loop.process_turn(
        ask("Wie viel Arbeitsspeicher ist gerade frei?"), policy={}, owner="o"
    )
    assert result.text == (
        "5,3\u00a0GB Arbeitsspeicher sind frei, von insgesamt 8,0\u00a0GB (33,8\u00a0% belegt)."
    )


async def test_prose_for_the_rest_of_a_question_follows_the_facts_and_never_restates_them(
    tmp_path,
):
    script = [
        propose("home_lock"),
        propose("answer_the_rest"),
        "Yes, you locked the back door. Paris is the capital of France.",
    ]
    loop, backend = loop_over(script, tmp_path, lock())
    result = await loop.process_turn(
        ask("Did I lock the back door, and what is the capital of France?"), policy={}, owner="o"
    )
    assert result.text == "Back door is unlocked.\n\nParis is the capital of France."
    assert backend.requests[-1].tools is None
    assert "already told the person" in backend.requests[-1].messages[0]["content"]


async def test_a_household_figure_in_the_models_prose_is_asked_again_then_left_out(tmp_path):
    script = [
        propose("system_health", {"facts": ["memory"]}),
        propose("answer_the_rest"),
        "You have 5.3 GB free, which is plenty.",
        "About 41 GB are free.",
    ]
    loop, backend = loop_over(script, tmp_path, health())
    result = await loop.process_turn(ask("How much memory is free, and is it enough?"),
                                     policy={}, owner="o")  # fmt: skip
    assert result.text == MEMORY  # both tries stated a household figure: left out
    assert "5.3 is not among them" in backend.requests[-1].messages[0]["content"]


async def test_facts_the_model_did_not_name_are_the_summary(tmp_path):
    loop, _ = loop_over([propose("system_health", {"facts": "all"}), ModelReply()],
                        tmp_path, health())  # fmt: skip
    result = await loop.process_turn(ask("Is the little server alright?"), policy={}, owner="o")
    assert MEMORY in result.text and "no temperature sensor" in result.text
    assert "2 days and 5 hours" in result.text


async def test_a_read_that_answers_the_whole_question_ends_the_turn_with_one_decision(tmp_path):
    only = propose("system_health", {"facts": ["memory"], "also_asked": "nothing_else"})
    loop, backend = loop_over([only, "never asked"], tmp_path, health())
    result = await loop.process_turn(ask("How much memory is free?"), policy={}, owner="o")
    assert result.text == MEMORY
    assert len(backend.requests) == 1 and backend.remaining == 1


async def test_a_question_that_asks_more_than_the_read_is_decided_again(tmp_path):
    more = propose("system_health", {"facts": ["memory"], "also_asked": "something_else"})
    loop, backend = loop_over([more, propose("answer_the_rest"), "Paris."], tmp_path, health())
    result = await loop.process_turn(ask("Free memory, and the capital of France?"),
                                     policy={}, owner="o")  # fmt: skip
    assert result.text == f"{MEMORY}\n\nParis."
    assert len(backend.requests) == 3


async def test_a_read_that_failed_is_decided_again_even_when_it_would_have_been_enough(tmp_path):
    async def broken(arguments):
        raise OSError("no /proc")

    failing = health()
    failing = Capability(**{**vars(failing), "execute": broken})
    only = propose("system_health", {"facts": ["memory"], "also_asked": "nothing_else"})
    loop, backend = loop_over([only, ModelReply()], tmp_path, failing)
    result = await loop.process_turn(ask("How much memory is free?"), policy={}, owner="o")
    assert len(backend.requests) == 2  # nothing was stated: the model sees the failure
    assert MEMORY not in result.text and result.text


async def test_one_call_of_a_round_that_asks_more_keeps_the_turn_going(tmp_path):
    from sovereign.conversation.backends.base import ToolCall

    both = ModelReply(tool_calls=(
        ToolCall("a", "system_health", {"facts": ["memory"], "also_asked": "nothing_else"}),
        ToolCall("b", "home_lock", {"also_asked": "something_else"}),
    ))  # fmt: skip
    loop, backend = loop_over([both, ModelReply()], tmp_path, health(), lock())
    result = await loop.process_turn(ask("Memory, the back door, and a joke?"),
                                     policy={}, owner="o")  # fmt: skip
    assert len(backend.requests) == 2
    assert MEMORY in result.text and "Back door is unlocked." in result.text
