"""The approval card's words travel on the wire in the turn's language, end to end:
``pending_confirmation.words`` holds the title, what each shown argument means (the time
window said as a window), what leaves and where to, the search settings, the buttons, the
countdown and the notes of the decision, while the arguments stay exactly as sent."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest

from .harness import build_harness
from .test_added_words_api import card, proposing
from .test_household_language_turns import UNPLACEABLE_SEARCH, set_language

ZOO = "Öffnungszeiten Berliner Zoo heute"


@asynccontextmanager
async def household_card(tmp_path, language: str):
    """A card for a search of "solar panels" (two words no detector places), asked in a
    household whose language is ``language``."""
    harness = build_harness(tmp_path, proposing("solar panels"))
    async with harness.client:
        await harness.sign_in()
        await harness.set_policy(True)
        await set_language(harness, language)
        body = (await harness.message({"message": UNPLACEABLE_SEARCH})).json()
        yield harness, body["pending_confirmation"]


async def test_a_german_search_card_says_its_words_in_german_and_sends_the_query_as_is(
    tmp_path,
):
    question = "Wie sind die Öffnungszeiten Berliner Zoo heute?"
    async with card(tmp_path, question, ZOO) as (harness, pending):
        words = pending["words"]
        assert pending["arguments"]["query"] == ZOO
        assert pending["arguments"]["time_range"] == "day"
        assert words["title"] == "Diese Anfrage freigeben?"
        assert words["heading"] == "Im Web suchen nach"
        assert words["labels"] == {"query": "Suchwörter", "time_range": "Zeitraum"}
        assert words["windows"]["day"] == "aus dem letzten Tag"
        assert words["sentence"] == (
            "Wenn Sie freigeben, geht genau diese Suchanfrage aus diesem Gerät hinaus, an die "
            "Suchmaschinen."
        )
        assert words["settings"] == (
            "Gesucht wird in beliebiger Sprache (der Suchdienst wählt), SafeSearch mittel "
            "(Ihre Sucheinstellungen)."
        )
        assert (words["deny"], words["edit"], words["approve"]) == (
            "Ablehnen", "Bearbeiten", "Freigeben",
        )  # fmt: skip
        assert words["expires"] == "Läuft ab in {time}"
        assert words["reason_label"] == "Grund für die Ablehnung (optional)"
        assert words["notes"]["approved"] == (
            "Sie haben freigegeben: im Web suchen nach {query}, {time_range}."
        )
        assert words["notes"]["denied_reason"].endswith("Ihr Grund: „{reason}“")
        assert words["quote"] == "„{value}“"
        answer = {"confirmation": {"token": pending["token"], "approve": True}}
        response = await harness.message(answer)
    assert response.status_code == 200, response.text
    assert harness.searxng.queries == [ZOO]  # the words around it changed nothing sent


@pytest.mark.parametrize(
    ("language", "title", "approve", "window", "settings"),
    [
        ("en", "Approve this request?", "Approve", "from the last day",
         "Searched in any language (the search service chooses), safe search moderate (your "
         "search settings)."),
        ("fr", "Approuver cette demande ?", "Approuver", "du dernier jour",
         "Recherche dans n'importe quelle langue (le service de recherche choisit), SafeSearch "
         "modéré (vos paramètres de recherche)."),
        ("es", "¿Apruebas esta solicitud?", "Aprobar", "del último día",
         "Búsqueda en cualquier idioma (elige el servicio de búsqueda), SafeSearch moderado "
         "(tus ajustes de búsqueda)."),
        ("nl", "Dit verzoek goedkeuren?", "Goedkeuren", "van de afgelopen dag",
         "Gezocht in elke taal (de zoekdienst kiest), SafeSearch gemiddeld (je "
         "zoekinstellingen)."),
        ("it", "Approvi questa richiesta?", "Approva", "dell'ultimo giorno",
         "Ricerca in qualsiasi lingua (sceglie il servizio di ricerca), SafeSearch moderato "
         "(le tue impostazioni di ricerca)."),
    ],
)  # fmt: skip
async def test_a_search_card_is_said_in_the_household_s_language(
    tmp_path, language, title, approve, window, settings
):
    async with household_card(tmp_path, language) as (_, pending):
        words = pending["words"]
    assert (words["title"], words["approve"], words["settings"]) == (title, approve, settings)
    assert words["windows"]["day"] == window
    assert pending["arguments"] == {"query": "solar panels", "language": "auto", "safesearch": 1}


async def test_an_edited_card_s_title_says_it_is_the_household_s_edit(tmp_path):
    async with household_card(tmp_path, "it") as (harness, pending):
        edit = {"query": "pannelli solari 192.168.1.20"}
        answer = {"confirmation": {"token": pending["token"], "approve": True, "arguments": edit}}
        body = (await harness.message(answer)).json()
    edited = body["pending_confirmation"]
    assert edited["edited"] is True and edited["arguments"]["query"] == edit["query"]
    assert edited["words"]["title"] == "Approvi la tua richiesta modificata?"
    assert edited["words"]["edit_fields"]["query"] == "Modifica le parole"
