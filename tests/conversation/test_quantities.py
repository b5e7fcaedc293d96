"""The quantities a question asks about and those a passage states
(sovereign.conversation.quantities), the passage ranking that follows them
(sources.candidates), and the units a chosen calculation is worked out in
(quantities.with_units)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sovereign.conversation.backends.base import ModelReply, ToolCall
from sovereign.conversation.offer.arithmetic import CALCULATE
from sovereign.conversation.quantities import (
    Quantity,
    asked_dimensions,
    dimension_fit,
    quantity_fit,
    stated_quantities,
    with_units,
)
from sovereign.conversation.sources import Sources, candidates
from sovereign.conversation.voice.catalogs import Voice


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


TIMES, BY = "\u00d7", "\u00f7"


def chose(expression):
    call = ToolCall(id="c1", name=CALCULATE, arguments={"expression": expression})
    return ModelReply(content="", tool_calls=(call,))


def line(question, language, expression):
    """The product's line, with CLDR's no-break spaces written as spaces."""
    worked = with_units(chose(expression), question, language)
    if worked is None:
        return None
    return worked.shown(Voice(language)).replace("\u00a0", " ").replace("\u202f", " ")


@pytest.mark.parametrize(
    ("question", "language", "expression", "shown"),
    [
        # The model's formula forgot the 32 degrees; the product converts.
        ("in het recept staat de oven op 400 graden Fahrenheit, hoeveel graden Celsius is dat?",
         "nl", "400 * 5 / 9", "400°F = 204,44°C"),
        ("How many degrees Celsius is 350°F?", "en", "350 - 32", "350°F = 176.67°C"),
        ("-5 °C, wie viel ist das in Fahrenheit?", "de", "5 * 9 / 5", "-5 °C = 23 °F"),
        # Outside English a bare degree is one Celsius.
        ("Il forno è a 180 gradi, quanti Fahrenheit sono?", "it", "180 * 2", "180 °C = 356 °F"),
        ("¿A cuántos grados Fahrenheit equivalen 37 grados centígrados?", "es", "37 * 2",
         "37 °C = 98,6 °F"),
        ("Combien de miles font 10 km ?", "fr", "10 * 0.5", "10 km = 6,21 mi"),
        ("quanti grammi sono 8 once?", "it", "8 * 28", "8 oz = 226,8 g"),
        ("how many ounces is 250g", "en", "250 / 28", "250 g = 8.82 oz"),
        # Whatever the model wrote, or could not write.
        ("hoeveel centimeter is 2 inch?", "nl", "2 ** 3", "2 in = 5,08 cm"),
    ],
)  # fmt: skip
def test_a_conversion_the_question_asks_for_is_the_products(question, language, expression, shown):
    assert line(question, language, expression) == shown


@pytest.mark.parametrize(
    ("question", "language", "expression", "shown"),
    [
        # A kind households count two ways: the model's own conversion stands.
        ("¿cuántos megas son 2 gigas de ram?", "es", "2 * 1024", f"2 {TIMES} 1.024 = 2.048"),
        ("Hoeveel MB is 1,5 GB?", "nl", "1.5 * 1024", f"1,5 {TIMES} 1.024 = 1.536"),
        # Two numbers: what is converted is the model's sum.
        ("3 bags of 2 kg each, how many pounds is that?", "en", "3 * 2 * 2.2",
         f"3 {TIMES} 2 {TIMES} 2.2 = 13.2"),
        # No other unit named; a bare degree in English may be either scale.
        ("if I double 375g of flour how much do I need", "en", "375 * 2", f"375 {TIMES} 2 = 750"),
        ("the oven says 350 degrees, what is that in celsius", "en", "(350 - 32) * 5 / 9",
         f"(350 - 32) {TIMES} 5 {BY} 9 = 176.6667"),
    ],
)  # fmt: skip
def test_no_conversion_asked_leaves_the_models_sum(question, language, expression, shown):
    assert line(question, language, expression) == shown


@pytest.mark.parametrize(
    ("question", "language", "expression", "shown"),
    [
        ("mein handy hat 128 gb speicher, wie viele fotos zu je 4 mb passen da drauf", "de",
         "128 / 4", f"128 GB {BY} 4 MB = 32.000"),
        ("2 kg de farine, 250 g par gâteau : combien de gâteaux ?", "fr", "2 / 250",
         f"2 kg {BY} 250 g = 8"),
        ("Wie viel sind 2 kg und 300 g zusammen in Gramm?", "de", "2 + 300",
         "2 kg + 300 g = 2.300 g"),
        ("1 km plus 250 m, how far is that?", "en", "1 + 250", "1 km + 250 m = 1.25 km"),
    ],
)  # fmt: skip
def test_a_sum_of_the_questions_quantities_in_two_units_is_worked_out_in_them(
    question, language, expression, shown
):
    assert line(question, language, expression) == shown


@pytest.mark.parametrize(
    ("question", "language", "expression"),
    [
        ("128 GB, Fotos zu je 4 MB, wie viele?", "de", "128 * 1024 / 4"),  # a factor of its own
        ("4 GB of photos, 4 MB each: how many?", "en", "4 / 4"),  # one figure, two units
        ("2 kg of flour and 3 km to walk", "en", "2 + 3"),  # two kinds
        ("12 kg and 3 kg: how much together?", "en", "12 + 3"),  # one unit: nothing to convert
        ("20 °C and 5 °F", "en", "20 + 5"),  # temperatures are not summed in units
        ("wie viel Gramm sind 2 Pfund Hackfleisch?", "de", "2 * 500"),  # 500 g in a shop
        ("9999999999 km in steps of 1 mm?", "en", "9999999999 / 1"),  # beyond what is said
    ],
)
def test_otherwise_the_models_sum_stands(question, language, expression):
    assert line(question, language, expression) == line("", language, expression)


def test_no_calculation_chosen_is_none_and_temperatures_rank_no_passage():
    assert with_units(ModelReply(content="400 °F is hot."), "400 °F in °C?", "en") is None
    assert stated_quantities("Heute bis zu 20 °C", "de") == []
