"""What the administrator's commands say (sovereign.cli_words): every sentence, count,
heading, check name and help text is in every language's ``cli`` catalog with the
English's placeholders, and the language is the terminal locale's."""

from __future__ import annotations

import string

import pytest

from sovereign.capabilities.searxng import FIXES, MESSAGES
from sovereign.capabilities.web_fetch import HOME_NETWORK
from sovereign.cli import main
from sovereign.cli_words import (
    AUDIT_LABELS,
    CATALOGS,
    CLICK,
    CLICK_WORDS,
    COUNTED,
    DOCTOR_CHECKS,
    DOMAIN,
    HELP,
    LANGUAGES,
    OS_REASONS,
    SENTENCES,
    CliWords,
    command_language,
    every_help_text,
    locale_language,
)
from sovereign.conversation.backends.openai.http import UNAVAILABLE
from sovereign.conversation.backends.openai.probe import NOTES, REASONS
from sovereign.conversation.voice.activity import REPAIRS
from sovereign.doctor import CHECKS, DoctorConfig
from sovereign.file_problems import PROBLEMS
from sovereign.model.assemble import STATUS as MODEL_STATUS
from sovereign.model.errors import MESSAGES as MODEL_MESSAGES
from sovereign.po_catalogs import translations

TRANSLATED = [language for language in LANGUAGES if language != "en"]
SPELLED_ALIKE = {"Error: {message}", "total", "Options", "auto: {calls}",
                 "auto: {constraint} ({calls})", "auto: {calls}; {constraint}",
                 "{path}: {reason}", "{path}: {problem}"}  # fmt: skip
"""Written as in English in some language (Spanish "Error: ", French "Options", the
typed ``auto`` before what it found, a path and the system's reason)."""
CLICK_LEFT_OUT = {
    "{name} {filename!r} does not exist.": {"name"},
    "{name} {filename!r} is a file.": {"name"},
    "{name} {filename!r} is a directory.": {"name"},
    "{name} {filename!r} is not readable.": {"name"},
    "{name} {filename!r} is not writable.": {"name"},
    "{name} {filename!r} is not executable.": {"name"},
    "{value!r} is not a valid {number_type}.": {"number_type"},
    "DeprecationWarning: The {param_type} {name!r} is deprecated.{extra_message}": {"param_type"},
}
"""Placeholders click fills with English it fixed when the command was defined (a path's
``File``/``Directory``, a number type's ``integer``, ``option``): the translations say
the sentence without them."""


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _said(language: str, context: str, english: str) -> str:
    translated = translations(CATALOGS, DOMAIN, language).pgettext(context, english)
    assert translated != english or english in SPELLED_ALIKE, (language, context, english)
    assert _fields(translated) == _fields(english), (language, context)
    return translated


def _expected() -> set[tuple[str, str]]:
    """Every (context, msgid) the code says."""
    expected = {(key, english) for key, english in SENTENCES.items()}
    expected |= {(key, one) for key, (one, _many) in COUNTED.items()}
    expected |= {(f"audit:{key}", english) for key, english in AUDIT_LABELS.items()}
    expected |= {("doctor", name) for name in DOCTOR_CHECKS}
    expected |= {(HELP, text) for text in every_help_text(main)}
    expected |= {(CLICK, word if isinstance(word, str) else word[0]) for word in CLICK_WORDS}
    expected |= {(f"repair:{reason}", english) for reason, english in REPAIRS.items()}
    expected |= _phrases()
    return expected


