"""Shared by every test: the commands speak the terminal's locale, so the suite runs in
the untranslated one (``C``) whatever the developer's terminal says; a test that wants
another language passes it in the environment it runs a command with."""

from __future__ import annotations

import pytest

from sovereign.cli_words import LOCALE_VARIABLES


@pytest.fixture(autouse=True)
def _untranslated_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
