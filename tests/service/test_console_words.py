"""The Console's own words beyond its chrome: the sentences it writes at run time, said in
the household's language once signed in, and the sign-in and setup pages, said before any
session in the browser's language (``Accept-Language``), never in the household's."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from sovereign.service.console_words import (
    BEFORE_SIGN_IN,
    CATALOG,
    CONSOLE_WORDS,
    DOMAIN,
    RUN_TIME_WORDS,
    browser_language,
    run_time_words,
)

WORDS = "/api/v1/conversation/words"
SIGN_IN_WORDS = "/api/v1/auth/words"
SETTING = "/api/v1/settings/household"


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{\w+\}", text))


async def test_the_run_time_words_come_with_the_console_s_words_in_the_household_s_language(
    signed_in,
):
    harness = signed_in
    english = (await harness.client.get(WORDS, headers=harness.headers())).json()["run_time"]
    assert english["session_ended"] == "Your session ended. Sign in again to continue."
    assert english["activity_repair"] == {
        "one": "{capability} failed {n} time: {repair}",
        "other": "{capability} failed {n} times: {repair}",
    }  # the page fills the placeholders and chooses the form by the count
    assert (await harness.post(SETTING, {"language": "de"})).status_code == 200
    german = (await harness.client.get(WORDS, headers=harness.headers())).json()
    assert german["run_time"]["activity_unread"] == (
        "Die Aktivität konnte nicht geladen werden: {reason}"
    )
    assert german["console"]["sites_title"] == "Seiten, die der Assistent lesen darf"
    assert set(german["run_time"]) == set(RUN_TIME_WORDS)


@pytest.mark.parametrize("language", ["de", "fr", "es", "nl", "it"])
def test_every_run_time_word_is_translated_with_the_same_placeholders(language):
    with (CATALOG / language / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as source:
        catalog = read_po(source, locale=language)
    for key, english in RUN_TIME_WORDS.items():
        message = catalog.get(english, context=key)  # a pair: by its singular
        assert message is not None, (language, key)
        forms = [message.string] if isinstance(english, str) else list(message.string)
        assert all(forms), (language, key)
        wanted = placeholders(english if isinstance(english, str) else english[1])
        for form in forms:
            assert placeholders(form) == wanted, (language, key, form)
    counted = run_time_words(language)["activity_repair"]
    assert set(counted) == {"one", "other"} and counted["other"] != RUN_TIME_WORDS[
        "activity_repair"
    ][1]


def test_the_sign_in_words_are_page_or_run_time_words():
    assert BEFORE_SIGN_IN.issubset(set(CONSOLE_WORDS) | set(RUN_TIME_WORDS))


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("fr-CH,fr;q=0.9", "fr"),
        ("ja", "en"),
        ("ja,it;q=0.3,nl;q=0.7", "nl"),  # by weight, not by place
        ("de-AT", "de"),
        ("en-US,de;q=0.9", "en"),
        ("es;q=0, it", "it"),  # q=0 means "not this one"
        ("*", "en"),
        ("", "en"),
        (None, "en"),
        ("fr;q=nonsense,de", "de"),
    ],
)
def test_the_browser_s_language_is_negotiated_against_the_product_s(header, language):
    assert browser_language(header) == language


async def test_sign_in_words_need_no_session_and_follow_the_browser_not_the_household(
    signed_in,
):
    harness = signed_in
    assert (await harness.post(SETTING, {"language": "de"})).status_code == 200
    stranger = await harness.another_client()
    async with stranger:
        french = await stranger.get(SIGN_IN_WORDS, headers={"Accept-Language": "fr-CH,fr;q=0.9"})
        japanese = await stranger.get(SIGN_IN_WORDS, headers={"Accept-Language": "ja"})
        unsaid = await stranger.get(SIGN_IN_WORDS)
    assert french.status_code == 200 and french.headers["vary"] == "Accept-Language"
    said = french.json()
    assert said["language"] == "fr"
    assert said["console"]["signin_title"] == "Connexion"
    assert said["run_time"]["enter_password"] == "Saisissez le mot de passe du foyer."
    assert set(said["console"]) | set(said["run_time"]) == BEFORE_SIGN_IN  # nothing else
    assert japanese.json()["language"] == "en"  # not the household's German
    assert japanese.json()["console"]["signin_title"] == "Sign in"
    assert unsaid.json()["language"] == "en"
    assert "Deutsch" not in french.text


async def test_a_wrong_password_is_told_in_the_browser_s_language(signed_in):
    harness = signed_in
    assert (await harness.post(SETTING, {"language": "de"})).status_code == 200
    guesser = await harness.another_client()
    said = []
    async with guesser:
        for _ in range(7):
            failed = await guesser.post(
                "/api/v1/auth/login",
                json={"password": "guess-guess"},
                headers={"Accept-Language": "it-CH,it;q=0.9"},
            )
            said.append(failed.json()["error"]["message"])
        english = await guesser.post(
            "/api/v1/auth/login",
            json={"password": "guess-guess"},
            headers={"Accept-Language": "ja"},
        )
    assert said == [
        "Questa password non è giusta; ancora 4 tentativi sbagliati prima che l\u2019accesso "
        "venga sospeso.",
        "Questa password non è giusta; ancora 3 tentativi sbagliati prima che l\u2019accesso "
        "venga sospeso.",
        "Questa password non è giusta; ancora 2 tentativi sbagliati prima che l\u2019accesso "
        "venga sospeso.",
        "Questa password non è giusta; ancora 1 tentativo sbagliato prima che l\u2019accesso "
        "venga sospeso.",
        "Questa password non è giusta; la prossima password sbagliata sospende l\u2019accesso.",
        "Questa password non è giusta; l\u2019accesso è sospeso per 1 secondo.",
        "L\u2019accesso è sospeso dopo diverse password sbagliate; riprova tra 1 secondo.",
    ]  # never the household's German
    assert english.json()["error"]["message"] == (
        "Sign-in is paused after several wrong passwords; try again in 1 second."
    )


async def test_sign_in_s_refusals_before_a_session_follow_the_browser_s_language(harness):
    client = harness.client
    login = "/api/v1/auth/login"
    before = await client.post(login, json={"password": "x"}, headers={"Accept-Language": "nl"})
    assert before.json()["error"] == {
        **before.json()["error"],
        "code": "SETUP_REQUIRED",
        "message": "Er is nog geen wachtwoord ingesteld; gebruik de instellink.",
    }
    setup = "/api/v1/auth/setup"
    wrong = await client.post(
        setup, json={"setup_token": "guess", "password": "a long enough password"},
        headers={"Accept-Language": "fr-CH,fr;q=0.9"},
    )  # fmt: skip
    assert wrong.json()["error"]["message"] == (
        "Le lien de configuration n\u2019est pas (ou plus) valable."
    )
    await harness.sign_in()
    again = await client.post(
        setup, json={"setup_token": "guess", "password": "another password"},
        headers={"Accept-Language": "de-AT,de;q=0.8"},
    )  # fmt: skip
    assert again.json()["error"]["code"] == "ALREADY_SET_UP"
    assert again.json()["error"]["message"] == (
        "Es ist schon ein Passwort gesetzt; bitte melden Sie sich an."
    )
    english = await client.post(setup, json={"setup_token": "g", "password": "another password"})
    assert english.json()["error"]["message"] == "A password is already set; sign in instead."


async def test_the_first_line_and_the_address_warning_come_with_the_sign_in_words(harness):
    words = await harness.client.get(SIGN_IN_WORDS, headers={"Accept-Language": "nl-BE,nl"})
    said = words.json()
    assert said["console"]["connecting"] == "Verbinding maken met het apparaat\u2026"
    assert said["run_time"]["address_open_instead"] == "Open hem liever op zijn eigen adres:"
    assert said["run_time"]["address_shared"].startswith(
        "U hebt de console geopend op {host}, een adres dat andere diensten"
    )  # the page fills {host}
    assert said["run_time"]["unreachable_at_start"] == (
        "Het apparaat was niet bereikbaar: {reason}"
    )
    english = (await harness.client.get(SIGN_IN_WORDS)).json()
    assert english["console"]["connecting"] == "Connecting to the appliance\u2026"


CONSOLE_NAMED = {
    "en": "Console", "de": "Konsole", "fr": "console", "es": "consola", "nl": "console",
    "it": "console",
}  # fmt: skip
"""What each language calls the Console (as its catalog already says elsewhere)."""


@pytest.mark.parametrize("language", list(CONSOLE_NAMED))
def test_the_language_setting_says_it_is_also_the_console_s_language(language):
    # The Console's own words follow the setting: its title, introduction, label and the
    # sentence once saved say so, not only "answers when a question is too short to tell".
    from sovereign.service.console_words import console_words

    said = console_words(language)
    named = CONSOLE_NAMED[language]
    for key in ("household_title", "household_intro", "household_label"):
        assert named in said[key], (language, key, said[key])
    assert named in run_time_words(language)["household_saved"]
