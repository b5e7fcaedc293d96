"""The verified default model as a judge of passages (issue 30): the real logits.

The embedded backend reads "yes" and "no" off the real model's last evaluated token
(``llama_get_logits_ith``, without ``logits_all``). A passage that states the answer
must be judged likelier than one that shares the question's words and says nothing
of it, in English and in another language, and the same prompt judged again (its
system message from the KV cache or restored, the rest evaluated in other batches)
must give the same odds, to within what llama.cpp's batch shapes change (a few
hundredths).
"""

from __future__ import annotations

import importlib.util

import pytest

from sovereign.conversation.backends.embedded.backend import EmbeddedBackend
from sovereign.conversation.judge import judge_messages
from sovereign.model import default_model_path
from sovereign.service.wiring import embedded_load_options

pytestmark = pytest.mark.slow

CASES = [
    (
        "What time does the Ashcombe Christmas market open on Saturday?",
        ("Ashcombe Christmas Market", "Stalls open on Saturday 6 December from 9:30am."),
        ("Ashcombe Christmas Market", "Parking in Ashcombe costs £2 an hour in the town."),
    ),
    (
        "Welche Apotheke hat am Sonntag Notdienst?",
        ("Notdienste", "Sonntag, 7. Dezember: Stadt-Apotheke, Marktplatz 3, 8 bis 20 Uhr."),
        ("Notdienste", "Unsere Apotheke misst auch Ihren Blutdruck, ohne Termin."),
    ),
]


@pytest.fixture(scope="module")
def backend():
    if importlib.util.find_spec("llama_cpp") is None or not default_model_path().is_file():
        pytest.fail("the embedded model is not installed; ./scripts/setup-embedded installs it")
    backend = EmbeddedBackend(load=embedded_load_options(n_ctx=1024))
    yield backend
    backend.close()


@pytest.mark.parametrize(("question", "answer", "other"), CASES, ids=["en", "de"])
async def test_the_passage_that_answers_is_judged_likelier(backend, question, answer, other):
    prompts = [judge_messages(question, *answer), judge_messages(question, *other)]
    answers, says_nothing = await backend.yes_odds(prompts)
    assert answers > says_nothing


async def test_the_same_prompt_judged_again_from_the_cache_gives_the_same_odds(backend):
    prompt = judge_messages(CASES[0][0], *CASES[0][1])
    other = judge_messages(CASES[1][0], *CASES[1][1])
    first, _, again = await backend.yes_odds([prompt, other, prompt])
    (alone,) = await backend.yes_odds([prompt])
    assert first == pytest.approx(again, abs=0.1) and first == pytest.approx(alone, abs=0.1)
