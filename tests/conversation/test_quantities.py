"""The quantities a question asks about and those a passage states
(sovereign.conversation.quantities), and the passage ranking that follows them
(sources.candidates)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sovereign.conversation.quantities import (
    Quantity,
    asked_dimensions,
    dimension_fit,
    quantity_fit,
    stated_quantities,
)
from sovereign.conversation.sources import Sources, candidates


def amounts(text, language):
    return [(q.low, q.high, q.dimension) for q in stated_quantities(text, language)]


@pytest.mark.parametrize(
    ("language", "text", "found"),
    [
        ("en", "The 2 kg bag costs £4.", [(2000, 2000, "g")]),
        ("en", "A tree of about 1.75 metres", [(Decimal("1.75"), Decimal("1.75"), "m")]),
        ("en", "How much is a kilo of sprouts?", [(1000, 1000, "g")]),
        ("en", "Trees 1.60\u20131.90 m", [(Decimal("1.60"), Decimal("1.90"), "m")]),
        ("de", "Was kostet ein Kilo Äpfel?", [(1000, 1000, "g")]),
        ("de", "Wie lange braucht eine 4-Kilo-Gans?", [(4000, 4000, "g")]),
        ("de", "Der Fernseher mit 55 Zoll", [(Decimal("1.3970"), Decimal("1.3970"), "m")]),
        ("de", "Packung mit 1.500 Gramm", [(1500, 1500, "g")]),
        ("fr", "Le sac de 500 g", [(500, 500, "g")]),
        ("fr", "une bouteille de 75 cl", [(Decimal("0.75"), Decimal("0.75"), "l")]),
        ("es", "¿Cuánto cuesta un kilo de turrón?", [(1000, 1000, "g")]),
        ("es", "el radiador de 2000 W", [(2000, 2000, "W")]),
        ("nl", "een Nordmann van zo'n 1,75 meter", [(Decimal("1.75"), Decimal("1.75"), "m")]),
        ("nl", "Nordmann 1,60\u20131,90 m: € 44,50", [(Decimal("1.60"), Decimal("1.90"), "m")]),
        ("it", "il panettone classico da un chilo", [(1000, 1000, "g")]),
        ("it", "| 500 g | 18,00 € |", [(500, 500, "g")]),
        # No unit, or a word that is a unit's short name and a stop word ("in" inches).
        ("en", "Doors open at 5 in the morning", []),
        ("en", "It costs £12.95 per child", []),
        ("de", "Am 5. Dezember um 18 Uhr", []),
        ("it", "Mi piace un po' di tutto", []),
    ],
)  # fmt: skip
def test_a_quantity_is_a_number_or_a_count_s_word_before_a_unit(language, text, found):
    assert amounts(text, language) == found


ONE_KILO = [Quantity(Decimal(1000), Decimal(1000), "g")]


@pytest.mark.parametrize(
    ("passage", "heading", "fit"),
    [
        ("| 1 kg | 32,00 € |", "Panettone classico", True),
        ("| 1000 g | 32,00 € |", "", True),  # the same amount in another unit
        ("Sacchi da 0,5\u20132 kg", "", True),  # a range holding it
        ("| 500 g | 18,00 € |", "Panettone classico", False),
        ("| 2 kg | 60,00 € |", "", False),
        ("- 32,00 €", "Formato 1 kg", True),  # by its heading when it states none
        ("Spedizione gratuita sopra i 50 €", "", None),  # no quantity
        ("Lunghezza 30 cm", "", None),  # another dimension
    ],
)  # fmt: skip
def test_a_passage_whose_quantities_all_miss_does_not_fit(passage, heading, fit):
    assert quantity_fit(passage, heading, ONE_KILO, "it") is fit
    assert quantity_fit(passage, heading, [], "it") is None


def _price_list(rows):
    sources = Sources()
    results = [
        {"title": title, "url": f"https://shop{i}.example/", "snippet": snippet}
        for i, (title, snippet) in enumerate(rows)
    ]
    sources.add_result("web.search", {"results": results})
    return sources


@pytest.mark.parametrize(
    ("language", "question", "rows", "answer"),
    [
        (
            "it",
            "Quanto costa il panettone classico da un chilo?",
            [
                ("Panettone classico", "Quanto costa il classico? Classico 500 g: 18 euro."),
                ("Panettone classico", "Panettone classico 1 kg: 32 euro."),
            ],
            "2.1",
        ),
        (
            "de",
            "Was kostet bei euch ein Sack Kartoffeln mit fünf Kilo?",
            [
                ("Kartoffeln", "Ein Sack Kartoffeln, 2,5 kg: 3,99 €, festkochend, ein Sack."),
                ("Kartoffeln", "Kartoffeln im Sack, 5 kg: 6,49 €"),
            ],
            "2.1",
        ),
        (
            "en",
            "How much is a Nordmann fir of about 1.75 m?",
            [
                ("Nordmann fir prices", "Nordmann fir 1.25\u20131.50 m: £35, Nordmann fir"),
                ("Nordmann fir prices", "Nordmann 1.50-1.80 m: £45"),
            ],
            "2.1",
        ),
    ],
)
def test_the_row_of_the_quantity_asked_ranks_above_other_sizes(language, question, rows, answer):
    assert candidates(_price_list(rows), question, language)[0] == answer


def test_an_address_in_the_question_names_no_quantity():
    # "aerodry-12l" is a page's name, not twelve litres.
    rows = [
        ("AeroDry 12L", "The tank holds 2.1 litres and the light comes on when it is full."),
        ("AeroDry 12L", "Extracts 12 litres a day."),
    ]
    question = "According to http://shop.example/aerodry-12l, how much does the tank hold?"
    assert candidates(_price_list(rows), question, "en")[0] == "1.1"


@pytest.mark.parametrize(
    ("language", "question", "dimensions"),
    [
        ("it", "Quanti watt ha il microonde?", {"W"}),
        ("en", "How many litres does the tank hold?", {"l"}),
        ("es", "¿Qué capacidad tiene esta freidora de aire?", {"l"}),
        ("de", "Welche Leistung hat der Sauger?", {"W"}),
        ("fr", "Quel est le poids du vélo ?", {"g"}),
        ("nl", "Wat is de hoogte van de kast?", {"m"}),
        ("de", "Wie hoch ist die Miete?", set()),  # no adjective: most are figures of speech
        ("en", "How much is a 2 kg bag?", set()),  # a number: the quantity itself is asked
        ("de", "Wie lange hält der Akku?", set()),  # "lange" asks for a time
        ("it", "Quanto costa il microonde?", set()),
    ],
)
def test_a_kind_of_quantity_asked_with_no_number(language, question, dimensions):
    assert asked_dimensions(question, language) == dimensions


def test_a_measure_word_is_read_in_the_question_s_language_only():
    assert asked_dimensions("qual è la larghezza?", "it") == {"m"}
    assert asked_dimensions("larghezza", "fr") == frozenset()  # no French measure word


def test_a_passage_stating_a_quantity_of_the_kind_asked_fits():
    watts = frozenset({"W"})
    assert dimension_fit("- Microonde 900 W su 5 livelli", "", watts, "it") is True
    assert dimension_fit("- Colore: nero opaco", "", watts, "it") is None
    assert dimension_fit("- Peso: 12 kg", "", watts, "it") is None  # another kind: no claim
    assert dimension_fit("Potenza", "900 W", watts, "it") is True  # its heading's


def test_the_passage_stating_the_kind_of_quantity_asked_ranks_first():
    rows = [
        ("Caratteristiche", "- 8 programmi automatici del microonde e scongelamento"),
        ("Caratteristiche", "- Microonde 900 W su 5 livelli, grill al quarzo 1000 W"),
    ]
    question = "Quanti watt ha il microonde?"
    assert candidates(_price_list(rows), question, "it")[0] == "2.1"
