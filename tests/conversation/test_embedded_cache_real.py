"""Prompt-state reuse on the real model: identical greedy output, states of the claimed size.

The verified default model is loaded once for the module with a small context.
A short sequence of production-sized requests (the service's system prompt and
tool catalog, ~1000 tokens, so a decision's prefix spans two llama.cpp batches) runs
through a runner that reuses what it evaluated (a decision's prefix live in the
KV cache, an answer's prefix partly live after a decision, saved prefixes
restored after another catalog overwrote the KV cache); each request then runs again on an empty KV
cache through a runner that keeps nothing, and the generated token ids are
compared one by one. Kept to six short requests: each fresh one re-reads its prompt.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from sovereign.conversation import ToolCatalog
from sovereign.conversation.backends.decision import (
    answer_messages,
    decision_messages,
    decision_schema,
)
from sovereign.conversation.backends.embedded.cache import PrefixStates
from sovereign.conversation.backends.embedded.llama import LlamaModel
from sovereign.conversation.backends.embedded.load import (
    json_schema_grammar,
    load_llama,
)
from sovereign.conversation.backends.embedded.run import Generation, Runner
from sovereign.conversation.voice.prompts import DEFAULT_SYSTEM_PROMPT
from sovereign.model import default_model_path
from sovereign.service.settings import Settings
from sovereign.service.wiring import build_registry, embedded_load_options

pytestmark = pytest.mark.slow


class Recording(LlamaModel):
    """The real model, keeping the ids of the tokens it generated."""

    def __init__(self, llama):
        super().__init__(llama)
        self.generated: list[int] = []

    def generate(self, tokens, *, temperature, grammar):
        for token in super().generate(tokens, temperature=temperature, grammar=grammar):
            self.generated.append(token)
            yield token


@pytest.fixture(scope="module")
def model():
    if importlib.util.find_spec("llama_cpp") is None or not default_model_path().is_file():
        pytest.fail("the embedded model is not installed; ./scripts/setup-embedded installs it")
    llama = load_llama(embedded_load_options(n_ctx=2048))
    yield Recording(llama)
    llama.close()


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory):
    tools = ToolCatalog.from_registry(
        build_registry(Settings(data_dir=tmp_path_factory.mktemp("d")))
    )
    everything = tools.tools()
    return everything, [t for t in everything if not t["function"]["name"].startswith("web_")]


def decision(question: str, tools) -> Generation:
    asked = [{"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
             {"role": "user", "content": question}]  # fmt: skip
    grammar = json_schema_grammar(json.dumps(decision_schema(tools), sort_keys=True))
    return Generation(messages=decision_messages(asked, tools), grammar=grammar,
                      max_tokens=24, temperature=0.0)  # fmt: skip


def answer(question: str) -> Generation:
    asked = [{"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
             {"role": "user", "content": question}]  # fmt: skip
    return Generation(messages=answer_messages(asked), max_tokens=12, temperature=0.0)


def requests(catalogs) -> list[Generation]:
    everything, local_only = catalogs
    return [
        decision("how hot is my device?", everything),  # prefix evaluated and saved
        decision("What is the capital of France?", everything),  # prefix live in the KV cache
        answer("What is the capital of France?"),  # its own prefix, partly live, saved
        decision("how hot is my device?", local_only),  # another catalog overwrites both
        decision("is the disk almost full?", everything),  # the first prefix, restored
        answer("Say good night to me."),  # the answer's prefix, restored
    ]


def test_reused_and_fresh_evaluations_generate_the_same_tokens(model, catalogs):
    states = PrefixStates()
    reusing, fresh = Runner(model, states), Runner(model, PrefixStates(0))
    model.truncate(0)
    reused = []
    for request in requests(catalogs):
        model.generated.clear()
        reused.append(("".join(reusing.pieces(request)), list(model.generated)))
    figures = states.figures()
    assert figures.hits == 2 and figures.entries == 3  # three prefixes, two restores
    for request, (text, tokens) in zip(requests(catalogs), reused, strict=True):
        model.truncate(0)
        model.generated.clear()
        assert "".join(fresh.pieces(request)) == text
        assert model.generated == tokens
    assert '"action": "system_health"' in reused[0][0]  # it really decided something
    prefixes = {tuple(t[:n]) for t, n in (reusing.tokens(r.messages) for r in requests(catalogs))}
    prefix_tokens = sum(map(len, prefixes))
    assert 20_000 * prefix_tokens < figures.bytes < 40_000 * prefix_tokens  # ~28 KiB a token