def _phrases() -> set[tuple[str, str]]:
    """Sentences the layers below the commands key themselves: (context, English)."""
    phrases = {(f"searxng:{key}", english) for key, english in MESSAGES.items()}
    phrases |= {(f"searxng_fix:{problem}", english) for problem, english in FIXES.items()}
    phrases |= {(f"home_network:{key}", english) for key, english in HOME_NETWORK.items()}
    phrases |= {(f"model:{key}", english) for key, english in MODEL_MESSAGES.items()}
    phrases |= {(f"model_status:{key}", english) for key, english in MODEL_STATUS.items()}
    phrases |= {(f"probe:{key}", english) for key, english in NOTES.items()}
    phrases |= {(f"plan:{key}", english) for key, english in REASONS.items()}
    phrases |= {(f"model_server:{key}", english) for key, english in UNAVAILABLE.items()}
    phrases |= {(f"settings:{key}", english) for key, english in PROBLEMS.items()}
    phrases |= {(f"os_error:{name}", english) for name, english in OS_REASONS.items()}
    return phrases


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_sentence_and_help_text_is_translated_with_its_placeholders(language):
    for key, english in SENTENCES.items():
        _said(language, key, english)
    for key, (one, many) in COUNTED.items():
        for count in (1, 2, 5, 1_000_000):
            translated = translations(CATALOGS, DOMAIN, language).npgettext(key, one, many, count)
            assert translated not in (one, many), (language, key, count)
            assert _fields(translated) == _fields(one), (language, key)
    for key, english in AUDIT_LABELS.items():
        assert " " not in _said(language, f"audit:{key}", english)  # the table splits on spaces
    for name in DOCTOR_CHECKS:
        _said(language, "doctor", name)
    for reason, english in REPAIRS.items():
        assert CliWords(language).repair(reason, english) == _said(
            language, f"repair:{reason}", english)  # fmt: skip
    for context, english in _phrases():
        _said(language, context, english)
    for text in every_help_text(main):
        _said(language, HELP, text)


@pytest.mark.parametrize("language", TRANSLATED)
def test_click_s_own_words_are_translated_with_their_placeholders(language):
    said = translations(CATALOGS, DOMAIN, language)
    for word in CLICK_WORDS:
        if isinstance(word, str):
            translated = said.pgettext(CLICK, word)
            assert translated != word or word in SPELLED_ALIKE, (language, word)
            assert _fields(translated) == _fields(word) - CLICK_LEFT_OUT.get(word, set()), (
                language, word)  # fmt: skip
            continue
        one, many = word
        for count in (0, 1, 2, 5, 1_000_000):
            translated = said.npgettext(CLICK, one, many, count)
            assert translated not in (one, many), (language, one, count)
            assert _fields(translated) <= _fields(one) | _fields(many), (language, one, count)
            assert "{" not in translated.format(**dict.fromkeys(_fields(one) | _fields(many), 3))


CLICK_UNSAID = {
    "Show this message and exit.": "fixed when the option is defined: said as a help text",
    "Show the version and exit.": "fixed when the option is defined: said as a help text",
    "Do you want to continue?": "fixed when the option is defined; no command asks it",
    "Confirm the action without prompting.": "fixed when the option is defined; unused",
    "%(prog)s, version %(version)s": "fixed when the option is defined; scripts read it",
    "file": "fixed when a path type is defined: its sentences are said without it",
    "directory": "fixed when a path type is defined: its sentences are said without it",
    "path": "fixed when a path type is defined: its sentences are said without it",
    "Repeat for confirmation": "passwd asks its own (repeat_password)",
    "Missing parameter: {param_name}": "str() of the error only; never shown",
    "Value must be an iterable.": "only for values passed by a program, not typed",
    "Choice({choices})": "a repr, for developers",
    "Name '{name}' defined twice": "a mistake in a command's definition",
    "Boolean option {decl!r} cannot use the same flag for true/false.": "a definition mistake",
    "Could not determine name for option with declarations {decls!r}": "a definition mistake",
    "No options defined but a name was passed ({name}). Did you mean to declare an argument "
    "instead? Did you mean to pass '--{name}'?": "a definition mistake",
    "Arguments take exactly one parameter declaration, got {length}: {decls}.": "a definition "
    "mistake",
    "Invalid start character for option ({option})": "a definition mistake",
    "Unknown color {colour!r}": "a program's mistake",
    "Unknown standard stream '{name}'": "a program's mistake",
    "Windows error: {error}": "Windows only",
    "d": "a progress bar's days, imported when one starts, and only past a day",
    "{editor}: Editing failed": "click.edit, used by no command",
    "{editor}: Editing failed: {e}": "click.edit, used by no command",
    "Press any key to continue...": "click.pause, used by no command",
    "Shell completion is not supported for Bash versions older than 4.4.": "shell completion "
    "set-up, imported only then",
    "Couldn't detect Bash version, shell completion is not supported.": "shell completion "
    "set-up, imported only then",
}
"""click's words that are not among :data:`CLICK_WORDS`, and why."""


