"""Arithmetic the model writes and the product works out
(sovereign.conversation.offer.arithmetic; docs/decisions/offered-tools-and-arguments.md,
"Arithmetic the product works out")."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sovereign.conversation.answer.finish import states
from sovereign.conversation.backends.base import forced_tools, named_choice
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.offer.arithmetic import (
    CALCULATE,
    MAX_EXPRESSION,
    holds_a_number,
    quantities_written,
    worked_out,
)
from sovereign.conversation.voice.catalogs import Voice

from ..answer.test_finish import health
from ..conftest import OFF
from ..test_answers_from_what_ran import registry_of
from ..test_stand_ins import household, loop_for

TIMES, BY = "\u00d7", "\u00f7"


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("375 * 2", "750"),
        ("2 * 60 + 15", "135"),
        ("8 * 28.35", "226.80"),
        ("150 / 15", "10"),
        ("(1 + 2) * 3", "9"),
        ("2 - (3 - 1)", "0"),
        ("-5 + +3", "-2"),
        ("0.1 + 0.2", "0.3"),  # exact, not 0.30000000000000004
        ("  2.5*10  ", "25.0"),
    ],
)
def test_numbers_and_the_four_operations_are_worked_out_exactly(expression, value):
    worked = worked_out(expression)
    assert worked is not None and worked.value == Decimal(value)


@pytest.mark.parametrize(
    "expression",
    [
        "2 ** 10",  # a power can be made as large as memory
        "9 ** 9 ** 9",
        "10 % 3",
        "7 // 2",
        "1 / 0",
        "(1 - 1) / (2 - 2)",
        "__import__('os').system('true')",
        "abs(-2)",
        "x + 1",
        "(1).real",
        "'2' + '2'",
        "True + 1",
        "[1, 2]",
        "1 < 2",
        "1e400",  # infinity
        "1e15 * 10",  # beyond what is said
        "2 +",
        "",
        "1 + " * (MAX_EXPRESSION // 4) + "1",
        "lambda: 1",
    ],
)
def test_anything_but_numbers_and_the_four_operations_is_no_expression(expression):
    assert worked_out(expression) is None


@pytest.mark.parametrize(
    ("expression", "language", "shown"),
    [
        ("8 * 28.35", "de", f"8 {TIMES} 28,35 = 226,8"),
        ("8 * 28.35", "en", f"8 {TIMES} 28.35 = 226.8"),
        ("2 * 60 + 15", "es", f"2 {TIMES} 60 + 15 = 135"),
        ("(1 + 2) * 3", "fr", f"(1 + 2) {TIMES} 3 = 9"),
        ("2 - (3 - 1)", "nl", "2 - (3 - 1) = 0"),
        ("12 / (2 * 3)", "it", f"12 {BY} (2 {TIMES} 3) = 2"),
        ("10 / 3", "de", f"10 {BY} 3 = 3,3333"),
        ("2500 * 4", "de", f"2.500 {TIMES} 4 = 10.000"),
    ],
)
def test_the_calculation_is_shown_with_the_households_numbers(expression, language, shown):
    worked = worked_out(expression)
    assert worked is not None and worked.shown(Voice(language)) == shown


@pytest.mark.parametrize(
    ("question", "holds"),
    [
        ("Hoeveel ons is 2,5 kilo?", True),
        ("quanti grammi sono 8 once?", True),
        ("how much is ٣ times 4?", True),  # another script's digit
        ("¿Cuántos minutos son dos horas y cuarto?", False),  # words are left to the model
        ("how hot is my device?", False),
    ],
)
def test_a_question_holds_a_number_when_it_holds_a_digit(question, holds):
    assert holds_a_number(question) is holds


def offered(backend, request=0):
    return [t["function"]["name"] for t in backend.requests[request].tools]


async def test_the_device_works_out_what_the_model_writes_and_the_model_answers_with_it(tmp_path):
    script = [propose(CALCULATE, {"expression": "8 * 28.35"}), "Fa circa 226,8."]
    loop, backend, audit = loop_for(household(), script, tmp_path)
    ask = [{"role": "user", "content": "quanto fa 8 volte 28,35?"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert result.text == f"Fa circa 226,8.\n\n8 {TIMES} 28,35 = 226,8"
    assert CALCULATE in offered(backend)
    told = " ".join(m["content"] for m in backend.requests[1].messages if m["role"] == "system")
    assert f"8 {TIMES} 28,35 = 226,8" in told  # the device's figure, as the household writes it
    assert result.receipts == [] and backend.remaining == 0
    assert not audit.path.exists() or audit.path.read_text() == ""  # no capability ran


@pytest.mark.parametrize(
    ("prose", "shown"),
    [
        ("You need 750 g of flour.", True),
        ("You need 750.0 g.", True),
        ("About 0.75 kg, that is 750 g.", True),
        ("You need 700 g of flour.", False),  # another figure: the line would contradict it
        ("You need twice as much.", False),
    ],
)
async def test_the_line_follows_prose_that_states_its_result_and_only_such_prose(
    prose, shown, tmp_path
):
    chunks: list[str] = []

    async def sink(piece):
        chunks.append(piece)

    script = [propose(CALCULATE, {"expression": "375 * 2"}), prose]
    loop, _, _ = loop_for(household(), script, tmp_path)
    ask = [{"role": "user", "content": "if I double 375g of flour how much do I need"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o", on_token=sink)
    line = f"375 {TIMES} 2 = 750"
    assert result.text == (f"{prose}\n\n{line}" if shown else prose)
    assert "".join(chunks) == result.text  # streamed as it is kept


@pytest.mark.parametrize(
    ("text", "value", "language", "stated"),
    [
        ("8 once sono 226,8 grammi.", 226.8, "it", True),
        ("8 once sono circa 227 grammi.", 226.8, "it", True),  # rounded as it shows
        ("Het is 70,875 kilo.", 250, "nl", False),
        ("Es gibt 10 Esslöffel in 150 ml.", 0.1, "de", False),
        ("2.500 Gramm", 2500, "de", True),
        ("2,500 grams", 2500, "en", True),
    ],
)
def test_prose_states_a_result_to_the_decimals_it_shows(text, value, language, stated):
    assert states(text, value, language) is stated


async def test_a_question_without_a_number_is_not_offered_the_calculation(tmp_path):
    loop, backend, _ = loop_for(household(), ["Lima."], tmp_path)
    ask = [{"role": "user", "content": "What's the capital of Peru?"}]
    await loop.process_turn(ask, policy=OFF, owner="o")
    assert CALCULATE not in offered(backend)


@pytest.mark.parametrize("expression", ["2 ** 999999", "open('/etc/passwd')", 42])
async def test_what_is_no_expression_is_answered_without_a_figure_of_the_devices(
    expression, tmp_path
):
    script = [propose(CALCULATE, {"expression": expression}), "About 750 grams."]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    ask = [{"role": "user", "content": "if I double 375g of flour how much do I need"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert result.text == "About 750 grams."
    told = " ".join(m["content"] for m in backend.requests[1].messages if m["role"] == "system")
    assert "worked this out" not in told


async def test_a_household_read_the_question_names_comes_before_a_calculation(tmp_path):
    script = [propose(CALCULATE, {"expression": "2 * 3"}), propose("system_health", {})]
    loop, backend, _ = loop_for(registry_of(health()), [*script, "unused"], tmp_path)
    ask = [{"role": "user", "content": "how much memory is free on the device? 2 GB?"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert f"2 {TIMES} 3" not in result.text
    # The product read the device in the same round (the model only filled the read),
    # not after a calculation taken for a call of its own.
    assert backend.requests[1].tool_choice == named_choice("system_health")


@pytest.mark.parametrize(
    ("question", "expression", "prose", "line"),
    [
        ("¿cuántos megas son 2 gigas de ram?", "2 * 1024", "Son 2048.", f"2 {TIMES} 1.024 = 2.048"),
        ("Hoeveel MB is 1,5 GB RAM?", "1.5 * 1024", "1536 MB.", f"1,5 {TIMES} 1.024 = 1.536"),
    ],
)
async def test_a_sum_on_the_questions_own_numbers_is_worked_out_not_read(
    question, expression, prose, line, tmp_path
):
    script = [propose(CALCULATE, {"expression": expression}), prose]
    loop, _, _ = loop_for(registry_of(health()), script, tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert result.receipts == []  # the memory named is any computer's, not read
    assert result.text == f"{prose}\n\n{line}"


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("how many MB are the 2 GB of memory free on the server?", "2 * 1024"),  # names it
        ("¿cuántos megas son 2 gigas de ram?", "2"),  # no operation
        ("¿cuántos megas quedan de ram? unos 2 gigas", "3 * 1024"),  # not the question's
    ],
)
async def test_a_sum_on_the_household_thing_itself_or_not_the_questions_is_read(
    question, expression, tmp_path
):
    script = [propose(CALCULATE, {"expression": expression}), propose("system_health", {})]
    loop, backend, _ = loop_for(registry_of(health()), [*script, "unused"], tmp_path)
    await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert backend.requests[1].tool_choice == named_choice("system_health")


@pytest.mark.parametrize("expression", ["400 * 5 / 9", "2 ** 999999"])
async def test_a_conversion_asked_for_is_the_products_whatever_the_model_wrote(
    expression, tmp_path
):
    prose = "400 graden Fahrenheit is ongeveer 204,44 graden Celsius."
    script = [propose(CALCULATE, {"expression": expression}), prose]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    question = (
        "in het recept staat de oven op 400 graden Fahrenheit, hoeveel graden Celsius is dat?"
    )
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert result.text == f"{prose}\n\n400°F = 204,44°C"
    told = " ".join(m["content"] for m in backend.requests[1].messages if m["role"] == "system")
    assert "400°F = 204,44°C" in told and "222" not in told
    assert result.receipts == []


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("cuanto vale ahora el billete de la línea 7? dicen que lo han subido", "1000 * 1.05"),
        ("what time does the 14 bus leave on sundays?", "9 + 0.5"),
        ("how much is a ticket for the 14 bus?", "2.5"),  # a lone number
        # The bus's number is no quantity: only 5 (%) is the household's.
        ("cuanto vale ahora el billete del autobús 3? lo han subido un 5%", "3 * 0.05 + 3"),
        ("the 42 bus fare went up 10%, what is it now?", "42 * 1.1"),
        ("wat kost een kaartje voor lijn 12 nu? 3% duurder geworden", "12 * 1.03"),
        ("quanto costa adesso il biglietto del tram 9?", "9 + 1"),
        ("wie viel kostet die Fahrt mit dem ICE599 nach 2 Uhr?", "599 * 1.5"),
    ],
)
async def test_a_sum_on_none_of_the_questions_numbers_is_chosen_again_without_it(
    question, expression, tmp_path
):
    script = [propose(CALCULATE, {"expression": expression}), propose("general_knowledge", {})]
    loop, backend, _ = loop_for(household(), [*script, "I don't know the fare."], tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert result.text == "I don't know the fare."
    allowed = forced_tools(backend.requests[1].tool_choice)
    assert allowed and CALCULATE not in allowed
    assert TIMES not in result.text and "=" not in result.text


@pytest.mark.parametrize(
    ("question", "language", "counted"),
    [
        ("el billete del autobús 3 ha subido un 5%", "es", ["5"]),
        ("the 42 bus went from 2.80 up 5%", "en", ["2.80", "5"]),
        ("the number 7 bus takes 25 minutes", "en", ["25"]),
        ("Gleis 4, Wohnung Nr. 12, 3 Euro", "de", ["3"]),
        ("le bus n° 8 coûte 2,10 €, la ligne 14 aussi", "fr", ["2,10"]),
        ("de bus van lijn 5 kost 3,40, in aflevering 2", "nl", ["3,40"]),
        ("binario 2 alle 8,15, stanza 104 per 3 notti", "it", ["8,15", "3"]),
        ("take the A40 for 12 miles", "en", ["12"]),  # glued to letters: a road's name
        ("a room for 3 at 75 a night, 2x3 metres", "en", ["3", "75", "2", "3"]),
        ("what is 12 times 7", "en", ["12", "7"]),
    ],
)
def test_a_number_that_names_a_thing_is_no_quantity(question, language, counted):
    assert list(quantities_written(question, language)) == counted


@pytest.mark.parametrize(
    ("question", "expression"),
    [
        ("combien de grammes font 2 cups de farine ?", "2 * 28.35"),
        ("how many grams is 2 cups of flour?", "2 * 120"),
        ("wie viel Gramm sind 3 Esslöffel Zucker?", "3 * 15"),
        ("hoeveel gram is 250 ml melk?", "250 * 1.03"),  # a density
    ],
)
async def test_a_factor_into_a_unit_the_question_gives_no_quantity_of_is_chosen_again(
    question, expression, tmp_path
):
    script = [propose(CALCULATE, {"expression": expression}), propose("general_knowledge", {})]
    loop, backend, _ = loop_for(household(), [*script, "About 250 g."], tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert result.text == "About 250 g."
    allowed = forced_tools(backend.requests[1].tool_choice)
    assert allowed and CALCULATE not in allowed


@pytest.mark.parametrize(
    ("question", "expression", "line"),
    [
        ("how many grams are 8 ounces?", "8 * 28.35", "8 oz = 226.8 g"),
        ("¿cuántos megas son 2 gigas de ram?", "2 * 1024", f"2 {TIMES} 1.024 = 2.048"),
        ("how many grams of flour for 3 cakes of 250 g each?", "3 * 250", f"3 {TIMES} 250 = 750"),
    ],
)
async def test_a_conversion_of_the_questions_own_quantity_is_still_the_products(
    question, expression, line, tmp_path
):
    script = [propose(CALCULATE, {"expression": expression}), "Here it is."]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    told = " ".join(m["content"] for m in backend.requests[1].messages if m["role"] == "system")
    assert f"The device worked this out: {line}." in told
