"""The ``sovereign`` console script."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sovereign import __version__
from sovereign.cli import main


def test_version_prints_the_package_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_every_command_with_a_whole_sentence():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    commands = result.output.split("Commands:")[1].strip().splitlines()
    names = [line.split()[0] for line in commands]
    assert names == [
        "audit", "chat", "doctor", "household-settings", "model", "passwd", "policy",
        "private-words", "search-settings", "serve", "sites",
    ]  # fmt: skip
    assert not any(line.rstrip().endswith("...") for line in commands), commands


def test_the_module_runs_as_a_program():
    completed = subprocess.run(
        [sys.executable, "-m", "sovereign.cli", "--version"],
        capture_output=True, text=True, check=True,
    )
    assert __version__ in completed.stdout


GERMAN = {"LANG": "de_DE.UTF-8"}
LOCALE_SILENT = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}
SAID_IN = {
    "en": "Error: nothing.example is on neither list.",
    "de": "Fehler: nothing.example steht auf keiner der beiden Listen.",
    "fr": "Erreur : nothing.example ne figure sur aucune des deux listes.",
    "es": "Error: nothing.example no está en ninguna de las dos listas.",
    "nl": "Fout: nothing.example staat op geen van beide lijsten.",
    "it": "Errore: nothing.example non è in nessuno dei due elenchi.",
}
LOCALES = {"en": "en_US.UTF-8", "de": "de_AT.UTF-8", "fr": "fr_FR.UTF-8",
           "es": "es_MX.UTF-8", "nl": "nl_NL.UTF-8", "it": "it_IT.UTF-8"}  # fmt: skip


def _run(tmp_path, env, *args):
    return CliRunner().invoke(main, [*args, "--data-dir", str(tmp_path)], env=env)


def test_household_settings_confirms_in_the_terminal_s_language(tmp_path):
    result = _run(tmp_path, GERMAN, "household-settings", "--language", "de")
    assert result.exit_code == 0, result.output
    assert result.output == (
        "Sprache: de (Deutsch); ab der nächsten Frage wird eine Frage, die zu kurz ist, um "
        "ihre Sprache zu erkennen, in dieser Sprache beantwortet\n"
    )
    shown = _run(tmp_path, {"LANGUAGE": "nl", "LANG": "de_DE.UTF-8"}, "household-settings")
    assert shown.output == "taal: de (Deutsch)\n"


@pytest.mark.parametrize("language", list(SAID_IN))
def test_an_error_is_said_in_each_language_and_keeps_its_exit_code(tmp_path, language):
    result = _run(tmp_path, {"LANG": LOCALES[language]}, "sites", "remove", "nothing.example")
    assert result.exit_code == 1
    assert result.output == SAID_IN[language] + "\n"


def test_without_a_locale_the_household_s_language_speaks_and_c_says_english(tmp_path):
    _run(tmp_path, {"LANG": "C.UTF-8"}, "household-settings", "--language", "it")
    assert _run(tmp_path, LOCALE_SILENT, "policy", "show").output == "ricerca web: disattivata\n"
    assert _run(tmp_path, {"LC_ALL": "C"}, "policy", "show").output == "web search: off\n"


def test_counts_are_written_and_declined_in_the_language(tmp_path):
    one = _run(tmp_path, GERMAN, "private-words", "add", "Juniper Lane")
    assert one.output == "1 privates Wort; gilt ab der nächsten Anfrage.\n"
    two = _run(tmp_path, {"LANG": "fr_FR.UTF-8"}, "private-words", "add", "Dupont")
    assert two.output == "2 mots privés ; s\u2019applique dès la prochaine demande.\n"
    listed = _run(tmp_path, GERMAN, "private-words", "list")
    assert listed.stdout == "Dupont\nJuniper Lane\n"  # the words themselves, as stored


def test_what_scripts_read_does_not_change_with_the_language(tmp_path):
    english = _run(tmp_path, None, "audit", "--json")
    german = _run(tmp_path, GERMAN, "audit", "--json")
    assert german.exit_code == english.exit_code == 0
    assert json.loads(german.output).keys() == json.loads(english.output).keys()
    assert "Fähigkeit" in _run(tmp_path, GERMAN, "audit").output  # the table is said
    refused = _run(tmp_path, GERMAN, "household-settings", "--language", "Deutsch")
    assert refused.exit_code == 2  # click's own usage error, English, exit code unchanged


def test_help_is_said_in_the_terminal_s_language_and_english_stays_english():
    german = CliRunner().invoke(main, ["household-settings", "--help"], env=GERMAN)
    assert german.exit_code == 0
    assert german.output.startswith("Aufruf: ")
    assert "Die Sprache des Haushalts anzeigen oder setzen" in german.output
    assert "Diese Hilfe anzeigen und beenden." in german.output and "Optionen:" in german.output
    listing = CliRunner().invoke(main, ["--help"], env={"LANG": "es_ES.UTF-8"})
    assert "Comandos:" in listing.output and "Mostrar o fijar el idioma" in listing.output
    english = CliRunner().invoke(main, ["household-settings", "--help"])
    assert "Show the household's language, or set it" in english.output
    assert "Die Sprache" not in english.output and english.output.startswith("Usage: ")


def test_doctor_says_its_findings_in_the_language_and_keeps_its_marks(tmp_path):
    from sovereign.cli_words import CliWords
    from sovereign.doctor import DoctorConfig, check_household, check_policy, format_finding
    from sovereign.service.household_settings import HouseholdSettings, HouseholdSettingsStore

    HouseholdSettingsStore(tmp_path).save(HouseholdSettings("nl"))
    (tmp_path / "capabilities").mkdir()
    (tmp_path / "capabilities" / "policy.json").write_text("{")
    config = DoctorConfig(data_dir=tmp_path, words=CliWords("de"))
    (household,) = asyncio.run(check_household(config))
    assert format_finding(household, config.words) == (
        "[ ok ] Sprache des Haushalts: Nederlands (nl) für Fragen, die zu kurz sind, um ihre "
        "Sprache zu erkennen"
    )
    (policy,) = asyncio.run(check_policy(config))
    first, fix = format_finding(policy, config.words).splitlines()
    assert first.startswith("[FAIL] Richtliniendatei: ")
    assert first.endswith("Die Websuche ist aus, bis das behoben ist.")
    assert fix == (
        "       Abhilfe: neu schreiben: sovereign policy enable-web-search (oder "
        "disable-web-search)"
    )


def test_search_languages_are_named_by_cldr_in_the_terminal_s_language(tmp_path):
    french = {"LANG": "fr_FR.UTF-8"}
    saved = _run(tmp_path, french, "search-settings", "--language", "de", "--safesearch", "2")
    assert saved.output == (
        "Les recherches se font désormais en allemand, recherche sécurisée : stricte "
        "(langue de, safesearch 2 : stricte).\n"
    )
    shown = _run(tmp_path, {"LANG": "es_ES.UTF-8"}, "search-settings")
    assert shown.output == "idioma: de, safesearch: 2 (en alemán, búsqueda segura: estricta)\n"
