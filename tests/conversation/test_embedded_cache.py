"""Reuse of evaluated prompts in the embedded backend: correct, bounded, never stale (issue 14).

The stand-in model's output depends on what its KV cache really holds, so a
state put back for the wrong prompt would change the output, as it would on
the real model (``test_embedded_cache_real.py`` checks the same token for token there).
"""

from __future__ import annotations

import json

import pytest

from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.base import ContextTooLong, ModelError
from sovereign.conversation.backends.decision import decision_messages
from sovereign.conversation.backends.embedded.backend import EmbeddedBackend
from sovereign.conversation.backends.embedded.cache import PrefixStates
from sovereign.conversation.backends.embedded.run import Generation, Runner

from .conftest import ON
from .token_model import FakeModel


def tool(name: str, description: str = "A tool.") -> dict:
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


CATALOG = [tool("system_health"), tool("web_search", "Search the web.")]
OTHER_CATALOG = [tool("system_health")]
SYSTEM = {"role": "system", "content": "You are Sovereign."}


def ask(question: str, system: dict = SYSTEM) -> list[dict]:
    return [system, {"role": "user", "content": question}]


def run(runner: Runner, messages: list[dict]) -> str:
    return "".join(runner.pieces(Generation(messages=messages, max_tokens=50, temperature=0.0)))


def uncached(messages: list[dict], derived: int = 12) -> str:
    """The output of a fresh model that has evaluated nothing before."""
    return run(Runner(FakeModel(derived=derived), PrefixStates(0)), messages)


PROMPTS = [
    decision_messages(ask("how hot is my device?"), CATALOG),
    decision_messages(ask("and the disk?"), CATALOG),
    decision_messages(ask("how hot is my device?"), OTHER_CATALOG),  # another catalog
    ask("how hot is my device?", {"role": "system", "content": "You are Sovereign!"}),
    decision_messages(ask("search the web for heat pumps"), CATALOG),  # back to the first
    decision_messages(ask("how hot is my device?"), OTHER_CATALOG),
    ask("no system message at all"),
]


@pytest.mark.parametrize("bound", [0, 300, 10**9])
def test_cached_and_uncached_runs_give_the_same_output_token_for_token(bound):
    model = FakeModel(derived=12)
    runner = Runner(model, PrefixStates(bound))
    for messages in PROMPTS + PROMPTS[::-1]:
        assert run(runner, messages) == uncached(messages)
        assert model.kv[: len(model.ids)] == model.ids  # the KV cache is what it claims


def test_the_fixed_prefix_is_evaluated_once_then_only_new_tokens_are():
    model = FakeModel(derived=5)
    runner = Runner(model, PrefixStates())
    first = decision_messages(ask("how hot is my device?"), CATALOG)
    tokens, fixed = runner.tokens(first)
    run(runner, first)
    assert model.evaluated_tokens == len(tokens) + 5  # the prompt, then what it generated
    before = model.evaluated_tokens
    second = decision_messages(ask("and the disk?"), CATALOG)
    run(runner, second)
    new = len(runner.tokens(second)[0]) - fixed
    assert model.evaluated_tokens - before <= new + 5  # the question only, not the prefix
    assert fixed > 100 and model.restores == 0  # it was still live: nothing restored


def test_a_prefix_overwritten_by_another_catalog_comes_back_from_the_cache():
    model = FakeModel(derived=3)
    runner = Runner(model, PrefixStates())
    first = decision_messages(ask("how hot?"), CATALOG)
    run(runner, first)
    run(runner, decision_messages(ask("how hot?"), OTHER_CATALOG))
    before = model.evaluated_tokens
    again = decision_messages(ask("and the disk?"), CATALOG)
    assert run(runner, again) == uncached(again, 3)
    tokens, fixed = runner.tokens(again)
    assert model.restores == 1 and model.evaluated_tokens - before <= len(tokens) - fixed + 3


def test_a_changed_system_prompt_or_catalog_never_reuses_a_stale_state():
    states = PrefixStates()
    model = FakeModel(derived=4)
    runner = Runner(model, states)
    run(runner, decision_messages(ask("q"), CATALOG))
    # one character of the system prompt, one tool description, one tool name
    for system, catalog in [
        ({"role": "system", "content": "You are Sovereign?"}, CATALOG),
        (SYSTEM, [tool("system_health"), tool("web_search", "Search the web!")]),
        (SYSTEM, [tool("system_health"), tool("web_searcH", "Search the web.")]),
    ]:
        messages = decision_messages(ask("q", system), catalog)
        restores = model.restores
        assert run(runner, messages) == uncached(messages, 4)
        assert model.restores == restores  # nothing saved matched exactly: nothing restored
    assert states.figures().entries == 4 and states.figures().hits == 0


def test_the_cache_stays_inside_its_bound_dropping_the_least_recently_used():
    prompts = [ask("q", {"role": "system", "content": f"Prompt number {n:03d}."}) for n in range(6)]
    entry = _entry_bytes(prompts[0])
    states = PrefixStates(3 * entry)
    runner = Runner(FakeModel(derived=1), states)
    for messages in prompts:
        run(runner, messages)
        assert states.figures().bytes <= 3 * entry
    assert states.figures().entries == 3
    assert [states.holds(runner.tokens(p)[0][: runner.tokens(p)[1]]) for p in prompts] == [
        False, False, False, True, True, True,
    ]  # fmt: skip


