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
        "Sprache: de (Deutsch); die Konsole erscheint darin ab ihrem nächsten Laden, und ab "
        "der nächsten Frage wird eine Frage, die zu kurz ist, um ihre Sprache zu erkennen, in "
        "dieser Sprache beantwortet\n"
    )
    shown = _run(tmp_path, {"LANGUAGE": "nl", "LANG": "de_DE.UTF-8"}, "household-settings")
    assert shown.output == "taal: de (Deutsch)\n"


@pytest.mark.parametrize("language", list(SAID_IN))
def test_an_error_is_said_in_each_language_and_keeps_its_exit_code(tmp_path, language):
    result = _run(tmp_path, {"LANG": LOCALES[language]}, "sites", "remove", "nothing.example")
    assert result.exit_code == 1
    assert result.output == SAID_IN[language] + "\n"


def test_the_household_s_language_is_said_to_be_the_console_s_too(tmp_path):
    helped = CliRunner().invoke(main, ["household-settings", "--help"])
    assert "The Console is shown in it" in " ".join(helped.output.split())
    listing = CliRunner().invoke(main, ["--help"], env={"LANG": "de_DE.UTF-8"})
    assert "Konsole" in listing.output
    saved = _run(tmp_path, {"LANG": "C.UTF-8"}, "household-settings", "--language", "it")
    assert "the Console" in saved.output
    from sovereign.cli_words import CliWords
    from sovereign.doctor import DoctorConfig, check_household

    config = DoctorConfig(data_dir=tmp_path, words=CliWords("fr"))
    (finding,) = asyncio.run(check_household(config))
    assert finding.detail.startswith("Italiano (it) pour la console")


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
    assert json.loads(german.output) == json.loads(english.output)
    assert json.loads(german.output).keys() == json.loads(english.output).keys()
    assert "Fähigkeit" in _run(tmp_path, GERMAN, "audit").output  # the table is said
    refused = _run(tmp_path, GERMAN, "household-settings", "--language", "Deutsch")
    assert refused.exit_code == 2  # click's own usage error, said, its exit code unchanged
    assert refused.stderr.startswith("Aufruf: main household-settings [OPTIONS]\n")


def _sovereign(env, *args, **options):
    return CliRunner().invoke(main, list(args), env=env, prog_name="sovereign", **options)


INVALID_CHOICE = {
    "en": "Usage: sovereign household-settings [OPTIONS]\n"
    "Try 'sovereign household-settings --help' for help.\n\n"
    "Error: Invalid value for '--language': 'xx' is not one of 'en', 'de', 'fr', 'es', 'nl', "
    "'it'.\n",
    "de": "Aufruf: sovereign household-settings [OPTIONS]\n"
    "Weitere Informationen mit 'sovereign household-settings --help'.\n\n"
    "Fehler: Ungültiger Wert für '--language': 'xx' ist keiner der Werte 'en', 'de', 'fr', "
    "'es', 'nl', 'it'.\n",
    "it": "Uso: sovereign household-settings [OPTIONS]\n"
    "Per ulteriori informazioni: 'sovereign household-settings --help'.\n\n"
    "Errore: Valore non valido per '--language': 'xx' non è uno tra 'en', 'de', 'fr', 'es', "
    "'nl', 'it'.\n",
}


