"""The household's language: its file, ``/api/v1/settings/household``, the CLI and doctor."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.doctor import CHECKS, DoctorConfig, check_household
from sovereign.service.household_settings import (
    HouseholdSettings,
    HouseholdSettingsStore,
    language_names,
)
from tests.fakes.tmpfs import mounted_tmpfs, remount

from .harness import build_harness

PATH = "/api/v1/settings/household"
CORRUPT = [
    b"{not json",
    b"",
    b"\xef\xbb\xbf" + b'{"language": "de"}',
    b"[]",
    b'"de"',
    b"{}",
    b'{"language": "xx"}',
    b'{"language": "DE"}',
    b'{"language": 1}',
    b'{"language": null}',
    b'{"language": "de", "language": "fr"}',
    b'{"language": "de", "theme": "dark"}',
    b'{"language": "' + b"d" * 300 * 1024 + b'"}',
]


def write(path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


def stored(data_dir) -> dict:
    return json.loads((data_dir / "household.json").read_text())


def test_an_absent_file_is_english_without_a_problem(tmp_path):
    reading = HouseholdSettingsStore(tmp_path).read()
    assert reading.value == HouseholdSettings("en") and reading.problem is None
    assert HouseholdSettingsStore(tmp_path).language() == "en"


@pytest.mark.parametrize("content", CORRUPT, ids=range(len(CORRUPT)))
def test_a_corrupt_file_is_english_and_is_reported(tmp_path, caplog, content):
    store = HouseholdSettingsStore(tmp_path)
    write(store.path, content)
    assert store.language() == "en"
    reading = store.read()
    assert reading.problem and str(store.path) in reading.problem
    assert "household.json treated as absent" in caplog.text
    (finding,) = asyncio.run(check_household(DoctorConfig(data_dir=tmp_path)))
    assert finding.ok is False and "answered in English" in finding.detail
    assert "sovereign household-settings --language" in finding.fix


def test_a_language_changed_by_hand_is_read_at_once(tmp_path):
    store = HouseholdSettingsStore(tmp_path)
    write(store.path, b'{"language": "de"}')
    assert store.language() == "de"
    write(store.path, b'{"language": "it"}')  # same size, other bytes: no cache hides it
    assert store.language() == "it"


@pytest.mark.parametrize("language", ["xx", "DE", "de-DE", "de_CH", " de", "", "Deutsch", 7])
def test_only_a_language_the_product_speaks_is_a_setting(language):
    with pytest.raises(ValueError, match="not one the assistant answers in; choose en"):
        HouseholdSettings(language)


def test_each_language_is_named_in_itself_by_babel():
    assert language_names() == {
        "en": "English", "de": "Deutsch", "fr": "Français",
        "es": "Español", "nl": "Nederlands", "it": "Italiano",
    }  # fmt: skip


def test_doctor_says_the_language_in_effect(tmp_path):
    HouseholdSettingsStore(tmp_path).save(HouseholdSettings("nl"))
    (finding,) = asyncio.run(check_household(DoctorConfig(data_dir=tmp_path)))
    assert finding.ok
    assert finding.detail.startswith("Nederlands (nl) for the Console and for questions")
    assert check_household in CHECKS


def test_the_cli_shows_and_sets_the_language(tmp_path):
    runner = CliRunner()
    shown = runner.invoke(main, ["household-settings", "--data-dir", str(tmp_path)])
    assert shown.exit_code == 0 and shown.output == "language: en (English)\n"
    set_ = runner.invoke(main, ["household-settings", "--language", "fr", "--data-dir",
                                str(tmp_path)])  # fmt: skip
    assert set_.exit_code == 0 and "fr (Français)" in set_.output
    assert stored(tmp_path) == {"language": "fr"}
    refused = runner.invoke(main, ["household-settings", "--language", "xx", "--data-dir",
                                   str(tmp_path)])  # fmt: skip
    assert refused.exit_code == 2 and stored(tmp_path) == {"language": "fr"}
    write(tmp_path / "household.json", b"{")
    broken = runner.invoke(main, ["household-settings", "--data-dir", str(tmp_path)])
    assert broken.exit_code == 1 and "English applies" in broken.output


async def test_the_api_reads_and_sets_the_language(signed_in):
    harness = signed_in
    current = await harness.client.get(PATH, headers=harness.headers())
    assert current.status_code == 200
    body = current.json()
    assert (body["language"], body["problem"]) == ("en", None)
    assert body["languages"] == [{"code": c, "name": n} for c, n in language_names().items()]
    saved = await harness.post(PATH, {"language": "de"})
    assert saved.status_code == 200, saved.text
    assert saved.json()["language"] == "de" and saved.json()["problem"] is None
    assert stored(harness.data_dir) == {"language": "de"}
    again = await harness.client.get(PATH, headers=harness.headers())
    assert again.json()["language"] == "de"


@pytest.mark.parametrize(
    "language",
    ["xx", "DE", "de-DE", "de_CH", " de", "de ", "", "Deutsch", "en\u200b", "d" * 10_000],
)
async def test_an_unknown_language_is_a_422_naming_the_choices_and_the_old_one_stays(
    signed_in, language
):
    harness = signed_in
    assert (await harness.post(PATH, {"language": "nl"})).status_code == 200
    refused = await harness.post(PATH, {"language": language})
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "UNKNOWN_LANGUAGE"
    assert "kies en (English), de (Deutsch)" in error["message"]  # said in the Dutch set
    assert len(error["message"]) < 300
    assert stored(harness.data_dir) == {"language": "nl"}


@pytest.mark.parametrize(
    "body",
    [{"language": 1}, {"language": None}, {"language": ["de"]}, {},
     {"language": "de", "theme": "dark"}, ["de"], "de"],
)  # fmt: skip
async def test_a_malformed_body_is_a_422_and_the_old_language_stays(signed_in, body):
    harness = signed_in
    assert (await harness.post(PATH, {"language": "it"})).status_code == 200
    refused = await harness.post(PATH, body)
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "INVALID_REQUEST"
    assert stored(harness.data_dir) == {"language": "it"}


async def test_a_body_that_is_not_json_is_a_400(signed_in):
    harness = signed_in
    headers = harness.headers(**{"Content-Type": "application/json"})
    refused = await harness.client.post(PATH, content=b'{"language": "de"', headers=headers)
    assert refused.status_code == 400
    assert not (harness.data_dir / "household.json").exists()


async def test_the_setting_needs_the_session_and_the_csrf_header(signed_in):
    harness = signed_in
    for request in (harness.client.get(PATH), harness.client.post(PATH, json={"language": "de"})):
        response = await request
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "CSRF_FAILED"
    wrong = await harness.client.post(
        PATH, json={"language": "de"}, headers={"X-CSRF-Token": "not-the-tab-secret"}
    )
    assert wrong.status_code == 403
    stranger = await harness.another_client()
    async with stranger:
        assert (await stranger.get(PATH)).status_code == 401
        forged = await stranger.post(PATH, json={"language": "de"}, headers=harness.headers())
        assert forged.status_code == 401  # the tab secret alone, without the cookie
    assert not (harness.data_dir / "household.json").exists()


async def test_a_corrupt_file_is_shown_with_its_problem_and_saving_writes_over_it(signed_in):
    harness = signed_in
    write(harness.data_dir / "household.json", b'{"language": "klingon"}')
    shown = (await harness.client.get(PATH, headers=harness.headers())).json()
    assert shown["language"] == "en" and "'klingon' is not one" in shown["problem"]
    saved = await harness.post(PATH, {"language": "es"})
    assert saved.status_code == 200 and saved.json()["problem"] is None
    assert stored(harness.data_dir) == {"language": "es"}


async def test_concurrent_changes_through_the_api_leave_one_whole_file(signed_in):
    harness = signed_in
    sent = [language_code for _ in range(6) for language_code in language_names()]
    responses = await asyncio.gather(*(harness.post(PATH, {"language": c}) for c in sent))
    assert [r.status_code for r in responses] == [200] * len(sent)
    assert [r.json()["language"] for r in responses] == sent  # each answer is its own write
    final = (await harness.client.get(PATH, headers=harness.headers())).json()
    assert final["problem"] is None and final["language"] in language_names()
    assert stored(harness.data_dir) == {"language": final["language"]}
    assert [p.name for p in harness.data_dir.iterdir() if "household" in p.name] == [
        "household.json"
    ]


def test_racing_writers_and_readers_never_see_a_torn_file(tmp_path):
    problems: list[str] = []
    done = threading.Event()

    def read() -> None:
        reader = HouseholdSettingsStore(tmp_path)
        while not done.is_set():
            reading = reader.read(log=False)
            if reading.problem:
                problems.append(reading.problem)

    def write_all(code: str) -> None:
        store = HouseholdSettingsStore(tmp_path)  # each writer its own store, as processes are
        for _ in range(25):
            store.save(HouseholdSettings(code))

    readers = [threading.Thread(target=read) for _ in range(2)]
    writers = [threading.Thread(target=write_all, args=(c,)) for c in language_names()]
    for thread in readers + writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    for thread in readers:
        thread.join()
    assert problems == []
    assert stored(tmp_path)["language"] in language_names()


async def test_a_write_the_disk_refuses_is_a_503_and_the_old_language_stays(tmp_path):
    with mounted_tmpfs(tmp_path / "data", "256k") as data_dir:
        harness = build_harness(data_dir)
        async with harness.client:
            await harness.sign_in()
            assert (await harness.post(PATH, {"language": "fr"})).status_code == 200
            remount(data_dir, "ro")
            try:
                refused = await harness.post(PATH, {"language": "de"})
            finally:
                remount(data_dir, "rw")
            assert refused.status_code == 503
            error = refused.json()["error"]
            assert error["code"] == "SETTINGS_NOT_SAVED" and "read-only" in error["message"]
            assert stored(data_dir) == {"language": "fr"}


async def test_a_directory_where_the_file_should_be_is_a_503_not_a_500(signed_in):
    harness = signed_in
    (harness.data_dir / "household.json").mkdir()
    shown = (await harness.client.get(PATH, headers=harness.headers())).json()
    assert shown["language"] == "en" and "not a regular file" in shown["problem"]
    refused = await harness.post(PATH, {"language": "de"})
    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "SETTINGS_NOT_SAVED"
    assert (harness.data_dir / "household.json").is_dir()


WORDS = "/api/v1/conversation/words"


async def test_the_words_before_a_turn_are_said_in_the_household_s_language(signed_in):
    harness = signed_in
    english = (await harness.client.get(WORDS, headers=harness.headers())).json()
    assert english["language"] == "en"
    assert english["words"] == {
        "sending": "Sending your question", "stop": "Stop", "stopping": "Stopping",
    }  # fmt: skip
    assert (await harness.post(PATH, {"language": "de"})).status_code == 200
    german = (await harness.client.get(WORDS, headers=harness.headers())).json()
    assert german["language"] == "de"
    assert german["words"] == {
        "sending": "Ihre Frage wird gesendet", "stop": "Anhalten", "stopping": "Wird angehalten",
    }  # fmt: skip


async def test_a_broken_setting_gives_the_english_words_and_they_need_a_session(signed_in):
    harness = signed_in
    write(harness.data_dir / "household.json", b'{"language": "de-DE<script>"}')
    said = (await harness.client.get(WORDS, headers=harness.headers())).json()
    assert said["language"] == "en" and said["words"]["sending"] == "Sending your question"
    assert (await harness.client.get(WORDS)).status_code == 403
    stranger = await harness.another_client()
    async with stranger:
        assert (await stranger.get(WORDS)).status_code == 401


async def test_activity_is_said_in_the_household_s_language(signed_in):
    harness = signed_in
    summary = "/api/v1/audit/summary"
    english = (await harness.client.get(summary, headers=harness.headers())).json()["said"]
    assert english == {
        "language": "en",
        "sentences": ["In the last 7 days, the assistant suggested 0 requests."],
        "notes": [],
        "repairs": [],
    }
    assert (await harness.post(PATH, {"language": "nl"})).status_code == 200
    dutch = (await harness.client.get(f"{summary}?days=1", headers=harness.headers())).json()
    assert dutch["said"]["language"] == "nl"
    assert dutch["said"]["sentences"] == [
        "In deze periode (1 dag) heeft de assistent 0 verzoeken voorgesteld."
    ]
    assert dutch["days"] == 1 and "totals" in dutch  # the counts stay as they were


async def test_a_german_household_reads_the_owner_s_repairs_in_german(signed_in):
    from sovereign.executor import AuditLog, ErrorCode, OutcomeKind, Stage

    from .test_audit_summary import ASKED, SEARCH, _record

    harness = signed_in
    log = AuditLog(harness.data_dir)
    for _ in range(2):
        ask = _record(log, SEARCH, Stage.CONFIRM, *ASKED)
        started = log.begin(SEARCH, version=1, asked=ask)
        reason = "searxng: json_disabled"
        _record(log, SEARCH, Stage.EXECUTE, OutcomeKind.FAILED, ErrorCode.EXECUTION_FAILED,
                asked=ask, started=started, reason=reason, sent=False)  # fmt: skip
    summary = "/api/v1/audit/summary?days=1"
    english = (await harness.client.get(summary, headers=harness.headers())).json()
    assert english["said"]["repairs"] == [
        "Web search failed 2 times: SearXNG refuses the JSON API: add json to search.formats "
        "in its settings.yml and restart it."
    ]
    assert (await harness.post(PATH, {"language": "de"})).status_code == 200
    german = (await harness.client.get(summary, headers=harness.headers())).json()
    assert german["said"]["repairs"] == [
        "Websuche: 2 Fehlschläge. SearXNG verweigert die JSON-API: Fügen Sie json zu "
        "search.formats in seiner settings.yml hinzu und starten Sie es neu."
    ]
    assert german["repairs"] == english["repairs"]  # the owner's record stays as it was


async def test_the_console_s_own_words_come_with_the_words_before_a_turn(signed_in):
    from sovereign.service.console_words import CONSOLE_WORDS

    harness = signed_in
    english = (await harness.client.get(WORDS, headers=harness.headers())).json()
    assert english["console"] == CONSOLE_WORDS
    assert (await harness.post(PATH, {"language": "es"})).status_code == 200
    spanish = (await harness.client.get(WORDS, headers=harness.headers())).json()["console"]
    assert (spanish["nav_chat"], spanish["nav_sign_out"]) == ("Conversación", "Cerrar sesión")
    assert set(spanish) == set(CONSOLE_WORDS)


@pytest.mark.parametrize("language", ["de", "fr", "es", "nl", "it"])
def test_every_console_word_is_translated_with_the_same_placeholders(language):
    import re

    from babel.messages.pofile import read_po

    from sovereign.service.console_words import CATALOG, CONSOLE_WORDS, DOMAIN

    with (CATALOG / language / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as source:
        catalog = read_po(source, locale=language)
    for key, english in CONSOLE_WORDS.items():
        message = catalog.get(english, context=key)
        assert message is not None and message.string, (language, key)
        placeholders = set(re.findall(r"\{\w+\}", english))
        assert set(re.findall(r"\{\w+\}", message.string)) == placeholders
