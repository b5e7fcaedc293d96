"""The one check on the model's own prose: figures and calendar names no source holds
(answer.checks, answer.figures), in every language."""

from __future__ import annotations

import pytest

from sovereign.capabilities import system
from sovereign.conversation.answer.checks import Grounds, GuardedSink, check, notes
from sovereign.conversation.answer.figures import figures_in, rounds_to, supported


def grounds(results=(), asked=("How are you?",), unrun=0, language="en"):
    return Grounds.of(list(results), list(asked), unrun, language)


@pytest.mark.parametrize(
    ("text", "language", "values"),
    [
        ("3.465 Anfragen (46,2 %)", "de", [{3465.0, 3.465}, {46.2}]),
        ("3 465 requêtes sur 7\u202f497 (46,2 %)", "fr", [{3465.0}, {7497.0}, {46.2}]),
        ("3,465 of 7,497 (46.2%)", "en", [{3465.0}, {7497.0}, {46.2}]),
        ("21,9 GB libres", "es", [{21.9}]),
        ("21.9 GB vrij", "nl", [{21.9}]),  # written the English way: read that way too
        ("IPv6, 4K and http://example.com/a1/22", "en", []),
        ("1. first\n2. second", "en", []),
    ],
)
def test_figures_are_read_in_the_answers_language_and_in_english(text, language, values):
    found = [{value for value, _ in figure.readings} for figure in figures_in(text, language)]
    assert found == values


def test_a_source_supports_a_figure_rounded_or_cut_to_the_digits_it_shows():
    (figure,) = figures_in("about 23.5 GB", "en")
    assert supported(figure, [23.47]) and supported(figure, [23.54]) and not supported(figure, [24])
    assert rounds_to(7_480, 7_500, 0) and not rounds_to(7_480, 7_400, 0)


def test_no_call_proposed_means_nothing_to_check():
    assert check("The Eiffel Tower is 330 metres tall.", Grounds()) == []


def test_a_figure_no_result_holds_is_a_problem_with_its_own_note():
    found = grounds([({"results": [{"snippet": "Open from 9:30 to 18:00"}]}, None)])
    assert check("It opens at 9:30.", found) == []
    problems = check("It opens at 9:30 and costs 17 euros.", found)
    assert [p.text for p in problems] == ["17"]
    assert "17 is not among them" in notes(problems)


def test_figures_in_the_question_may_be_said_back():
    found = grounds([({"x": 1}, None)], asked=["Is 15% of 80 equal to 12?"])
    assert check("Yes: 15% of 80 is 12.", found) == []


def test_a_result_figure_may_be_said_in_the_units_its_declared_kind_converts_to():
    health = {"uptime_hours": 48.0, "memory_available_gb": 5.3}
    found = grounds([(health, system.FACTS)])
    assert check("It has been up for 2 days, 2880 minutes.", found) == []
    assert check("5300 MB are free.", found) == []
    assert [p.text for p in check("It has 6 GB free.", found)] == ["6"]


@pytest.mark.parametrize(
    ("language", "answer", "named"),
    [
        ("en", "It is open on Tuesday.", "Tuesday"),
        ("de", "Es hat am Dienstag geöffnet.", "Dienstag"),
        ("fr", "C'est ouvert le mardi.", "mardi"),
        ("es", "Abre el martes.", "martes"),
        ("nl", "Het is dinsdag open.", "dinsdag"),
        ("it", "È aperto il martedì.", "martedì"),
        ("de", "Geöffnet ab März.", "März"),
    ],
)
def test_after_nothing_ran_a_day_or_month_the_person_did_not_name_is_a_problem(
    language, answer, named
):
    denied = grounds(unrun=1, language=language)
    assert [p.text for p in check(answer, denied)] == [named]
    said_it = grounds(asked=[f"Is it open on {named}?"], unrun=1, language=language)
    assert check(answer, said_it) == []


def test_after_a_call_ran_day_names_from_sources_are_not_checked():
    ran = grounds([({"text": "Closed on Mondays"}, None)])
    assert check("It is closed on Monday.", ran) == []


async def test_the_guarded_sink_passes_sentences_until_one_has_a_problem():
    passed: list[str] = []

    async def sink(piece: str) -> None:
        passed.append(piece)

    guarded = GuardedSink(sink, grounds([({"price": 12}, None)]))
    for piece in ("It costs 1", "2 euros. Parking is 9", " euros. Bye."):
        await guarded(piece)
    assert "".join(passed) == "It costs 12 euros." and guarded.tripped
    await guarded.finish("It costs 12 euros. Parking is extra.")
    assert "".join(passed) == "It costs 12 euros. Parking is extra."