@pytest.mark.parametrize("language", list(INVALID_CHOICE))
def test_click_s_usage_errors_are_said_in_the_terminal_s_language(tmp_path, language):
    env = {"LANG": LOCALES[language]}
    result = _sovereign(env, "household-settings", "--language", "xx", "--data-dir", tmp_path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == INVALID_CHOICE[language]


@pytest.mark.parametrize(
    ("args", "german", "french"),
    [
        (["sites", "remove"], "Fehler: Es fehlt das Argument 'SITE...'.",
         "Erreur : Il manque l\u2019argument 'SITE...'."),
        (["audit", "--dayz", "3"], "Fehler: Die Option '--dayz' gibt es nicht. Meinten Sie "
         "'--days'?", "Erreur : L\u2019option '--dayz' n\u2019existe pas. Vouliez-vous dire "
         "'--days' ?"),
        (["polcy"], "Fehler: Den Befehl 'polcy' gibt es nicht. Meinten Sie 'policy'?",
         "Erreur : La commande 'polcy' n\u2019existe pas. Vouliez-vous dire 'policy' ?"),
        (["audit", "--days", "0"], "Fehler: Ungültiger Wert für '--days': 0 liegt nicht im "
         "Bereich 1<=x<=3650.", "Erreur : Valeur non valide pour '--days' : 0 n\u2019est pas "
         "dans l\u2019intervalle 1<=x<=3650."),
        (["audit", "--json", "extra"], "Fehler: Unerwartetes zusätzliches Argument (extra)",
         "Erreur : Argument supplémentaire inattendu (extra)"),
        (["audit", "--data-dir", "notes.txt"], "Fehler: Ungültiger Wert für '--data-dir': "
         "'notes.txt' ist eine Datei, kein Verzeichnis.", "Erreur : Valeur non valide pour "
         "'--data-dir' : 'notes.txt' est un fichier, pas un dossier."),
    ],
)  # fmt: skip
def test_every_kind_of_usage_error_keeps_exit_code_2_and_is_said(
    args, german, french, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("")
    said = _sovereign(GERMAN, *args)
    assert said.exit_code == 2
    assert said.stderr.splitlines()[-1] == german
    assert "Weitere Informationen mit 'sovereign " in said.stderr
    assert _sovereign({"LANG": "fr_FR.UTF-8"}, *args).stderr.splitlines()[-1] == french
    english = _sovereign({"LC_ALL": "C"}, *args)
    assert english.exit_code == 2 and english.stderr.splitlines()[-1].startswith("Error: ")


def test_a_prompt_s_complaint_is_said_and_click_s_own_gettext_is_put_back(tmp_path):
    import gettext

    import click.exceptions
    import click.termui

    typed = "first passphrase ok\nanother passphrase\n" + "good horse battery\n" * 2
    result = _sovereign(GERMAN, "passwd", "--data-dir", tmp_path, input=typed)
    assert result.exit_code == 0, result.output
    assert "Fehler: Die beiden Eingaben stimmen nicht überein." in result.output
    assert click.exceptions._ is gettext.gettext and click.termui._ is gettext.gettext
    assert click.exceptions.ngettext is gettext.ngettext


def test_help_notes_and_headings_are_click_s_words_said():
    german = _sovereign(GERMAN, "audit", "--help").stdout
    assert "[Standard: 7; 1<=x<=3650]" in german and "Optionen:" in german
    dutch = _sovereign({"LANG": "nl_NL.UTF-8"}, "--help").stdout
    assert dutch.startswith("Gebruik: sovereign [OPTIONS] COMMAND") and "Opdrachten:" in dutch


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
        "[ ok ] Sprache des Haushalts: Nederlands (nl) für die Konsole und für Fragen, die zu "
        "kurz sind, um ihre Sprache zu erkennen"
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


def _failed_searches(data_dir, times):
    from sovereign.executor import AuditLog, ErrorCode, OutcomeKind, Stage
    from tests.service.test_audit_summary import SEARCH

    log = AuditLog(data_dir)
    for _ in range(times):
        started = log.begin(SEARCH, version=1)
        log.record(SEARCH, version=1, stage=Stage.EXECUTE, outcome=OutcomeKind.FAILED,
                   error_code=ErrorCode.EXECUTION_FAILED, started=started,
                   reason="searxng: unreachable", sent=False)  # fmt: skip


def test_audit_and_doctor_say_the_owner_s_repair_and_the_json_keeps_it_english(tmp_path):
    from sovereign.conversation.voice.activity import REPAIRS

    _failed_searches(tmp_path, 2)
    german = _run(tmp_path, GERMAN, "audit").output
    assert (
        "web.search: 2 Fehlschläge: Der Suchdienst des Geräts (SearXNG) lief nicht. Starten "
        "Sie ihn mit deploy/searxng/start-searxng"
    ) in german
    assert "was not running" not in german
    italian = _run(tmp_path, {"LANG": "it_IT.UTF-8"}, "audit").output
    assert "(SearXNG) non era in funzione. Lo avvii con deploy" in italian
    for env in (GERMAN, {"LANG": "it_IT.UTF-8"}, None):
        [repair] = json.loads(_run(tmp_path, env, "audit", "--json").output)["repairs"]
        assert repair["repair"] == REPAIRS["searxng: unreachable"]
    from sovereign.cli_words import CliWords
    from sovereign.doctor import DoctorConfig, _recent_repairs

    [note] = _recent_repairs(DoctorConfig(data_dir=tmp_path), CliWords("fr"))
    assert note.startswith(
        "[note] web.search a échoué 2 fois au cours du dernier jour : Le service de recherche de "
        "l\u2019appareil (SearXNG) ne fonctionnait pas."
    )


def test_a_settings_file_s_problem_the_store_found_is_said_in_the_language(tmp_path):
    (tmp_path / "capabilities").mkdir()
    policy = tmp_path / "capabilities" / "policy.json"
    policy.write_text("{")
    shown = _run(tmp_path, GERMAN, "policy", "show")
    assert shown.exit_code == 1
    assert shown.stderr == (
        f"Problem: {policy} ist kein gültiges JSON. Sie gilt als aus.\n"
    )
    words = tmp_path / "private-words.json"
    words.write_text('{"words": ["Juniper Lane"]}')
    words.chmod(0o644)
    listed = _run(tmp_path, {"LANG": "nl_NL.UTF-8"}, "private-words", "list")
    assert listed.exit_code == 1
    assert listed.stdout == "Juniper Lane\n"  # the words are still used
    assert listed.stderr == (
        f"Probleem: {words} kan door andere gebruikers worden gelezen (modus 0644); voer uit: "
        f"chmod 600 {words}\n"
    )
    english = _run(tmp_path, None, "policy", "show")
    assert f"problem: {policy} is not valid JSON. It counts as off." in english.stderr


REFUSED_WORD = {
    "de": "Fehler: 'x' nicht geändert: Ein privates Wort braucht mindestens zwei Buchstaben "
    "oder Ziffern.",
    "fr": "Erreur : 'x' non modifié : Un mot privé doit compter au moins deux lettres ou "
    "chiffres.",
    "es": "Error: 'x' no se ha cambiado: Una palabra privada necesita al menos dos letras "
    "o cifras.",
    "nl": "Fout: 'x' niet gewijzigd: Een privéwoord moet minstens twee letters of cijfers "
    "bevatten.",
    "it": "Errore: 'x' non modificata: Una parola privata deve contenere almeno due lettere o "
    "cifre.",
    "en": "Error: 'x' not changed: A private word needs at least two letters or digits.",
}


@pytest.mark.parametrize("language", list(REFUSED_WORD))
def test_a_refused_private_word_is_said_in_the_terminal_s_language(tmp_path, language):
    result = _run(tmp_path, {"LANG": LOCALES[language]}, "private-words", "add", "x")
    assert result.exit_code == 1
    assert result.stderr == REFUSED_WORD[language] + "\n"


def test_a_word_refused_for_its_invisible_character_names_it_in_the_language(tmp_path):
    result = _run(tmp_path, {"LANG": "nl_NL.UTF-8"}, "private-words", "add", "a\u200bb c")
    assert result.exit_code == 1
    assert result.stderr == (
        "Fout: 'a\\u200bb c' niet gewijzigd: Het privéwoord bevat op positie 2 een teken dat "
        "niet getoond kan worden (U+200B ZERO WIDTH SPACE).\n"
    )


def test_a_change_to_a_broken_settings_file_is_refused_in_the_language(tmp_path):
    words = tmp_path / "private-words.json"
    words.write_text("{")
    refused = _run(tmp_path, GERMAN, "private-words", "add", "Juniper")
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"Fehler: 'Juniper' nicht geändert: {words} ist kein gültiges JSON. Beheben Sie das "
        "zuerst oder entfernen Sie die Datei; sie bleibt, wie sie ist, damit nichts darin "
        "verloren geht.\n"
    )
    assert words.read_text() == "{"
    (tmp_path / "capabilities").mkdir()
    sites = tmp_path / "capabilities" / "sites.json"
    sites.write_text("[]")
    blocked = _run(tmp_path, {"LANG": "es_ES.UTF-8"}, "sites", "block", "example.org")
    assert blocked.exit_code == 1
    assert blocked.stderr.endswith(
        "Corrija o elimine primero el archivo; se deja tal cual para que no se pierda nada de "
        "su contenido.\n"
    )


PASSWORD_RULE = {
    "de": "Fehler: Das Passwort braucht mindestens 8 Zeichen.",
    "fr": "Erreur : Le mot de passe doit compter au moins 8 caractères.",
    "es": "Error: La contraseña necesita al menos 8 caracteres.",
    "nl": "Fout: Het wachtwoord moet minstens 8 tekens hebben.",
    "it": "Errore: La password deve avere almeno 8 caratteri.",
    "en": "Error: The password needs at least 8 characters.",
}


@pytest.mark.parametrize("language", list(PASSWORD_RULE))
def test_a_rejected_password_is_said_in_the_terminal_s_language(tmp_path, language):
    env = {"LANG": LOCALES[language]}
    result = _sovereign(env, "passwd", "--data-dir", tmp_path, input="short\nshort\n")
    assert result.exit_code == 1
    assert result.stderr == PASSWORD_RULE[language] + "\n"
    assert not (tmp_path / "console-auth.json").exists()
    long = "p" * 1025
    too_long = _sovereign(GERMAN, "passwd", "--data-dir", tmp_path, input=f"{long}\n{long}\n")
    assert too_long.stderr == "Fehler: Das Passwort darf höchstens 1.024 Zeichen haben.\n"


def test_the_system_s_reason_a_write_failed_is_said_in_the_language(tmp_path, monkeypatch):
    import errno

    def full(path, value, **options):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("sovereign.service.settings_store.write_json_atomic", full)
    refused = _run(tmp_path, GERMAN, "policy", "enable-web-search")
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"Fehler: {tmp_path / 'capabilities' / 'policy.json'} konnte nicht geschrieben werden: "
        "Auf dem Gerät ist kein Speicherplatz mehr frei\n"
    )


