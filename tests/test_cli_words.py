"""What the administrator's commands say (sovereign.cli_words): every sentence, count,
heading, check name and help text is in every language's ``cli`` catalog with the
English's placeholders, and the language is the terminal locale's."""

from __future__ import annotations

import string

import pytest

from sovereign.cli import main
from sovereign.cli_words import (
    AUDIT_LABELS,
    CATALOGS,
    COUNTED,
    DOCTOR_CHECKS,
    DOMAIN,
    HELP,
    LANGUAGES,
    SENTENCES,
    CliWords,
    command_language,
    every_help_text,
    locale_language,
)
from sovereign.doctor import CHECKS, DoctorConfig
from sovereign.po_catalogs import translations

TRANSLATED = [language for language in LANGUAGES if language != "en"]
SPELLED_ALIKE = {"Error: ", "total", "Options"}
"""Written as in English in some language (Spanish "Error: ", French "Options")."""


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
    return expected


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
    for text in every_help_text(main):
        _said(language, HELP, text)


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


def test_numbers_and_plurals_follow_the_language():
    assert CliWords("de").say_count("private_words", 1234) == (
        "1.234 private Wörter; gilt ab der nächsten Anfrage."
    )
    assert CliWords("fr").say_count("days", 1) == "1 jour"
    assert CliWords("fr").say_count("days", 2) == "2 jours"
    assert CliWords("en").say_count("unreadable", 1) == "1 unreadable line skipped"
    assert CliWords("xx").language == "en"