def test_a_state_larger_than_the_bound_is_not_kept_and_a_negative_bound_is_refused():
    states = PrefixStates(_entry_bytes(ask("q")) - 1)
    run(Runner(FakeModel(derived=1), states), ask("q"))
    assert states.figures().entries == 0 and states.figures().bytes == 0
    with pytest.raises(ValueError, match=">= 0"):
        PrefixStates(-1)


def test_a_state_the_model_refuses_to_restore_is_dropped_and_evaluated_afresh_next():
    model = FakeModel(derived=2)
    states = PrefixStates()
    runner = Runner(model, states)
    first = decision_messages(ask("q"), CATALOG)
    run(runner, first)
    run(runner, decision_messages(ask("q"), OTHER_CATALOG))  # the first prefix is not live now

    def refuse(tokens, state):
        raise ModelError("the embedded model could not restore a saved prompt state")

    model.restore = refuse
    with pytest.raises(ModelError, match="could not restore"):
        run(runner, first)
    assert states.figures().entries == 1  # only the other catalog's state is left
    assert run(runner, first) == uncached(first, 2)  # evaluated afresh, saved again
    assert states.figures().entries == 2


def test_a_prompt_longer_than_the_context_is_refused_before_anything_is_evaluated():
    model = FakeModel(derived=1)
    messages = decision_messages(ask("q"), CATALOG)
    model.n_ctx = len(Runner(model, PrefixStates()).tokens(messages)[0])
    with pytest.raises(ContextTooLong, match="longer than the model's context"):
        run(Runner(model, PrefixStates()), messages)
    assert model.evaluated_tokens == 0


def _entry_bytes(messages: list[dict]) -> int:
    """The size of the saved state of ``messages``' fixed prefix on the stand-in model."""
    states = PrefixStates()
    run(Runner(FakeModel(derived=1), states), messages)
    return states.figures().bytes


# --- one pass per turn through the backend --------------------------------------------------


def backend_over(model: FakeModel) -> EmbeddedBackend:
    return EmbeddedBackend(loader=lambda _options: model)


async def test_the_answer_after_an_answer_decision_reads_only_the_question_again():
    """The answer keeps its own layout (the system prompt alone, then the conversation);
    its system prompt's state is kept like the decision's, so a warm turn pays for the
    question twice and for nothing else."""
    model = FakeModel(replies=['{"action": "answer"}'] * 2, pieces=["Canberra."])
    backend = backend_over(model)
    for _ in range(2):  # the second turn finds both prefixes saved
        question = ask("What is the capital of Australia?")
        assert (await backend.complete(question, tools=CATALOG)).tool_calls == ()
        assert (await backend.complete(question, tools=None)).content == "Canberra."
    decision, answer = model.prompts[-2:]
    opening = model.render([SYSTEM], generation_prompt=False)
    assert answer["text"].startswith(opening) and "web_search" not in answer["text"]
    assert answer["text"].endswith("<user>What is the capital of Australia?</user><assistant>")
    assert answer["read"] == len(answer["text"]) - len(opening)  # the question only
    fixed = len(model.render([decision_messages(question, CATALOG)[0]], generation_prompt=False))
    assert decision["read"] == len(decision["text"]) - fixed
    assert model.restores == 2  # the second turn: the decision prefix, then the answer prefix


async def test_close_drops_every_saved_state():
    model = FakeModel(replies=['{"action": "answer"}'])
    backend = backend_over(model)
    await backend.complete(ask("q"), tools=CATALOG)
    assert backend.cache_figures().entries == 1
    backend.close()
    assert backend.cache_figures().entries == 0


async def test_an_answer_after_tool_results_is_written_without_the_decision_and_catalog():
    model = FakeModel(replies=['{"action": "answer"}'], pieces=["It is 52 C."])
    backend = backend_over(model)
    history = [
        *ask("how hot is my device?"),
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "system_health", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": json.dumps({"untrusted_data": {"cpu_temperature_celsius": 52}})},
    ]  # fmt: skip
    assert (await backend.complete(history, tools=CATALOG)).tool_calls == ()
    assert (await backend.complete(history, tools=None)).content == "It is 52 C."
    answer_prompt = model.prompts[-1]["text"]
    assert answer_prompt.startswith("<system>You are Sovereign.</system><user>how hot")
    assert "web_search" not in answer_prompt and '{"action"' not in answer_prompt
    assert "cpu_temperature_celsius" in answer_prompt


# --- through the turn loop ------------------------------------------------------------------


async def test_through_the_turn_loop_a_warm_no_tool_turn_reads_only_its_question(world):
    """Through the turn loop's own requests (its system prompt, its offered tools), the
    second question answered without a tool reads its question once for the decision
    and once for the answer, and no fixed prefix again."""
    model = FakeModel(replies=['{"action": "answer"}'] * 2, pieces=["Canberra."])
    loop = TurnLoop(world.executor, backend_over(model), pending=world.pending)
    for question in ("What is the capital of France?", "What is the capital of Australia?"):
        asked = [{"role": "user", "content": question}]
        assert (await loop.process_turn(asked, policy=ON, owner="o")).text == "Canberra."
    decision, answer = model.prompts[-2:]
    assert decision["grammar"] is not None and answer["grammar"] is None
    asked = "<user>What is the capital of Australia?</user><assistant>"
    assert decision["text"].endswith(asked) and answer["text"].endswith(asked)
    assert decision["read"] == len(asked) and answer["read"] == len(asked)
    assert len(decision["text"]) > 10 * len(asked)  # the fixed prefix was not read again