def test_the_system_s_reason_a_settings_file_is_unreadable_is_said_in_the_language(tmp_path):
    import errno

    from sovereign.cli_words import CliWords
    from sovereign.file_problems import FileProblem
    from sovereign.service.settings_store import say_problem

    path = tmp_path / "sites.json"
    problem = FileProblem("unreadable", path=path, reason="Permission denied", errno=errno.EACCES)
    assert problem == f"{path} cannot be read (Permission denied)."
    assert say_problem(problem, CliWords("es")) == (
        f"{path} no se puede leer (Permiso denegado)."
    )


def test_what_is_wrong_in_a_settings_file_s_content_is_said_in_the_language(tmp_path):
    (tmp_path / "capabilities").mkdir()
    sites = tmp_path / "capabilities" / "sites.json"
    sites.write_text('{"mode": "block", "block": ["example.org", "*.co.uk"]}')
    listed = _run(tmp_path, GERMAN, "sites", "list")
    assert listed.exit_code == 1
    assert (
        f"Problem: {sites}: Eintrag 2 von block ist keine Seite: *.co.uk würde jede Seite "
        "umfassen, die unter dem öffentlichen Suffix co.uk registriert ist; nennen Sie eine "
        "Seite darunter. Keine Liste gilt.\n"
    ) in listed.stderr
    policy = tmp_path / "capabilities" / "policy.json"
    policy.write_text('{"web_search_enabled": "yes"}')
    shown = _run(tmp_path, {"LANG": "fr_FR.UTF-8"}, "policy", "show")
    assert shown.stderr == (
        f"Problème : {policy} : doit contenir exactement {{\"web_search_enabled\": "
        "true|false}. Elle compte comme désactivée.\n"
    )
    english = _run(tmp_path, {"LC_ALL": "C"}, "policy", "show")
    assert english.stderr == (
        f'problem: {policy}: must hold exactly {{"web_search_enabled": true|false}}. It '
        "counts as off.\n"
    )


