"""web.search with the household's language and safe search: part of the canonical
arguments (shown, bound, sent), never chosen by the model (DESIGN §4, egress settings)."""

from __future__ import annotations

import json

import pytest

from sovereign.capabilities import web_search
from sovereign.egress import LANGUAGES, SearchSettings, describe_search, parse_search_settings
from sovereign.executor import AuditLog, ErrorCode, Executor, OutcomeKind, Registry, TurnState
from tests.fakes.searxng import FakeSearxng
from tests.fixtures import SEARXNG

POLICY = {"external_enabled": True}
QUERY = "solar panel cleaning"


@pytest.fixture
def fake():
    with FakeSearxng() as server:
        yield server


class Household:
    """Search settings a test can change between the card and the approval."""

    def __init__(self, settings: SearchSettings) -> None:
        self.settings = settings

    def __call__(self) -> SearchSettings:
        return self.settings


def build(tmp_path, base_url, household):
    registry = Registry()
    web_search.register(registry, base_url=base_url, search_settings=household)
    return Executor(registry, audit=AuditLog(tmp_path))


async def invoke(executor, arguments, token=None):
    return await executor.invoke(
        "web.search", 1, arguments, policy=POLICY, turn_state=TurnState(),
        confirmation_token=token,
    )


def test_the_language_list_is_searxngs_own():
    captured = (SEARXNG / "sxng_locale_tags.txt").read_text().split()
    assert list(LANGUAGES) == captured


@pytest.mark.parametrize("code", ["de", "en-GB", "pt-BR", "zh-TW", "fil", "auto", "all"])
def test_a_searxng_language_code_is_accepted(code):
    assert SearchSettings(code, 2).language == code


@pytest.mark.parametrize(
    "code", ["english", "DE", "de-de", "de_DE", "xx", "en-XX", "", " de", "de ", ":de", "auto\n", 7]
)
def test_anything_else_is_refused_with_a_sentence(code):
    with pytest.raises(ValueError, match="not a SearXNG language code"):
        SearchSettings(code, 0)


@pytest.mark.parametrize("level", [-1, 3, 1.0, True, "1", None])
def test_safesearch_is_exactly_0_1_or_2(level):
    with pytest.raises(ValueError, match="safesearch"):
        SearchSettings("de", level)


@pytest.mark.parametrize(
    "value",
    [[], {"language": "de"}, {"safesearch": 1}, {"language": "de", "safesearch": 1, "x": 1}],
)
def test_a_settings_object_needs_both_keys_and_nothing_else(value):
    with pytest.raises(ValueError):
        parse_search_settings(value)


@pytest.mark.parametrize(
    ("language", "level", "words"),
    [("de", 1, "in German, safe search moderate"),
     ("en-GB", 2, "in English (United Kingdom), safe search strict"),
     ("auto", 0, "in any language (the search service chooses), safe search off"),
     ("all", 0, "in all languages, safe search off")],
)
def test_the_card_words_name_the_language_and_the_level(language, level, words):
    assert describe_search(language, level) == words


def test_the_model_is_never_offered_the_household_settings():
    registry = Registry()
    web_search.register(registry)
    (definition,) = registry.tool_definitions()
    assert set(definition["parameters"]["properties"]) == {"query", "time_range"}


async def test_the_card_and_the_wire_carry_the_household_settings(tmp_path, fake):
    executor = build(tmp_path, fake.base_url, Household(SearchSettings("de", 1)))
    card = await invoke(executor, {"query": QUERY})
    assert card.error_code is ErrorCode.CONFIRMATION_REQUIRED
    assert card.arguments == {"query": QUERY, "language": "de", "safesearch": 1}
    token = executor.confirmations.issue("web.search", 1, card.arguments)
    done = await invoke(executor, {"query": QUERY}, token)
    assert done.kind is OutcomeKind.EXECUTED
    (request,) = fake.requests
    assert request.params["language"] == [card.arguments["language"]]
    assert request.params["safesearch"] == [json.dumps(card.arguments["safesearch"])]


async def test_settings_changed_after_the_card_send_nothing(tmp_path, fake):
    household = Household(SearchSettings("de", 2))
    executor = build(tmp_path, fake.base_url, household)
    card = await invoke(executor, {"query": QUERY})
    token = executor.confirmations.issue("web.search", 1, card.arguments)
    household.settings = SearchSettings("fr", 0)
    outcome = await invoke(executor, {"query": QUERY}, token)
    assert outcome.error_code is ErrorCode.INVALID_CONFIRMATION
    assert fake.requests == []


@pytest.mark.parametrize(
    "extra", [{"language": "fr"}, {"safesearch": 0}, {"language": "de", "safesearch": 2}]
)
async def test_a_proposal_cannot_choose_other_settings(tmp_path, fake, extra):
    executor = build(tmp_path, fake.base_url, Household(SearchSettings("de", 1)))
    outcome = await invoke(executor, {"query": QUERY, **extra})
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert "set by the household" in outcome.message
    assert len(executor.confirmations) == 0


async def test_the_cards_arguments_sent_back_are_a_fixed_point(tmp_path, fake):
    executor = build(tmp_path, fake.base_url, Household(SearchSettings("de", 1)))
    card = await invoke(executor, {"query": "  two   words "})
    again = await invoke(executor, card.arguments)
    assert again.arguments == card.arguments == {
        "query": "two words", "language": "de", "safesearch": 1,
    }


@pytest.mark.parametrize("bad", [{"language": "english"}, {"safesearch": 3}, {"safesearch": "1"}])
async def test_a_proposal_with_a_value_searxng_refuses_is_invalid(tmp_path, fake, bad):
    executor = build(tmp_path, fake.base_url, Household(SearchSettings()))
    outcome = await invoke(executor, {"query": QUERY, **bad})
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
