"""Figures said by Babel: the same figure with the same precision in every language."""

from __future__ import annotations

import re

import pytest
from babel.numbers import get_decimal_symbol

from sovereign.conversation.voice.catalogs import LANGUAGES, Voice
from sovereign.conversation.voice.formats import celsius, gigabytes, hours, percent

ONE_DECIMAL = [gigabytes, celsius, percent]
"""The kinds the product rounds to one decimal before it says them."""
FIGURES = [23.0, 23.1, 8, 0.0, 0.5, 82.6, 270.6, 1234.5, 100.0]


def digits(shown: str, language: str) -> tuple[str, str]:
    """The whole part's digits and the decimals of the one figure in ``shown``."""
    (figure,) = re.findall(r"\d[\d.,\u00a0\u202f]*\d|\d", shown)
    whole, _, decimals = figure.partition(get_decimal_symbol(language))
    return re.sub(r"\D", "", whole), decimals


@pytest.mark.parametrize("kind", ONE_DECIMAL, ids=lambda kind: kind.__name__)
@pytest.mark.parametrize("value", FIGURES)
def test_a_figure_is_said_to_one_decimal_in_every_language(kind, value):
    # "#,##0.#" dropped a decimal that rounds to 0: 23.0 GB was "23 GB" beside
    # "23,1 Go", as if one language rounded and the other did not.
    said = {language: digits(kind(value, Voice(language)), language) for language in LANGUAGES}
    assert set(said.values()) == {(f"{value:.1f}".split(".")[0], f"{value:.1f}".split(".")[1])}


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_sentence_holds_its_figures_to_one_precision(language):
    voice = Voice(language)
    shown = [digits(gigabytes(value, voice), language)[1] for value in (5.3, 8.0)]
    assert shown == ["3", "0"]  # "5.3 GB of 8.0 GB", never "5.3 GB of 8 GB"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_keeps_its_own_separators_and_units(language):
    voice = Voice(language)
    decimal = get_decimal_symbol(language)
    assert f"1{decimal}5" in gigabytes(1.5, voice)
    assert ("Go" if language == "fr" else "GB") in gigabytes(1.5, voice)
    assert f"24{decimal}2" in percent(24.2, voice) and "%" in percent(24.2, voice)
    assert "°C" in celsius(47.25, voice)


@pytest.mark.parametrize("language", LANGUAGES)
def test_durations_are_said_in_whole_units(language):
    assert not re.search(r"\d[.,]\d", hours(53.4, Voice(language)))