def test_doctor_says_what_is_wrong_in_home_assistant_s_and_pi_hole_s_settings(tmp_path):
    home_assistant = tmp_path / "home-assistant.json"
    home_assistant.write_text(
        '{"enabled": true, "base_url": "ftp://h", "token": "t", "allowlist": []}'
    )
    pihole = tmp_path / "pihole.json"
    pihole.write_text('{"password": "p", "base_url": "http://192.168.1.2"}')
    for path in (home_assistant, pihole):
        path.chmod(0o600)
    env = {"SOVEREIGN_DATA_DIR": str(tmp_path)}
    args = ["doctor", "--searxng-url", "http://127.0.0.1:9"]
    german = CliRunner().invoke(main, args, env={**env, **LOCALE_SILENT, "LANGUAGE": "de"})
    assert german.exit_code == 1
    assert (
        f"[FAIL] Einstellungen für Home Assistant: {home_assistant}: base_url muss mit http:// "
        "oder https:// beginnen und einen Host nennen.\n"
    ) in german.output
    assert (
        f"[FAIL] Einstellungen für Pi-hole: {pihole}: base_url muss auf dieses Gerät zeigen "
        "(127.0.0.1, ::1 oder localhost).\n       Abhilfe: korrigieren Sie die Datei (siehe "
        "README: Einstellungen für Pi-hole und Home Assistant); bis dahin kann der Assistent "
        "die Pi-hole-Zahlen nicht abrufen\n"
    ) in german.output
    english = CliRunner().invoke(main, args, env={**env, "LC_ALL": "C"})
    assert (
        f"[FAIL] home assistant settings: {home_assistant}: base_url must start with http:// "
        "or https:// and name a host.\n"
    ) in english.output
    assert (
        f"[FAIL] Pi-hole settings: {pihole}: base_url must point at this device (127.0.0.1, "
        "::1 or localhost).\n"
    ) in english.output
