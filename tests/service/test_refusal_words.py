"""The service's refusals in the reader's language: a weak password at first-run setup
in the browser's (``Accept-Language``: no session yet), a refused setting (the
household's language, the site list, the search settings) in the household's. The
stable ``code`` never changes with the language."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from sovereign.capabilities import home_assistant, pihole
from sovereign.capabilities._settings import BASE_URL_REFUSALS
from sovereign.capabilities.site_rules import parse_rule
from sovereign.conversation.voice.catalogs import Voice
from sovereign.egress import SearchSettings, SettingRefused
from sovereign.file_problems import PROBLEMS, FileProblem
from sovereign.service.console_words import CATALOG, DOMAIN, say_file_problem
from sovereign.service.egress_settings import SEARCH_FILE, SITES_FILE
from sovereign.service.household_settings import HOUSEHOLD_FILE, HouseholdSettings
from sovereign.service.owner import TOO_LONG, TOO_SHORT
from sovereign.service.policy import POLICY_FILE
from sovereign.service.private_words import (
    MAX_WORDS,
    PRIVATE_WORDS_FILE,
    REFUSALS,
    PrivateWordsError,
    PrivateWordsStore,
    clean_word,
)
from sovereign.service.routes.egress_settings import LISTS

SETUP = "/api/v1/auth/setup"
HOUSEHOLD = "/api/v1/settings/household"
SITES = "/api/v1/settings/sites"
SEARCH = "/api/v1/settings/search"
PRIVATE_WORDS = "/api/v1/settings/private-words"

REFUSED = [
    "", "\u200bexample.org", "https://", "example.org/path", "example.org:8080", "a..b",
    "*.8.8.8.8", "*.com", "*.co.uk", "192.168.1.1",
]  # fmt: skip
"""One site for each way a site is refused (:func:`parse_rule`)."""


def refusals() -> list[SettingRefused]:
    found = []
    for site in REFUSED:
        with pytest.raises(SettingRefused) as refused:
            parse_rule(site)
        found.append(refused.value)
    for language, level in (("klingon", 1), ("de", 5)):
        with pytest.raises(SettingRefused) as refused:
            SearchSettings(language, level)
        found.append(refused.value)
    with pytest.raises(SettingRefused) as refused:
        HouseholdSettings("tlh")
    found.append(refused.value)
    return found + private_word_refusals() + content_refusals() + service_refusals()


CONTENTS = [
    (POLICY_FILE, {"web_search_enabled": "yes"}),
    (HOUSEHOLD_FILE, {"language": "de", "extra": 1}),
    (PRIVATE_WORDS_FILE, {"words": "Juniper Lane"}),
    (SITES_FILE, []),
    (SITES_FILE, {"mode": "sometimes"}),
    (SITES_FILE, {"allow": "example.org"}),
    (SITES_FILE, {"allow": ["a.example"] * 1001}),
    (SITES_FILE, {"block": ["example.org", "*.co.uk"]}),
    (SEARCH_FILE, ["de", 1]),
    (SEARCH_FILE, {"language": "de", "safesearch": 1, "region": "ch"}),
    (SEARCH_FILE, {"language": "de"}),
]
"""One content for each way a settings file's content is refused, by the file's kind."""


def content_refusals() -> list[SettingRefused]:
    found = []
    for kind, content in CONTENTS:
        with pytest.raises(SettingRefused) as refused:
            kind.parse(content)
        found.append(refused.value)
    return found


ENTITIES = [f"sensor.s{n}" for n in range(home_assistant.MAX_ALLOWLIST + 1)]
HOME_ASSISTANT = {"enabled": True, "base_url": "http://h", "token": "t", "allowlist": []}
SERVICE_CONTENTS = [
    (home_assistant, {"enabled": True}),
    (home_assistant, {**HOME_ASSISTANT, "extra": 1}),
    (home_assistant, {**HOME_ASSISTANT, "enabled": "yes"}),
    (home_assistant, {**HOME_ASSISTANT, "token": "a b"}),
    (home_assistant, {**HOME_ASSISTANT, "token": "t" * 4097}),
    (home_assistant, {**HOME_ASSISTANT, "allowlist": "sensor.x"}),
    (home_assistant, {**HOME_ASSISTANT, "allowlist": ENTITIES}),
    (home_assistant, {**HOME_ASSISTANT, "allowlist": ["sensor.x", "sensor.x"]}),
    (home_assistant, {**HOME_ASSISTANT, "allowlist": ["bad id"]}),
    (home_assistant, {**HOME_ASSISTANT, "base_url": 8123}),
    (home_assistant, {**HOME_ASSISTANT, "base_url": "http://h:port"}),
    (home_assistant, {**HOME_ASSISTANT, "base_url": "ftp://h"}),
    (home_assistant, {**HOME_ASSISTANT, "base_url": "http://me:pw@h"}),
    (home_assistant, {**HOME_ASSISTANT, "base_url": "http://h/?q=1"}),
    (pihole, {"password": 1}),
    (pihole, {"password": "p", "base_url": "http://192.168.1.2"}),
]
"""One ``home-assistant.json`` or ``pihole.json`` for each way its content is refused."""


def service_refusals() -> list[SettingRefused]:
    """The refusals of :data:`SERVICE_CONTENTS`, each read from its file."""
    found = []
    with tempfile.TemporaryDirectory() as scratch:
        for module, content in SERVICE_CONTENTS:
            path = Path(scratch) / module.SETTINGS_FILENAME
            path.write_text(json.dumps(content))
            path.chmod(0o600)
            problem = module.settings_problem(Path(scratch))
            assert isinstance(problem, FileProblem) and problem.key == "content", content
            found.append(problem.values["problem"])
    return found


SERVICE_REFUSALS = home_assistant.REFUSALS | pihole.REFUSALS | BASE_URL_REFUSALS
"""Every way the content of ``home-assistant.json`` or ``pihole.json`` is refused."""


def private_word_refusals() -> list[SettingRefused]:
    """One refusal for each way a private word is refused: :func:`clean_word`'s, and a
    full list's (made by the store: test_a_full_list_refuses_one_more_word)."""
    found: list[SettingRefused] = []
    for word in (3, "a\u200bb c", "y" * 101, "x"):
        with pytest.raises(PrivateWordsError) as refused:
            clean_word(word)
        found.append(refused.value)
    return [*found, PrivateWordsError("private_words_full", limit=MAX_WORDS)]


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_each_way_a_setting_is_refused_has_a_key_of_its_own():
    keys = [refused.key for refused in refusals()]
    assert len(keys) == len(set(keys)) == (
        len(REFUSED) + 3 + len(REFUSALS) + len(CONTENTS) + len(SERVICE_CONTENTS)
    )
    assert {refused.key for refused in private_word_refusals()} == set(REFUSALS)
    assert {refused.key for refused in service_refusals()} == set(SERVICE_REFUSALS)