def _click_s_words() -> set[str]:
    """Every msgid click's source asks gettext for (the first of a pair)."""
    import ast
    from pathlib import Path

    import click

    found = set()
    for path in Path(click.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("_", "ngettext") and node.args
                    and isinstance(node.args[0], ast.Constant)):  # fmt: skip
                found.add(node.args[0].value)
    return found | {"required"}  # core.py: _(extra["required"]), the word "required"


def test_every_word_click_asks_gettext_for_is_said_or_left_out_with_its_reason():
    """A click upgrade that adds or rewords a message fails here until it is said."""
    said = {word if isinstance(word, str) else word[0] for word in CLICK_WORDS}
    assert _click_s_words() == said | set(CLICK_UNSAID)
    assert not said & set(CLICK_UNSAID)


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_catalog_holds_exactly_what_the_code_says(language):
    from babel.messages.pofile import read_po

    path = CATALOGS / language / "LC_MESSAGES" / "cli.po"
    with path.open("rb") as source:
        catalog = read_po(source, locale=language, domain="cli")
    held = {
        (message.context, message.id[0] if isinstance(message.id, tuple) else message.id)
        for message in catalog
        if message.id
    }
    assert held == _expected()
    assert not [message.id for message in catalog if message.id and message.fuzzy]


def test_doctor_names_only_checks_the_catalog_says(tmp_path):
    """A check renamed or added in code without its name in DOCTOR_CHECKS would stay English."""
    import asyncio

    config = DoctorConfig(data_dir=tmp_path, searxng_url="http://127.0.0.1:9", timeout_seconds=0.5,
                          searxng_log=lambda: None, listening=lambda port: [])  # fmt: skip
    findings = asyncio.run(_run_quiet(CHECKS, config))
    assert {finding.check for finding in findings} <= set(DOCTOR_CHECKS)


async def _run_quiet(checks, config):
    found = []
    for check in checks:
        try:
            found.extend(await check(config))
        except OSError:
            continue
    return found


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "fr_CA.UTF-8"}, "fr"),
        ({"LANG": "nl_BE@euro"}, "nl"),
        ({"LC_MESSAGES": "it_IT.UTF-8", "LANG": "de_DE.UTF-8"}, "it"),
        ({"LC_ALL": "es_ES.UTF-8", "LC_MESSAGES": "it_IT.UTF-8"}, "es"),
        ({"LANGUAGE": "pt_BR:nl:de", "LANG": "fr_FR.UTF-8"}, "nl"),
        ({"LANGUAGE": "", "LANG": "de_DE.UTF-8"}, "de"),
        ({"LANGUAGE": "pt_BR", "LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LANG": "pt_BR.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({}, None),
        ({"LANG": "", "LC_ALL": " "}, None),
    ],
)
def test_the_locale_is_read_in_gettext_s_order(environ, language):
    assert locale_language(environ) == language


def test_the_household_speaks_only_when_the_locale_says_nothing():
    assert command_language(lambda: "de", {}) == "de"
    assert command_language(lambda: "xx", {}) == "en"
    assert command_language(lambda: "de", {"LANG": "C.UTF-8"}) == "en"
    assert command_language(lambda: "de", {"LANG": "it_IT.UTF-8"}) == "it"

    def unreadable() -> str:
        raise PermissionError("household.json")

    assert command_language(unreadable, {}) == "en"


def test_the_system_s_reason_for_a_refused_file_is_said_in_the_language():
    import errno

    full = OSError(errno.ENOSPC, "No space left on device")
    assert CliWords("de").os_reason(full) == "Auf dem Gerät ist kein Speicherplatz mehr frei"
    assert CliWords("it").os_reason(full) == "Spazio esaurito sul dispositivo"
    assert CliWords("en").os_reason(full) == "No space left on device"
    busy = OSError(errno.EBUSY, "Device or resource busy")
    assert CliWords("de").os_reason(busy) == "Device or resource busy"  # the system's words
    assert set(OS_REASONS) <= set(errno.errorcode.values())


def test_numbers_and_plurals_follow_the_language():
    assert CliWords("de").say_count("private_words", 1234) == (
        "1.234 private Wörter; gilt ab der nächsten Anfrage."
    )
    assert CliWords("fr").say_count("days", 1) == "1 jour"
    assert CliWords("fr").say_count("days", 2) == "2 jours"
    assert CliWords("en").say_count("unreadable", 1) == "1 unreadable line skipped"
    assert CliWords("xx").language == "en"
