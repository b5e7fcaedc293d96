"""The household's site list and search settings: files, API, CLI and doctor."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.doctor import DoctorConfig, check_egress
from sovereign.egress import SearchSettings, SiteList, SiteMode, SiteVerdict, judge_site
from sovereign.service.egress_settings import SearchSettingsStore, SiteListStore
from sovereign.service.settings import Settings
from sovereign.service.wiring import build_registry

CORRUPT = [
    b"{not json",
    b"",
    b"\xff\xfe\x00",
    b"[]",
    b'{"mode": "sometimes"}',
    b'{"mode": "block", "block": "example.org"}',
    b'{"mode": "block", "block": [1]}',
    b'{"mode": "block", "block": ["*.co.uk"]}',
    b'{"mode": "allow-only", "allow": ["example.org/path"]}',
    b'{"mode": "allow-only", "allow": ["ok.example"], "extra": 1}',
    b'{"mode": "block", "block": ["' + b"a" * 300 * 1024 + b'"]}',
]


def write(path, content: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


def test_an_absent_site_list_is_no_list_without_a_problem(tmp_path):
    reading = SiteListStore(tmp_path).read()
    assert reading.value == SiteList() and reading.problem is None


@pytest.mark.parametrize("content", CORRUPT, ids=range(len(CORRUPT)))
def test_a_corrupt_site_list_is_no_list_and_is_reported(tmp_path, caplog, content):
    store = SiteListStore(tmp_path)
    write(store.path, content)
    reading = store.read()
    assert reading.value == SiteList()
    assert reading.problem and str(store.path) in reading.problem
    assert "sites.json treated as absent" in caplog.text
    (sites, _search) = asyncio.run(check_egress(DoctorConfig(data_dir=tmp_path)))
    assert sites.ok is False and "applies no site list" in sites.detail and sites.fix


def test_a_stored_list_is_canonical_and_read_back_fresh(tmp_path):
    store = SiteListStore(tmp_path)
    write(store.path, json.dumps({"mode": "block", "block": ["ADS.Example.org."]}).encode())
    assert [r.text for r in store.site_list().block] == ["ads.example.org"]
    write(store.path, json.dumps({"mode": "off", "block": ["ads.example.org"]}).encode())
    assert store.site_list().mode is SiteMode.OFF  # changed by hand: no cache hides it


def test_a_corrupt_search_file_means_the_defaults_and_is_reported(tmp_path):
    store = SearchSettingsStore(tmp_path)
    for content in (b"{", b'{"language": "english", "safesearch": 1}', b'{"language": "de"}'):
        write(store.path, content)
        reading = store.read()
        assert reading.value == SearchSettings() and reading.problem
    (_sites, search) = asyncio.run(check_egress(DoctorConfig(data_dir=tmp_path)))
    assert search.ok is False and "language auto and safe search moderate" in search.detail


def test_the_service_reads_both_files_on_every_call(tmp_path):
    registry = build_registry(Settings(data_dir=tmp_path, backend="scripted"))
    fetch, search = registry.get("web.fetch", 1), registry.get("web.search", 1)
    assert fetch.check_policy({"url": "https://news.example/"}) is None
    SiteListStore(tmp_path).save(SiteList(SiteMode.ALLOW_ONLY))
    with pytest.raises(Exception, match=r"does not allow web\.fetch to read pages from news"):
        fetch.check_policy({"url": "https://news.example/"})
    SearchSettingsStore(tmp_path).save(SearchSettings("de", 2))
    canonical = search.validate_arguments({"query": "q"})
    assert canonical == {"query": "q", "language": "de", "safesearch": 2}


async def test_the_api_reads_and_replaces_the_site_list(signed_in):
    harness = signed_in
    empty = (await harness.client.get("/api/v1/settings/sites", headers=harness.headers())).json()
    assert empty == {"mode": "off", "allow": [], "block": [], "problem": None}
    body = {"mode": "allow-only", "allow": ["Bücher.example", "*.wiki.example", "8.8.8.8",
                                            "bücher.example"], "block": []}
    saved = await harness.post("/api/v1/settings/sites", body)
    assert saved.status_code == 200, saved.text
    assert saved.json()["allow"] == ["xn--bcher-kva.example", "*.wiki.example", "8.8.8.8"]
    stored = SiteListStore(harness.data_dir).site_list()
    assert stored.mode is SiteMode.ALLOW_ONLY
    assert judge_site(stored, "en.wiki.example") is SiteVerdict.ALLOWED


@pytest.mark.parametrize(
    ("body", "code", "words"),
    [
        ({"mode": "block", "block": ["*.co.uk"]}, "INVALID_SITE", "block list: *.co.uk"),
        ({"mode": "block", "block": ["192.168.1.1"]}, "INVALID_SITE", "never reads"),
        ({"mode": "allow-only", "allow": ["a.example", "nas.lan"]}, "INVALID_SITE", "nas.lan"),
        ({"mode": "sometimes"}, "INVALID_REQUEST", "mode"),
        ({"mode": "block", "block": "x.example"}, "INVALID_REQUEST", "block"),
        ({"mode": "block", "other": []}, "INVALID_REQUEST", "other"),
    ],
)
async def test_a_bad_site_list_is_a_422_and_the_old_list_stays(signed_in, body, code, words):
    harness = signed_in
    ok = await harness.post("/api/v1/settings/sites", {"mode": "block", "block": ["x.example"]})
    assert ok.status_code == 200
    refused = await harness.post("/api/v1/settings/sites", body)
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == code and words in error["message"]
    assert [r.text for r in SiteListStore(harness.data_dir).site_list().block] == ["x.example"]


async def test_the_api_reads_and_sets_the_search_settings(signed_in):
    harness = signed_in
    current = (await harness.client.get("/api/v1/settings/search", headers=harness.headers()))
    body = current.json()
    assert (body["language"], body["safesearch"], body["problem"]) == ("auto", 1, None)
    assert {"code": "de", "name": "German"} in body["languages"]
    assert body["safesearch_levels"][1] == {"value": 1, "name": "moderate"}
    saved = await harness.post("/api/v1/settings/search", {"language": "de", "safesearch": 1})
    assert saved.status_code == 200 and saved.json()["language"] == "de"
    assert SearchSettingsStore(harness.data_dir).settings() == SearchSettings("de", 1)
    for bad in ({"language": "english", "safesearch": 1}, {"language": "de", "safesearch": 3}):
        refused = await harness.post("/api/v1/settings/search", bad)
        assert refused.status_code == 422
        assert refused.json()["error"]["code"] == "INVALID_SEARCH_SETTINGS"
    as_text = {"language": "de", "safesearch": "1"}
    wrong_type = await harness.post("/api/v1/settings/search", as_text)
    assert wrong_type.status_code == 422
    assert SearchSettingsStore(harness.data_dir).settings() == SearchSettings("de", 1)


@pytest.mark.parametrize("path", ["/api/v1/settings/sites", "/api/v1/settings/search"])
async def test_both_settings_need_the_session_and_the_csrf_header(signed_in, path):
    harness = signed_in
    assert (await harness.client.get(path)).status_code == 403
    assert (await harness.client.post(path, json={})).status_code == 403
    stranger = await harness.another_client()
    async with stranger:
        assert (await stranger.get(path)).status_code == 401


async def test_a_write_the_disk_refuses_is_a_503_and_nothing_changes(signed_in, monkeypatch):
    harness = signed_in
    from sovereign.service import settings_store

    def refuse(path, value, **options):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(settings_store, "write_json_atomic", refuse)
    refused = await harness.post("/api/v1/settings/search", {"language": "de", "safesearch": 1})
    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "SETTINGS_NOT_SAVED"
    assert not SearchSettingsStore(harness.data_dir).path.exists()


def run(tmp_path, *args):
    return CliRunner().invoke(main, [*args, "--data-dir", str(tmp_path)])


def test_the_cli_edits_both_lists_and_the_mode(tmp_path):
    added = run(tmp_path, "sites", "allow", "Docs.Example.org", "*.wiki.example")
    assert added.exit_code == 0, added.output
    assert "docs.example.org: added to the allow list" in added.output
    assert "sovereign sites mode allow-only" in added.output  # the mode is still off
    assert run(tmp_path, "sites", "block", "ads.example").exit_code == 0
    assert run(tmp_path, "sites", "mode", "allow-only").exit_code == 0
    listed = run(tmp_path, "sites", "list")
    assert "mode: allow-only" in listed.output
    assert "allow list (applies): docs.example.org, *.wiki.example" in listed.output
    assert "block list: ads.example" in listed.output
    assert run(tmp_path, "sites", "remove", "DOCS.example.org.").exit_code == 0
    assert [r.text for r in SiteListStore(tmp_path).site_list().allow] == ["*.wiki.example"]
    missing = run(tmp_path, "sites", "remove", "never.example")
    assert missing.exit_code == 1 and "on neither list" in missing.output


def test_the_cli_refuses_a_bad_site_and_never_overwrites_a_corrupt_file(tmp_path):
    refused = run(tmp_path, "sites", "allow", "*.co.uk")
    assert refused.exit_code == 1 and "public suffix" in refused.output
    store = SiteListStore(tmp_path)
    write(store.path, b"{broken")
    for args in (("sites", "allow", "ok.example"), ("sites", "mode", "off"), ("sites", "list")):
        result = run(tmp_path, *args)
        assert result.exit_code == 1 and "not valid JSON" in result.output
    assert store.path.read_bytes() == b"{broken"


def test_the_cli_shows_and_sets_the_search_settings(tmp_path):
    shown = run(tmp_path, "search-settings")
    assert shown.exit_code == 0
    assert "language: auto, safesearch: 1 (in any language (the search service" in shown.output
    changed = run(tmp_path, "search-settings", "--language", "de", "--safesearch", "1")
    assert changed.exit_code == 0
    assert "in German, safe search moderate" in changed.output
    assert SearchSettingsStore(tmp_path).settings() == SearchSettings("de", 1)
    only_level = run(tmp_path, "search-settings", "--safesearch", "2")
    assert only_level.exit_code == 0
    assert SearchSettingsStore(tmp_path).settings() == SearchSettings("de", 2)
    bad = run(tmp_path, "search-settings", "--language", "english")
    assert bad.exit_code == 1 and "not a SearXNG language code" in bad.output
    listing = run(tmp_path, "search-settings", "--list-languages")
    assert "de\tGerman" in listing.output and "pt-BR\tPortuguese (Brazil)" in listing.output


def test_a_refused_site_or_search_language_is_said_in_the_terminal_s_language(tmp_path):
    args = ["--data-dir", str(tmp_path)]
    german = CliRunner().invoke(
        main, ["sites", "allow", "example.org/path", *args], env={"LANG": "de_DE.UTF-8"}
    )
    assert german.exit_code == 1
    assert german.output.startswith("Fehler: 'example.org/path' ist keine Seite: Schreiben Sie")
    french = CliRunner().invoke(
        main, ["search-settings", "--language", "english", *args], env={"LANG": "fr_FR.UTF-8"}
    )
    assert french.exit_code == 1 and "n\u2019est pas un code de langue de SearXNG" in french.output
    english = CliRunner().invoke(
        main, ["sites", "allow", "example.org/path", *args], env={"LANG": "C"}
    )
    assert "is not a site: write a host name" in english.output
    assert not SiteListStore(tmp_path).path.exists()  # nothing saved
