"""Query hygiene: SearXNG's query syntax cannot change where an approved query goes.

SearXNG splits ``q`` with ``re.split(r'(\\s+)')`` and hands *every* word to the parsers
in searx/query.py ``RawTextQuery.PARSER_CLASSES``, each keyed on the word's first
characters (``<`` timeout, ``:`` language, ``!!bang`` external redirect, ``!bang``
engine/category, ``!!`` redirect to the first result). ``acted_on`` below restates
those ``check()`` functions, so the tests state what SearXNG would see.
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sovereign.capabilities import web_search
from sovereign.capabilities.searxng import FIRST_WORD_TRIGGERS, NEUTRAL_MARK, prepare_query
from sovereign.executor import AuditLog, ErrorCode, Executor, OutcomeKind, Registry, TurnState
from tests.fakes.searxng import FakeSearxng


def searxng_words(q: str) -> list[str]:
    """The words SearXNG's parser looks at (searx/query.py ``_parse_query``)."""
    return [part for part in re.split(r"(\s+)", q) if part and not part.isspace()]


def acted_on(word: str) -> bool:
    """True when any of SearXNG's query parsers would try to read ``word``."""
    return word[0] in "<:" or word.startswith("!")


@pytest.mark.parametrize(
    ("approved", "sent"),
    [
        ("solar panel cleaning", "solar panel cleaning"),
        ("!!wp solar panel cleaning", ".!!wp solar panel cleaning"),
        ("!lh solar panel cleaning", ".!lh solar panel cleaning"),
        (":de solar panel cleaning", ".:de solar panel cleaning"),
        ("<3 emoji meaning", ".<3 emoji meaning"),
        ("!! solar panel cleaning", ".!! solar panel cleaning"),
        ("solar panels !images :fr <850", "solar panels .!images .:fr .<850"),
        ("random uuid", ".random uuid"),
        ("Time Berlin", ".Time Berlin"),
        ("avg 1 2 3", ".avg 1 2 3"),
        ("what time is it in Berlin", "what time is it in Berlin"),
        ("  solar \t panel\n cleaning  ", "solar panel cleaning"),
        ("what does :) mean", "what does .:) mean"),
        ("e-mail me! now", "e-mail me! now"),
    ],
)
def test_prepare_query_neutralises_only_what_searxng_would_act_on(approved, sent):
    assert prepare_query(approved) == sent


def test_prepare_query_rejects_whitespace_only():
    with pytest.raises(ValueError, match="whitespace"):
        prepare_query(" \u3000\t\n")


@given(st.text(min_size=1, max_size=80).filter(lambda text: text.split()))
def test_no_word_of_a_prepared_query_is_searxng_syntax(text):
    words = searxng_words(prepare_query(text))
    assert not any(acted_on(word) for word in words)
    assert words[0].lower() not in FIRST_WORD_TRIGGERS


@given(st.text(min_size=1, max_size=80).filter(lambda text: text.split()))
def test_a_prepared_query_keeps_every_approved_character_in_order(text):
    sent_words = prepare_query(text).split(" ")
    approved_words = text.split()
    assert len(sent_words) == len(approved_words)
    for sent, approved in zip(sent_words, approved_words, strict=True):
        assert sent in (approved, NEUTRAL_MARK + approved)


def test_python_split_and_searxngs_regex_agree_on_whitespace():
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\s", chr(c))]
    assert spaces == [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]


# --- through the capability and the fake --------------------------------------------


@pytest.fixture
def fake():
    with FakeSearxng() as server:
        yield server


@pytest.fixture
def executor(tmp_path, fake):
    registry = Registry()
    web_search.register(registry, base_url=fake.base_url)
    return Executor(registry, audit=AuditLog(tmp_path))


async def approved_search(executor, query):
    arguments = {"query": query}
    proposed = await executor.invoke(
        "web.search", 1, arguments, policy={"external_enabled": True}, turn_state=TurnState()
    )
    token = executor.confirmations.issue("web.search", 1, proposed.arguments)
    return await executor.invoke(
        "web.search", 1, arguments, policy={"external_enabled": True},
        turn_state=TurnState(), confirmation_token=token,
    )


@pytest.mark.parametrize(
    "query",
    ["!!wp solar panel cleaning", "!lh solar panel cleaning", ":de solar panel cleaning",
     "solar panel cleaning !!", "<1 solar panel cleaning", "random uuid", "time Berlin"],
)
async def test_syntax_in_the_approved_query_reaches_searxng_neutralised(executor, fake, query):
    outcome = await approved_search(executor, query)
    (request,) = fake.requests
    assert not any(acted_on(word) for word in searxng_words(request.q))
    assert request.q.replace(NEUTRAL_MARK, "") == query.replace(NEUTRAL_MARK, "")
    assert outcome.kind is OutcomeKind.EXECUTED
    assert outcome.result["query"] == request.q


async def test_a_query_rewritten_by_searxng_anyway_is_a_failure(executor, fake):
    # Replay verbatim: SearXNG echoed "solar panel cleaning" after acting on "!lh".
    fake.answer("/search", "search_bang_engine_shortcut", echo_query=False)
    outcome = await approved_search(executor, "lh solar panel cleaning")
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "syntax" in outcome.message


async def test_a_built_in_answer_instead_of_a_search_is_a_failure(executor, fake):
    fake.answer("/search", "search_answerer_random_uuid")
    outcome = await approved_search(executor, "random uuid")
    assert outcome.error_code is ErrorCode.EXECUTION_FAILED
    assert "answerer" in outcome.message
