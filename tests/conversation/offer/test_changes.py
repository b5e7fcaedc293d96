"""A message that asks for a change is told, after what could be read, that nothing here
can change anything (sovereign.conversation.offer.changes; docs/decisions/
offered-tools-and-arguments.md, "A change asked for beside a read")."""

from __future__ import annotations

import json

import pytest

from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.offer.changes import CHANGE_REQUESTS, asks_for_a_change
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.sentences import own

from ..test_named_read import turn


@pytest.mark.parametrize(
    "message",
    [
        "Switch off the landing light.",
        "please lock the back door",
        "Can you turn the heating down a bit?",
        "the landing light is still on, turn it off",
        "Hey, open the garage door",
        "Reboot the server.",
        "Mach bitte das Licht im Flur aus.",
        "Kannst du die Haustür abschließen?",
        "schalt mal die Heizung ein",
        "Éteins la lumière du palier, s'il te plaît.",
        "tu peux verrouiller la porte de derrière ?",
        "eteins la lumiere du palier",
        "apágame la luz del rellano, porfa",
        "¿Puedes cerrar la puerta del garaje?",
        "apagame la luz del pasillo",
        "Zet de verwarming wat lager.",
        "kun je de achterdeur op slot doen?",
        "spegni la luce del pianerottolo",
        "puoi chiudere il garage?",
        "crank the hallway heating up to 23 for me would you",
        "tu peux baisser le chauffage du couloir à 19 ?",
        "¿me puedes bajar la calefacción?",
    ],
)
def test_a_request_for_a_change_is_recognised_in_every_language(message):
    assert asks_for_a_change(message)


@pytest.mark.parametrize(
    "message",
    [
        # A state asked about, in the same verbs' other forms.
        "did I turn off the landing light?",
        "Is the landing light switched off?",
        "Ist das Licht im Flur aus?",
        "Ist die Haustür abgeschlossen?",
        "on a bien fermé la porte d'entrée ?",  # "fermé" is not "ferme"
        "à combien est réglé le thermostat du couloir ?",
        "La lumière du palier est-elle éteinte ?",
        "¿Está apagada la luz del rellano?",
        "Staat de verwarming nog aan?",
        "la luce del pianerottolo è spenta?",
        "a quanto è impostato il termostato?",
        # How long since a restart asks about the uptime.
        "Depuis combien de temps l'appareil tourne-t-il sans redémarrer ?",
        "¿desde cuándo está el servidor sin reiniciar?",
        "hoe lang draait het kastje al zonder herstart",
        "da quant'è che il serverino non si riavvia?",
        "When did the server last restart?",
        # Other questions with a device word.
        "How many ads were blocked today?",
        "le mini-pc il déborde ou je peux encore y mettre des vidéos ?",
        "dime cuántos dominios bloquea el pi-hole",
    ],
)
def test_a_state_asked_about_is_no_request(message):
    assert not asks_for_a_change(message)


def test_the_catalog_holds_every_language_and_only_whole_pairs():
    catalog = json.loads(CHANGE_REQUESTS.read_text(encoding="utf-8"))
    assert set(catalog) - {"_about"} == {"en", "de", "fr", "es", "nl", "it"}
    for entry in (v for k, v in catalog.items() if k != "_about"):
        assert set(entry) == {"anywhere", "at_start", "before", "pairs"}
        assert all(len(pair) == 2 and " " not in "".join(pair) for pair in entry["pairs"])


def uptime_read(rest="nothing_else"):
    return propose("system_health", {"facts": ["uptime"], "also_asked": rest})


@pytest.mark.parametrize(
    ("message", "language"),
    [("Reboot the server, please.", "en"), ("Reinicia el servidor, ¿puedes apagarlo?", "es")],
)
async def test_a_change_answered_with_a_read_says_nothing_can_be_changed(
    message, language, tmp_path
):
    result, _ = await turn(message, [uptime_read()], tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    cannot = own("cannot_change", Voice(language))
    assert result.text.count(cannot) == 1
    assert result.text.endswith(cannot)  # after the facts
    assert result.text.removesuffix(cannot).strip()


async def test_a_state_asked_about_gets_its_facts_alone(tmp_path):
    result, _ = await turn("When did the server last reboot?", [uptime_read()], tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert own("cannot_change", Voice("en")) not in result.text


async def test_the_change_stand_in_for_advice_that_names_nothing_of_the_home_is_prose(tmp_path):
    question = "Mein Handyspeicher ist schon wieder voll - was kann ich am besten löschen?"
    advice = ModelReply(content="Alte Videos und doppelte Fotos zuerst.")
    result, backend = await turn(question, [propose("change_something"), advice], tmp_path)
    assert result.receipts == []
    assert own("cannot_change", Voice("de")) not in result.text
    assert "Alte Videos" in result.text
    assert len(backend.requests) == 2  # the prose was asked for


@pytest.mark.parametrize(
    ("question", "language"),
    [("Switch off the radio in the study.", "en"), ("spegni la radio, per favore", "it")],
)
async def test_the_change_stand_in_for_a_change_asked_in_words_is_said(
    question, language, tmp_path
):
    result, backend = await turn(question, [propose("change_something")], tmp_path)
    assert result.text == own("cannot_change", Voice(language))
    assert len(backend.requests) == 1
