"""Whether a message asks for advice, not a reading (sovereign.conversation.offer.advice;
docs/decisions/offered-tools-and-arguments.md, "Advice about a thing of the home")."""

from __future__ import annotations

import json

import pytest

from sovereign.conversation.offer.advice import (
    ADVICE_REQUESTS,
    EXPLANATION_REQUESTS,
    asks_for_advice,
    asks_for_an_explanation,
)

from .test_subjects import LANGUAGES


@pytest.mark.parametrize(
    "message",
    [
        "what should the fridge actually be set on?",
        "Should I leave the heating on overnight?",
        "Auf welche Stufe soll ich den Kühlschrank stellen?",
        "Worauf muss ich beim Kauf achten?",
        "Je dois régler le frigo sur combien ?",
        "faut-il éteindre le chauffage la nuit ?",
        "¿a qué temperatura pongo el horno para asar un pollo?",
        "¿Debería dejar la calefacción encendida?",
        "Op welke stand moet ik de koelkast zetten?",
        "waar moet ik op letten bij een nieuwe koelkast?",
        "a che temperatura devo mettere il forno?",
        "conviene spegnere il riscaldamento di notte?",
        "stasera devo stampare i biglietti. come faccio a cambiare la cartuccia?",
        "my phone storage is always full - what should I delete first?",
        "Je dois régler le frigo sur combien",  # no question mark: the whole message
        # a way round a problem
        "the printer says the cyan is low but I only print black. any way round that?",
        "Der Drucker meckert über leere Farbe. Kann man das umgehen?",
        "l'imprimante bloque sans cyan, on peut contourner ça ?",
        "la impresora no imprime sin cian, ¿hay alguna forma de evitar eso?",
        "de printer wil niet zonder cyaan, kan ik dat omzeilen?",
        "la stampante si blocca senza ciano, si può aggirare?",
        # whether something is worth it
        "is it worth replacing the battery on my old phone?",
        "Lohnt sich ein E-Reader oder reicht das alte Tablet?",
        "ça vaut le coup d'éteindre le routeur la nuit ?",
        "merece la pena cambiarle la batería al móvil?",
        "is het de moeite om de router 's nachts uit te zetten?",
        "vale la pena cambiare la batteria del telefono?",
    ],
)
def test_a_message_asking_what_to_do_asks_for_advice(message):
    assert asks_for_advice(message)


@pytest.mark.parametrize(
    "message",
    [
        "is the fridge cold enough?",
        "What's the kitchen temperature?",
        "Ist die Haustür abgeschlossen?",
        "La porte du garage est fermée ?",
        "¿cómo está la puerta de la calle?",
        "Is de voordeur op slot?",
        "la luce del pianerottolo è accesa?",
        "how many queries did Pi-hole block today?",
        # The question asks a state; the sentence after it says why.
        "c'è ancora inchiostro nella stampante dello studio? stasera devo stampare i biglietti",
        "vaart de pont vandaag wel, met die storm? anders moet ik helemaal omrijden",
        "is the back door locked? should I go down and check, I wonder.",
    ],
)
def test_a_question_about_a_state_asks_for_no_advice(message):
    assert not asks_for_advice(message)


def test_the_catalog_lists_the_six_languages():
    data = json.loads(ADVICE_REQUESTS.read_text(encoding="utf-8"))
    assert set(data) - {"_about"} == set(LANGUAGES)
    assert all(len(data[language]) >= 8 for language in LANGUAGES)


@pytest.mark.parametrize(
    "message",
    [
        "why do phones get so hot when they charge?",
        "how come my laptop fan is always on?",
        "Warum werden Handys beim Laden warm?",
        "wieso ist mein Akku so schnell leer?",
        "pourquoi les téléphones chauffent autant ?",
        "¿por qué los portátiles se calientan tanto?",
        "waarom wordt mijn laptop zo warm?",
        "perché il telefono si scalda mentre carica?",
        "come mai la tv si spegne da sola?",
        # whether there is a way to do something
        "any way to stop the kids buying stuff in games on their tablets?",
        "gibt es eine Möglichkeit, Käufe auf dem Tablet zu sperren?",
        "y a-t-il un moyen de bloquer les achats sur la tablette ?",
        "¿hay alguna forma de bloquear las compras en la tablet?",
        "is er een manier om aankopen op de tablet te blokkeren?",
        "c'è un modo per bloccare gli acquisti sul tablet?",
    ],
)
def test_a_message_asking_why_or_for_a_way_asks_for_an_explanation(message):
    assert asks_for_an_explanation(message)


@pytest.mark.parametrize(
    "message",
    [
        "is my laptop still charging?",
        "la tv è ancora accesa? perché sento la musica",  # "because", in no question
        "staat de tv beneden nog aan?",
        "¿la consola sigue encendida? porque no me fío",
    ],
)
def test_a_question_about_a_state_asks_for_no_explanation(message):
    assert not asks_for_an_explanation(message)


def test_the_explanation_catalog_lists_the_six_languages():
    data = json.loads(EXPLANATION_REQUESTS.read_text(encoding="utf-8"))
    assert set(data) - {"_about"} == set(LANGUAGES)