def test_a_full_list_refuses_one_more_word(tmp_path):
    store = PrivateWordsStore(tmp_path)
    path = tmp_path / "private-words.json"
    path.write_text(json.dumps({"words": [f"word {n}" for n in range(MAX_WORDS)]}))
    path.chmod(0o600)
    with pytest.raises(PrivateWordsError) as refused:
        store.add("one more")
    assert refused.value.key == "private_words_full"
    assert str(refused.value) == f"The list holds at most {MAX_WORDS} words."


@pytest.mark.parametrize("language", ["de", "fr", "es", "nl", "it"])
def test_every_refusal_and_password_rule_is_translated(language):
    with (CATALOG / language / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as source:
        catalog = read_po(source, locale=language)
    said = [(f"refused_{r.key}", r.english) for r in refusals()]
    said += [(f"refused_{key}", english) for key, english in SERVICE_REFUSALS.items()]
    said += [TOO_SHORT, TOO_LONG, *LISTS.values()]
    for context, english in said:
        message = catalog.get(english, context=context)
        assert message is not None and message.string, (language, context)
        assert message.string != english, (language, context)
        # a translation may leave out a detail only English words (a reason, a verdict)
        assert placeholders(message.string) <= placeholders(english), (language, context)
        assert placeholders(message.string) >= placeholders(english) - {
            "reason", "verdict", "kind"
        }, (language, context)  # fmt: skip


async def test_a_weak_password_at_setup_is_told_in_the_browser_s_language(harness):
    (harness.data_dir / "household.json").write_text(json.dumps({"language": "it"}))
    token = harness.app.state.services.owner.setup_token()
    short = {"setup_token": token, "password": "short"}
    german = await harness.client.post(SETUP, json=short, headers={"Accept-Language": "de-CH"})
    assert german.status_code == 422
    assert german.json()["error"] == {
        "code": "WEAK_PASSWORD",
        "message": "Das Passwort braucht mindestens 8 Zeichen.",
    }  # the browser's German, never the household's Italian
    spaces = {"setup_token": token, "password": " " * 12}
    dutch = await harness.client.post(SETUP, json=spaces, headers={"Accept-Language": "nl"})
    assert dutch.json()["error"]["message"] == "Het wachtwoord moet minstens 8 tekens hebben."
    english = await harness.client.post(SETUP, json=short)
    assert english.json()["error"] == {
        "code": "WEAK_PASSWORD",
        "message": "The password needs at least 8 characters.",
    }
    assert harness.app.state.services.owner.setup_token() == token  # still usable


@pytest.mark.parametrize(
    ("path", "body", "code", "said"),
    [
        (SITES, {"mode": "block", "block": ["*.co.uk"]}, "INVALID_SITE",
         "Gesperrte Seiten: *.co.uk würde jede Seite umfassen, die unter dem öffentlichen "
         "Suffix co.uk registriert ist; nennen Sie eine Seite darunter."),
        (SITES, {"mode": "allow-only", "allow": ["a.example", "192.168.1.1"]}, "INVALID_SITE",
         "Erlaubte Seiten: web.fetch liest 192.168.1.1 nie, was auch immer die Liste sagt "
         "(dieses Gerät, das Heimnetz oder keine öffentliche Adresse); deshalb kann es nicht "
         "eingetragen werden."),
        (SITES, {"mode": "block", "block": ["example.org:8080"]}, "INVALID_SITE",
         "Gesperrte Seiten: Eine Seite wird ohne Port eingetragen: Sie gilt für jeden Port."),
        (SEARCH, {"language": "klingon", "safesearch": 1}, "INVALID_SEARCH_SETTINGS",
         "Sprache: 'klingon' ist kein Sprachcode von SearXNG (zum Beispiel de, en-GB, fr, "
         "auto oder all)."),
        (SEARCH, {"language": "de", "safesearch": 3}, "INVALID_SEARCH_SETTINGS",
         "Sichere Suche: muss 0 (aus), 1 (moderat) oder 2 (streng) sein."),
        (PRIVATE_WORDS, {"add": "x"}, "INVALID_PRIVATE_WORD",
         "Ein privates Wort braucht mindestens zwei Buchstaben oder Ziffern."),
        (PRIVATE_WORDS, {"add": "a\u200bb c"}, "INVALID_PRIVATE_WORD",
         "Das private Wort enthält an Position 2 ein Zeichen, das nicht angezeigt werden "
         "kann (U+200B ZERO WIDTH SPACE)."),
        (HOUSEHOLD, {"language": "tlh"}, "UNKNOWN_LANGUAGE",
         "Die Sprache 'tlh' ist keine, in der der Assistent antwortet; wählen Sie en "
         "(English), de (Deutsch), fr (Français), es (Español), nl (Nederlands) oder it "
         "(Italiano)."),
    ],
)  # fmt: skip
async def test_a_refused_setting_is_told_in_the_household_s_language(
    signed_in, path, body, code, said
):
    harness = signed_in
    english = await harness.post(path, body)
    assert english.status_code == 422 and english.json()["error"]["code"] == code
    assert english.json()["error"]["message"] != said
    assert (await harness.post(HOUSEHOLD, {"language": "de"})).status_code == 200
    refused = await harness.post(path, body, **{"Accept-Language": "fr"})  # not the browser's
    assert refused.status_code == 422
    assert refused.json()["error"] == {"code": code, "message": said}


async def test_a_refused_setting_s_english_is_as_before(signed_in):
    harness = signed_in
    site = await harness.post(SITES, {"mode": "block", "block": ["*.co.uk"]})
    assert site.json()["error"]["message"] == (
        "block list: *.co.uk would cover every site registered under the public suffix "
        "co.uk; name a site below it."
    )
    language = await harness.post(HOUSEHOLD, {"language": "tlh"})
    assert language.json()["error"]["message"] == (
        "The language 'tlh' is not one the assistant answers in; choose en (English), "
        "de (Deutsch), fr (Français), es (Español), nl (Nederlands), or it (Italiano)."
    )


@pytest.mark.parametrize("language", ["de", "fr", "es", "nl", "it"])
def test_every_problem_of_a_settings_file_is_translated_for_the_console(language):
    with (CATALOG / language / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as source:
        catalog = read_po(source, locale=language)
    for key, english in PROBLEMS.items():
        message = catalog.get(english, context=f"file_problem_{key}")
        assert message is not None and message.string, (language, key)
        assert message.string != english or english == "{path}: {problem}", (language, key)
        assert placeholders(message.string) == placeholders(english), (language, key)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return path


async def _problem(harness, path: str) -> str | None:
    return (await harness.client.get(path, headers=harness.headers())).json()["problem"]


async def test_a_broken_settings_file_s_problem_is_told_in_the_household_s_language(signed_in):
    harness = signed_in
    capabilities = harness.data_dir / "capabilities"
    sites = _write(capabilities / "sites.json", '{"mode": "block", "block": ["*.co.uk"]}')
    search = _write(capabilities / "search.json", '{"language": "de"')
    words = _write(harness.data_dir / "private-words.json", '{"words": "Juniper Lane"}')
    english = await _problem(harness, SITES)
    assert english == (
        f"{sites}: block entry 1 is not a site: *.co.uk would cover every site registered "
        "under the public suffix co.uk; name a site below it."
    )
    assert (await harness.post(HOUSEHOLD, {"language": "fr"})).status_code == 200
    assert await _problem(harness, SITES) == (
        f"{sites} : l\u2019entrée 1 de block n\u2019est pas un site : *.co.uk couvrirait tous "
        "les sites enregistrés sous le suffixe public co.uk ; indiquez un site en dessous."
    )
    assert await _problem(harness, SEARCH) == f"{search} n\u2019est pas du JSON valide."
    assert await _problem(harness, PRIVATE_WORDS) == (
        f"{words} : n\u2019est pas valide : il doit contenir {{\"words\": [\"…\", …]}}."
    )
    _write(words, '{"words": ["Juniper Lane"]}').chmod(0o644)
    assert (await harness.post(HOUSEHOLD, {"language": "es"})).status_code == 200
    assert await _problem(harness, PRIVATE_WORDS) == (
        f"Otros usuarios pueden leer {words} (modo 0644); ejecuta: chmod 600 {words}"
    )


async def test_a_household_file_the_service_cannot_read_is_told_in_english(signed_in):
    harness = signed_in
    household = _write(harness.data_dir / "household.json", '{"language": "de", "x": 1}')
    assert await _problem(harness, HOUSEHOLD) == (
        f'{household}: must hold exactly {{"language": code}}.'
    )  # a household whose language cannot be read is spoken to in English


def test_the_console_writes_a_problem_s_numbers_as_the_language_does():
    problem = FileProblem("too_large", path="/data/sites.json", limit=262144)
    assert say_file_problem(Voice("de", CATALOG, DOMAIN), problem) == (
        "/data/sites.json ist größer als 262.144 Bytes."
    )
    assert say_file_problem(Voice("en", CATALOG, DOMAIN), problem) == (
        "/data/sites.json is larger than 262,144 bytes."
    )
