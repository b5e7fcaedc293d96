"""``sovereign doctor``'s SearXNG checks against the replaying fake SearXNG."""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.doctor import (
    CHECKS,
    DoctorConfig,
    Finding,
    check_searxng,
    format_finding,
    run_checks,
)
from tests.fakes.searxng import FakeSearxng


@pytest.fixture
def fake():
    with FakeSearxng() as server:
        yield server


def run_doctor(*args):
    """``sovereign doctor`` with the service's port on one nobody listens on: the
    console-address check then has nothing to judge, whatever runs on this machine."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return CliRunner().invoke(main, ["doctor", "--port", str(port), *args])


def test_healthy_searxng_passes_every_check_and_counts_engines_when_the_probe_is_asked(fake):
    result = run_doctor("--searxng-url", fake.base_url, "--probe")
    assert result.exit_code == 0, result.output
    assert "[FAIL]" not in result.output
    assert result.output.startswith(
        "The engine probe sends 'open source software' to SearXNG's search engines."
    )
    assert "[ ok ] SearXNG reachable" in result.output
    assert "[ ok ] SearXNG JSON API and limiter" in result.output
    assert "2 engines answered the probe (local-html, local-json)" in result.output
    assert [r.path for r in fake.requests] == ["/healthz", "/search", "/search"]
    assert fake.requests[1].q == ""


def test_by_default_no_test_search_leaves_and_the_engines_are_said_not_checked(fake):
    result = run_doctor("--searxng-url", fake.base_url)
    assert result.exit_code == 0, result.output
    assert [r.q for r in fake.requests_to("/search")] == [""]  # the JSON check asks no engine
    assert "[ -- ] SearXNG engines: not checked: sovereign doctor --probe" in result.output
    assert "answered the probe" not in result.output
    assert "open source software" not in result.output


def test_nothing_that_was_not_checked_is_reported_ok(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("SOVEREIGN_DATA_DIR", str(tmp_path))  # no model installed here
    result = run_doctor("--searxng-url", fake.base_url, "--backend", "embedded")
    assert result.exit_code == 1
    assert "[FAIL] embedded model:" in result.output
    lines = result.output.splitlines()
    assert not [line for line in lines if line.startswith("[ ok ]") and "not checked" in line]
    assert "[ -- ] model tool mode: embedded backend, schema mode (set, not tested)" in lines


def test_json_format_disabled_fails_with_the_settings_fix(fake):
    fake.answer("/search", "error_json_format_not_enabled")
    fake.answer("/healthz", "healthz_json_not_enabled")
    result = run_doctor("--searxng-url", fake.base_url)
    assert result.exit_code == 1
    assert "[FAIL] SearXNG JSON API and limiter: SearXNG refuses format=json (HTTP 403)" in (
        result.output
    )
    assert "fix: add json to search.formats" in result.output
    assert len(fake.requests_to("/search")) == 1


def test_limiter_on_fails_with_the_settings_fix(fake):
    fake.answer("/search", "limiter_on_with_valkey_accept_json_only")
    fake.answer("/healthz", "limiter_on_with_valkey_healthz")
    result = run_doctor("--searxng-url", fake.base_url)
    assert result.exit_code == 1
    assert "limiter refused the check (HTTP 429)" in result.output
    assert "fix: set server.limiter: false" in result.output


def test_unreachable_searxng_fails_and_skips_the_rest():
    with FakeSearxng() as closed:
        url = closed.base_url
    result = run_doctor("--searxng-url", url)
    assert result.exit_code == 1
    assert "[FAIL] SearXNG reachable" in result.output
    assert "fix: start it" in result.output
    assert "JSON API" not in result.output


def test_wrong_healthz_answer_fails(fake):
    fake.answer("/healthz", "not_found")
    result = run_doctor("--searxng-url", fake.base_url)
    assert result.exit_code == 1
    assert "answered HTTP 404, not OK" in result.output


@pytest.mark.parametrize(
    ("fixture", "ok", "text"),
    [
        ("search_partial_failure_http500", True, "1 engine answered the probe (local-json); "
                                                 "1 failed: local-html (HTTP error)"),
        ("search_shipped_default_engines_offline", False, "all search engines failed"),
        ("search_no_results", False, "0 engines answered the probe (none)"),
    ],
)
async def test_engine_probe_reports_answering_and_failed_engines(fake, fixture, ok, text):
    fake.answer("/search", fixture)
    findings = await check_searxng(DoctorConfig(searxng_url=fake.base_url, probe=True))
    engines = findings[-1]
    assert engines.check == "SearXNG engines"
    assert engines.ok is ok
    assert text in engines.detail
    assert ok or engines.fix


async def test_a_bad_url_is_a_finding_not_a_crash():
    (finding,) = await check_searxng(DoctorConfig(searxng_url="searxng:8093"))
    assert not finding.ok
    assert "http" in finding.detail


async def test_run_checks_runs_every_check_in_order():
    async def first(config):
        return [Finding("first", True, "fine")]

    async def second(config):
        return [Finding("second", False, "broken", "mend it")]

    findings = await run_checks(DoctorConfig(), [first, second])
    assert [f.check for f in findings] == ["first", "second"]
    assert check_searxng in CHECKS


async def test_the_model_check_refuses_a_missing_or_wrong_file(tmp_path, monkeypatch):
    from sovereign import doctor as doctor_module
    from sovereign.model import DEFAULT_MODEL, ModelUnreadable

    assert doctor_module.check_model in CHECKS
    config = DoctorConfig(data_dir=tmp_path)
    (missing,) = await doctor_module.check_model(config)
    assert not missing.ok and "does not exist" in missing.detail
    assert "sovereign model install" in missing.fix

    models = tmp_path / "models"
    models.mkdir()
    (models / DEFAULT_MODEL.file_name).write_bytes(b"GGUF not the real model")
    (wrong,) = await doctor_module.check_model(config)
    assert not wrong.ok and "bytes" in wrong.detail

    def unreadable(path):
        raise ModelUnreadable(f"The model file {path} cannot be read by this user.")

    monkeypatch.setattr(doctor_module, "verify_model", unreadable)
    (locked,) = await doctor_module.check_model(config)
    assert not locked.ok and "cannot be read" in locked.detail
    assert "service's user" in locked.fix

    monkeypatch.setattr(doctor_module, "verify_model", lambda path: None)
    (good,) = await doctor_module.check_model(config)
    assert good.ok and str(models) in good.detail


async def test_the_home_assistant_check_names_an_unusable_settings_file(tmp_path):
    import os

    from sovereign import doctor as doctor_module

    assert doctor_module.check_home_assistant in CHECKS
    config = DoctorConfig(data_dir=tmp_path)
    (absent,) = await doctor_module.check_home_assistant(config)
    assert absent.ok
    path = tmp_path / "home-assistant.json"
    path.write_text("{not json")
    os.chmod(path, 0o600)
    (corrupt,) = await doctor_module.check_home_assistant(config)
    assert not corrupt.ok and "home-assistant.json" in corrupt.detail
    assert "counts as off" in corrupt.fix
    from sovereign.cli_words import CliWords

    german = DoctorConfig(data_dir=tmp_path, words=CliWords("de"))
    (said,) = await doctor_module.check_home_assistant(german)
    assert said.detail == f"{path} ist kein gültiges JSON."
    os.chmod(path, 0o640)
    (open_file,) = await doctor_module.check_home_assistant(german)
    assert open_file.detail.startswith(f"{path} enthält ein Geheimnis, aber andere Benutzer")


SEARXNG_LOG = [  # SearXNG's own wording (searx/search/processors/abstract.py, engines/__init__.py)
    "2026-12-01 09:00:01,123 INFO:searx.webapp: Starting",
    "2026-12-01 09:00:02,456 ERROR:searx.search.processors: (PID 7) wikidata: engine INIT "
    "failed, exception: HTTPSConnectionPool(host='query.wikidata.org')",
    "2026-12-01 09:00:02,457 ERROR:searx.search.processors: (PID 7) wikidata: can't register "
    "engines processor (init engine failed)",
    '2026-12-01 09:00:02,500 ERROR:searx.engines: Cannot load engine "soundcloud"',
    "2026-12-01 09:00:03,000 WARNING:searx.engines.duckduckgo: engine suspended",
]


def test_engines_searxng_dropped_at_start_up_are_named_from_its_log():
    from sovereign.searxng_log import failed_engines

    assert failed_engines(SEARXNG_LOG) == ["soundcloud", "wikidata"]
    assert failed_engines(SEARXNG_LOG[:1] + SEARXNG_LOG[-1:]) == []


async def test_doctor_fails_and_names_the_engines_that_did_not_start():
    from sovereign.doctor import check_searxng_engine_start

    (finding,) = await check_searxng_engine_start(DoctorConfig(searxng_log=lambda: SEARXNG_LOG))
    assert finding.ok is False
    assert "2 engines failed to initialise" in finding.detail
    assert "soundcloud, wikidata" in finding.detail
    assert "restart" in finding.fix
    assert check_searxng_engine_start in CHECKS


async def test_doctor_passes_on_a_clean_log_and_says_when_it_cannot_read_one():
    from sovereign.doctor import check_searxng_engine_start

    (clean,) = await check_searxng_engine_start(DoctorConfig(searxng_log=lambda: SEARXNG_LOG[:1]))
    assert clean.ok and "every engine started" in clean.detail
    (unread,) = await check_searxng_engine_start(DoctorConfig(searxng_log=lambda: None))
    assert unread.ok and unread.detail.startswith("not checked") and not unread.checked
    assert format_finding(unread).startswith("[ -- ] SearXNG engine start-up: not checked")


def test_searxng_s_errors_and_fixes_are_said_in_the_terminal_s_language():
    with FakeSearxng() as closed:
        url = closed.base_url
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["doctor", "--port", str(port), "--searxng-url", url]
    german = CliRunner().invoke(main, args, env={"LANG": "de_DE.UTF-8"})
    assert german.exit_code == 1
    assert f"[FAIL] SearXNG erreichbar: SearXNG unter {url} ist nicht erreichbar (" in (
        german.output
    )
    assert "Abhilfe: starten Sie es (deploy/searxng/start-searxng" in german.output
    assert "is not reachable" not in german.output


async def test_a_failed_probe_is_said_with_its_fix(fake):
    from sovereign.cli_words import CliWords

    fake.answer("/search", "search_shipped_default_engines_offline")
    config = DoctorConfig(searxng_url=fake.base_url, probe=True, words=CliWords("fr"))
    engines = (await check_searxng(config))[-1]
    assert not engines.ok
    assert engines.detail.startswith(
        "tous les moteurs de recherche ont échoué : SearXNG n\u2019a rien trouvé"
    )
    assert engines.fix.startswith("vérifiez la connexion Internet de l\u2019appareil")
    (bad,) = await check_searxng(DoctorConfig(searxng_url="searxng:8093", words=CliWords("it")))
    assert bad.detail == (
        "l\u2019indirizzo di SearXNG deve essere http(s)://host[:porta], non 'searxng:8093'"
    )
