"""The pure parts of the Console's search-settings and site-list modules, in chromium."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        ({"query": "q", "language": "de", "safesearch": 1}, "in German, safe search moderate"),
        (
            {"query": "q", "language": "en-GB", "safesearch": 2},
            "in English (United Kingdom), safe search strict",
        ),
        (
            {"query": "q", "language": "auto", "safesearch": 0},
            "in any language (the search service chooses), safe search off",
        ),
        ({"query": "q", "language": "all", "safesearch": 0}, "in all languages, safe search off"),
        ({"query": "q"}, None),
        ({"query": "q", "language": "de", "safesearch": 7}, None),
    ],
)
def test_the_card_phrase_names_the_language_and_level(js, args, phrase):
    assert js("search-settings.js", "searchSettingsPhrase", "web.search", args) == phrase


def test_only_a_search_card_gets_the_phrase(js):
    args = {"url": "https://example.org/", "language": "de", "safesearch": 1}
    assert js("search-settings.js", "searchSettingsPhrase", "web.fetch", args) is None


def test_the_browser_names_every_language_as_the_service_does(js):
    from sovereign.egress import LANGUAGES

    for code, name in LANGUAGES.items():
        assert js("search-settings.js", "languageName", code) == name, code


def test_adding_and_removing_a_site_change_only_that_list(js):
    state = {"mode": "block", "allow": ["a.example"], "block": []}
    added = js("site-list.js", "withSite", state, "block", "  ads.example ")
    assert added == {"mode": "block", "allow": ["a.example"], "block": ["ads.example"]}
    assert js("site-list.js", "withSite", state, "block", "   ") == state
    removed = js("site-list.js", "withoutSite", added, "allow", "a.example")
    assert removed == {"mode": "block", "allow": [], "block": ["ads.example"]}


def test_the_household_settings_are_never_editable_on_a_card(js):
    args = {"query": "q", "language": "de", "safesearch": 1}
    assert js("flags.js", "editableEntries", args) == [["query", "q"]]
