"""The days a question names and the days a passage states, in six languages."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from sovereign.conversation.days import (
    asked_days,
    compound_weekday,
    day_fit,
    named_months,
    stated_days,
    stated_weekdays,
    stated_years,
    year_fit,
)
from sovereign.conversation.offer.catalog import ToolCatalog
from sovereign.conversation.pending import TurnProgress
from sovereign.conversation.sources import Ranking, Sources, candidates
from sovereign.conversation.voice.words import words

WEDNESDAY = date(2025, 12, 3)
WEEKEND = {date(2025, 12, 6), date(2025, 12, 7)}


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "Is the market open this weekend?"),
        ("en", "Any works over the coming weekend?"),
        ("de", "Gibt es an diesem Wochenende Bauarbeiten?"),
        ("fr", "Y a-t-il des travaux ce week-end ?"),
        ("fr", "Des travaux ce weekend ?"),
        ("es", "¿Hay obras este fin de semana?"),
        ("nl", "Zijn er dit weekend werkzaamheden?"),
        ("it", "Ci sono lavori questo fine settimana?"),
    ],
)
def test_the_weekend_is_the_coming_saturday_and_sunday(language, question):
    assert asked_days(question, language, WEDNESDAY) == WEEKEND


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "What was on last weekend?"),
        ("de", "Was war am vergangenen Wochenende?"),
        ("fr", "Qu'est-ce qu'il y avait le week-end dernier ?"),
        ("nl", "Wat was er afgelopen weekend?"),
    ],
)
def test_last_weekend_is_the_one_before_the_coming_or_the_one_under_way(language, question):
    days = {date(2025, 11, 29), date(2025, 11, 30)}
    assert asked_days(question, language, WEDNESDAY) == days
    assert asked_days(question, language, date(2025, 12, 7)) == days  # on a Sunday


def test_on_a_sunday_the_weekend_is_the_one_under_way_and_next_is_a_week_on():
    sunday = date(2025, 12, 7)
    assert asked_days("this weekend", "en", sunday) == WEEKEND
    assert asked_days("am nächsten Wochenende", "de", WEDNESDAY) == {
        date(2025, 12, 13),
        date(2025, 12, 14),
    }


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "Did Harrowgate Town win at the weekend?"),
        ("de", "Was war am Wochenende los?"),
        ("fr", "Le marché a lieu le week-end ?"),
        ("es", "¿Qué tal el fin de semana?"),
        ("nl", "Hoe ging het weekend?"),
        ("it", "Com'è andata nel fine settimana?"),
    ],
)
def test_a_weekend_named_with_no_word_of_which_is_the_coming_one_and_the_one_before(
    language, question
):
    # "Did they win at the weekend?" asks about the last: the other words decide.
    days = {date(2025, 11, 29), date(2025, 11, 30), *WEEKEND}
    assert asked_days(question, language, WEDNESDAY) == days
    assert asked_days(question, language, date(2025, 12, 6)) == WEEKEND  # under way


@pytest.mark.parametrize(
    ("language", "question", "day"),
    [
        ("en", "When is the library open on Saturdays?", date(2025, 12, 6)),
        ("de", "Wann hat das Bad sonntags geöffnet?", date(2025, 12, 7)),
        ("es", "¿Qué hay de comer el jueves?", date(2025, 12, 4)),
        ("nl", "Hoe laat opent de bibliotheek op dinsdag?", date(2025, 12, 9)),
        ("fr", "Le prochain marché, samedi ?", date(2025, 12, 6)),  # "prochain" is not after it
        ("de", "Was läuft Freitagabend im Kino?", date(2025, 12, 5)),  # a part of the day
        ("nl", "Is de markt zaterdagochtend open?", date(2025, 12, 6)),
        ("de", "Hat die Bücherei Samstagvormittag offen?", date(2025, 12, 6)),
        ("it", "Com'è finita domenica la partita della Pallavolo Valsorda?", date(2025, 12, 7)),
    ],
)
def test_a_weekday_named_with_no_word_of_which_is_the_coming_one_and_the_one_before(
    language, question, day
):
    assert asked_days(question, language, WEDNESDAY) == {day, day - timedelta(days=7)}


@pytest.mark.parametrize(
    ("language", "question", "day"),
    [
        ("en", "Is the library open this Saturday?", date(2025, 12, 6)),
        ("de", "Hat das Bad diesen Sonntag geöffnet?", date(2025, 12, 7)),
        ("de", "Was läuft am kommenden Samstag?", date(2025, 12, 6)),  # the coming one
        ("fr", "Qu'est-ce qu'on mange ce jeudi ?", date(2025, 12, 4)),
        ("es", "¿Abre este sábado?", date(2025, 12, 6)),
        ("nl", "Is de markt deze zaterdag open?", date(2025, 12, 6)),
        ("it", "Che orari ha questo sabato?", date(2025, 12, 6)),
        ("it", "Cosa c'è a pranzo mercoledì?", WEDNESDAY),  # today's weekday: today
        ("fr", "Que mange-t-on vendredi prochain ?", date(2025, 12, 12)),
        ("es", "¿Abre el sábado que viene?", date(2025, 12, 13)),
        ("it", "Che orari ha sabato prossimo?", date(2025, 12, 13)),
        ("en", "Is it open next Friday?", date(2025, 12, 12)),
        ("en", "What is on today?", WEDNESDAY),
        ("es", "¿Abre mañana?", date(2025, 12, 4)),
        ("es", "¿Qué pasó esta mañana?", WEDNESDAY),  # this morning, not tomorrow
        ("fr", "Le marché du 20 décembre ?", date(2025, 12, 20)),
        ("en", "Who won the match last Sunday?", date(2025, 11, 30)),  # the one before
        ("de", "Wer hat letzten Sonntag gewonnen?", date(2025, 11, 30)),
        ("fr", "Qui a gagné dimanche dernier ?", date(2025, 11, 30)),
        ("es", "¿Quién ganó el domingo pasado?", date(2025, 11, 30)),
        ("nl", "Wie won er afgelopen zondag?", date(2025, 11, 30)),
        ("it", "Chi ha vinto domenica scorsa?", date(2025, 11, 30)),
        ("en", "Was it open last Wednesday?", date(2025, 11, 26)),  # today's: a week back
    ],
)
def test_a_named_day_is_the_next_such_day_from_today(language, question, day):
    assert asked_days(question, language, WEDNESDAY) == {day}


THIS_WEEK = {date(2025, 12, 1) + timedelta(days=n) for n in range(7)}
NEXT_WEEK = {day + timedelta(days=7) for day in THIS_WEEK}
LAST_WEEK = {day - timedelta(days=7) for day in THIS_WEEK}


@pytest.mark.parametrize(
    ("language", "question", "days"),
    [
        ("en", "What's on at the cinema this week?", THIS_WEEK),
        ("en", "When are the bins collected next week?", NEXT_WEEK),
        ("en", "Who won the quiz last week?", LAST_WEEK),
        ("de", "Wann wird nächste Woche die Biotonne geleert?", NEXT_WEEK),
        ("de", "Was läuft diese Woche im Kino?", THIS_WEEK),
        ("fr", "Le marché a lieu quand la semaine prochaine ?", NEXT_WEEK),
        ("fr", "Quels films cette semaine ?", THIS_WEEK),
        ("es", "¿Cuándo pasa la basura la semana que viene?", NEXT_WEEK),
        ("es", "¿Qué pasó la semana pasada en el pleno?", LAST_WEEK),
        ("nl", "Wanneer wordt volgende week het gft opgehaald?", NEXT_WEEK),
        ("nl", "Welke films draaien deze week?", THIS_WEEK),
        ("it", "Quando passa la raccolta la settimana prossima?", NEXT_WEEK),
        ("it", "Cosa danno al cinema questa settimana?", THIS_WEEK),
    ],
)
def test_a_week_named_with_a_word_of_which_is_its_days_from_monday_to_sunday(
    language, question, days
):
    assert asked_days(question, language, WEDNESDAY) == days


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "How often is the pool open, twice a week?"),
        ("de", "Wie viele Stunden pro Woche hat die Bücherei offen?"),
        ("es", "¿Qué hacemos el fin de semana?"),  # a weekend, not a week
        ("it", "Cosa c'è nel fine settimana?"),
    ],
)
def test_a_week_named_with_no_word_of_which_is_no_days(language, question):
    weekends = {*WEEKEND, date(2025, 11, 29), date(2025, 11, 30)}
    assert asked_days(question, language, WEDNESDAY) <= weekends


def test_a_passage_dated_in_the_week_asked_ranks_before_one_of_this_week():
    question = "Wann wird bei uns in Oberried nächste Woche die Biotonne geleert?"
    this_week = "Oberried: Mi 03.12. - Biotonne"
    next_week = "Oberried: Mi 10.12. - Biotonne"
    assert first_of_two(question, "de", this_week, next_week, WEDNESDAY) == "2.1"
    assert first_of_two(question, "de", next_week, this_week, WEDNESDAY) == "1.1"


def test_a_question_naming_no_day_asks_about_none():
    assert asked_days("How long do I bake a tarte Tatin?", "en", WEDNESDAY) == frozenset()


@pytest.mark.parametrize(
    ("language", "text", "days"),
    [
        ("en", "Next weekend, 13 and 14 December, no trains run.", [13, 14]),
        ("en", "Saturday 6 and Sunday 7 December: buses.", [6, 7]),
        ("en", "Closed on December 24th.", [24]),
        ("de", "Am 6./7. Dezember fahren Busse.", [6, 7]),
        ("fr", "Le 1er décembre, la médiathèque est fermée.", [1]),
        ("es", "Semana del 1 al 5 de diciembre", [1, 2, 3, 4, 5]),
        ("nl", "Zaterdag 6 en zondag 7 december rijden er geen treinen.", [6, 7]),
        ("it", "Sabato 6 e domenica 7 dicembre i treni sono sostituiti.", [6, 7]),
        ("it", "Il 13 e 14 dic. la linea è interrotta.", [13, 14]),
    ],
)
def test_explicit_dates_and_ranges_are_read_in_each_language(language, text, days):
    assert stated_days(text, language, WEDNESDAY) == {date(2025, 12, d) for d in days}


def test_a_date_is_placed_in_the_year_nearest_today_and_nonsense_is_no_date():
    assert stated_days("Jueves 8 de enero: paella", "es", WEDNESDAY) == {date(2026, 1, 8)}
    assert stated_days("Open 31 February", "en", WEDNESDAY) == frozenset()
    assert stated_days("Two years ago, 40 minutes late", "en", WEDNESDAY) == frozenset()
    assert stated_days("Trains every 15 minutes", "en", WEDNESDAY) == frozenset()


def test_a_passage_is_off_day_only_when_every_date_it_or_its_heading_states_is_not_asked():
    asked = frozenset(WEEKEND)
    assert day_fit("13 and 14 December: no trains.", "", asked, "en", WEDNESDAY) is False
    assert day_fit("6 and 14 December: no trains.", "", asked, "en", WEDNESDAY) is not False
    assert day_fit("Buses replace trains.", "", asked, "en", WEDNESDAY) is not False  # no date
    lentils = day_fit("- Thursday: lentils", "Week of 8 to 12 December", asked, "en", WEDNESDAY)
    assert lentils is False
    assert day_fit("- Sunday: roast", "6 to 7 December", asked, "en", WEDNESDAY) is not False
    assert day_fit("13 December", "", frozenset(), "en", WEDNESDAY) is not False  # none asked


@pytest.mark.parametrize(
    ("language", "question", "other_weekend", "this_weekend"),
    [
        (
            "en",
            "Are there engineering works between Bedford and Luton this weekend?",
            "Engineering works between Bedford and Luton on 13 and 14 December.",
            "Sunday 7 December: buses replace trains.",
        ),
        (
            "it",
            "Ci sono lavori sulla linea Firenze \u2013 Pisa questo fine settimana?",
            "Il 13 e 14 dicembre lavori sulla linea Firenze \u2013 Pisa.",
            "Sabato 6 e domenica 7 dicembre: autobus tra Empoli e Pisa.",
        ),
        (
            "es",
            "¿Hay obras entre Madrid y Alcalá este fin de semana?",
            "Obras entre Madrid y Alcalá el 13 y 14 de diciembre.",
            "Sábado 6 y domingo 7 de diciembre: autobuses.",
        ),
    ],
)
def test_a_passage_about_other_days_ranks_after_one_about_the_asked_days(
    language, question, other_weekend, this_weekend
):
    assert first_of_two(question, language, other_weekend, this_weekend) == "1.1"  # more words
    assert first_of_two(question, language, other_weekend, this_weekend, WEDNESDAY) == "2.1"


@pytest.mark.parametrize(
    ("language", "question", "coming", "before"),
    [
        (
            "en",
            "Did Harrowgate Town win at the weekend?",
            "Next up: Harrowgate Town v Castleford, Saturday 6 December, kick-off 3pm.",
            "Saturday 29 November: Harrowgate Town win 2-1 at home.",
        ),
        (
            "it",
            "Com'è finita domenica la partita della Pallavolo Valsorda?",
            "Sabato 6 dicembre: Pallavolo Valsorda contro Libertas, ore 18.",
            "Domenica 30 novembre la Pallavolo Valsorda vince la partita 3-1.",
        ),
    ],
)
def test_a_day_named_with_no_word_of_which_leaves_the_one_before_in_its_place(
    language, question, coming, before
):
    # Asked with no "this", "next" or "last", the one before is asked too: the words
    # decide between them (before, the day read as the coming one put the result after
    # the fixture).
    assert first_of_two(question, language, coming, before, WEDNESDAY) == "2.1"
    assert first_of_two(question, language, before, coming, WEDNESDAY) == "1.1"


@pytest.mark.parametrize(
    ("language", "question", "other_day", "asked_day"),
    [
        (
            "nl",
            "Hoe laat is het geitjes voeren op woensdag?",
            "- Zaterdag om 11.00 uur: geitjes voeren en borstelen.",
            "- Woensdagmiddag om 14.30 uur: geitjes voeren in de wei.",
        ),
        (
            "de",
            "Wann ist am Mittwoch das Kinderturnen?",
            "Kinderturnen: Freitag 15 Uhr.",
            "Kinderturnen: Mittwochnachmittag 16 Uhr.",
        ),
        (
            "nl",
            "Wanneer is de bibliotheek op vrijdag open?",
            "De bibliotheek is maandag open van 10 tot 17 uur.",
            "De bibliotheek is vrijdagavond open van 18 tot 21 uur.",
        ),
    ],
)
def test_a_weekday_run_together_with_a_part_of_its_day_is_that_weekday(
    language, question, other_day, asked_day
):
    assert first_of_two(question, language, other_day, asked_day) == "2.1"


@pytest.mark.parametrize(
    ("language", "text", "weekday"),
    [
        ("de", "Sonntagabend", "sonntag"),
        ("nl", "woensdagmiddag", "woensdag"),
        ("fr", "samedisoir", "samedi"),
        ("de", "Sonntags", None),  # an inflection: the weekday's stem meets it
        ("de", "Montage", None),  # an ending of fewer than four letters is no part of a day
        ("en", "Sunday", None),  # the name itself is no compound
        ("en", "Monument", None),
    ],
)
def test_a_compound_weekday_is_a_weekday_s_name_and_four_letters_or_more(language, text, weekday):
    assert compound_weekday(words(text)[0], language) == weekday


@pytest.mark.parametrize(
    ("language", "text", "months"),
    [
        ("fr", "Combien coûte une semaine en février ?", {2}),
        ("de", "Was kostet der Kurs im Januar?", {1}),
        ("nl", "Is het zwembad in mei open?", {5}),
        ("es", "| Enero 2026 | 480 € |", {1}),
        ("fr", "| February 2026 (whole month) | €540 |", {2}),  # English's names too
        ("it", "Chiuso dal 22 dicembre al 2 gennaio", {12, 1}),  # the months of its dates
        ("en", "May I bring the dog?", set()),  # an everyday word: a month beside a number
        ("en", "We may open later. Open 12 May to 3 June.", {5, 6}),
        ("en", "What is on this weekend?", set()),
    ],
)
def test_the_months_a_text_names(language, text, months):
    assert named_months(text, language, WEDNESDAY) == months


@pytest.mark.parametrize(
    ("language", "question", "other_month", "asked_month"),
    [
        (
            "fr",
            "Combien coûte une semaine au gîte en février ?",
            "Le gîte : 480 € la semaine en janvier, ménage compris.",
            "Février (vacances scolaires) : 540 €.",
        ),
        (
            "de",
            "Wie teuer ist der Schwimmkurs im März?",
            "Swimming lessons for children: €60 in January and February.",
            "In March: €75.",  # a page in English
        ),
    ],
)
def test_a_passage_naming_the_month_asked_counts_it_as_one_more_shared_term(
    language, question, other_month, asked_month
):
    assert first_of_two(question, language, other_month, asked_month, WEDNESDAY) == "2.1"
    assert first_of_two(question, language, other_month, asked_month) == "1.1"  # no today


@pytest.mark.parametrize(
    ("language", "question", "other_day", "asked_day"),
    [
        (
            "en",
            "is the Alborán supermarket open on Monday the 8th?",
            "Supermercados Alborán: de martes a sábado abrimos de 9:00 a 21:30, domingo cerrado.",
            "El lunes 8 de diciembre, festivo, las tiendas Alborán abren de 10:00 a 14:00.",
        ),
        (
            "de",
            "Hat der Weihnachtsmarkt in Maasberg am Sonntag offen?",
            "Weihnachtsmarkt Maasberg: op vrijdag en zaterdag is de markt open tot 21.00 uur.",
            "Op zondag 7 december is de kerstmarkt in Maasberg open van 10.00 tot 18.00 uur.",
        ),
        (
            "fr",
            "Le marché de Noël de Bolzano est ouvert dimanche ?",
            "Bolzano: il mercatino apre venerdì e sabato fino alle 21.",
            "Domenica 7 dicembre il mercatino apre dalle 10 alle 19.",
        ),
    ],
)
def test_a_passage_in_another_language_states_its_days_in_its_own_words(
    language, question, other_day, asked_day
):
    # The page's days are read in the page's language: "lunes 8 de diciembre" is the
    # Monday asked, "vrijdag en zaterdag" no Sunday.
    assert first_of_two(question, language, other_day, asked_day, WEDNESDAY) == "2.1"


@pytest.mark.parametrize(
    ("language", "question", "working_days", "weekend"),
    [
        (
            "nl",
            "Welk nummer bel ik dit weekend voor een huisarts in Lindeveld?",
            "Huisarts Lindeveld: bel op werkdagen 0522 555 310 voor een afspraak.",
            "In het weekend belt u de huisartsenpost op 0900 555 4477.",
        ),
        (
            "en",
            "Which number do I call for a doctor in Ashby this weekend?",
            "Ashby doctor's surgery: call 01632 960 310 on weekdays for an appointment.",
            "At the weekend, call the out-of-hours service on 111.",
        ),
    ],
)
def test_a_passage_about_the_working_days_ranks_after_one_about_the_weekend_asked(
    language, question, working_days, weekend
):
    assert first_of_two(question, language, working_days, weekend, WEDNESDAY) == "2.1"


def first_of_two(question, language, first, second, today=None):
    """The first candidate among two search results with these snippets."""
    sources = Sources()
    results = [
        {"title": "a", "url": "https://a.example/", "snippet": first},
        {"title": "b", "url": "https://b.example/", "snippet": second},
    ]
    sources.add_result("web.search", {"results": results})
    return candidates(sources, question, language, today)[0]


def test_a_turn_ranks_its_passages_by_the_day_it_began():
    progress = TurnProgress(
        ToolCatalog([]),
        [{"role": "user", "content": "Is the market open this weekend?"}],
        today=WEDNESDAY,
    )
    results = [
        {"title": "a", "url": "https://a.example/", "snippet": "Market open 13 December."},
        {"title": "b", "url": "https://b.example/", "snippet": "Sunday 7 December: closed."},
    ]
    progress.sources.add_result("web.search", {"results": results})
    assert progress.candidates()[0] == "2.1"
    progress.today = date(2025, 12, 10)  # a week on, "this weekend" is the 13th
    assert progress.candidates()[0] == "1.1"


def test_a_turn_ranks_its_passages_once_until_a_source_is_added(monkeypatch):
    import sovereign.conversation.pending as pending

    ranked = []
    monkeypatch.setattr(pending, "ranking", lambda *a: ranked.append(a) or Ranking(("1.1",)))
    progress = TurnProgress(ToolCatalog([]), [{"role": "user", "content": "Open on Sunday?"}])
    assert progress.candidates() == progress.candidates() == ["1.1"]
    assert len(ranked) == 1
    progress.sources.add_result(
        "web.search",
        {
            "results": [
                {"title": "a", "url": "https://a.example/", "snippet": "Open on Sunday."},
            ]
        },
    )
    progress.candidates()
    assert len(ranked) == 2


def test_a_passage_is_on_day_when_it_or_its_heading_states_an_asked_day():
    asked = frozenset(WEEKEND)
    assert day_fit("6 and 14 December: no trains.", "", asked, "en", WEDNESDAY) is True
    assert day_fit("- Sunday: roast", "6 to 7 December", asked, "en", WEDNESDAY) is True
    assert day_fit("13 and 14 December: no trains.", "", asked, "en", WEDNESDAY) is not True
    assert day_fit("This weekend: buses.", "", asked, "en", WEDNESDAY) is not True  # no date
    assert day_fit("6 December", "", frozenset(), "en", WEDNESDAY) is not True  # none asked


@pytest.mark.parametrize(
    ("language", "heading", "asked_one", "other_one"),
    [
        ("es", "Semana del 1 al 5 de diciembre", "- Jueves: lentejas", "- Lunes: cocido"),
        ("de", "Speiseplan 1. bis 5. Dezember", "Donnerstag: Linsen", "Montag: Nudeln"),
        ("en", "Menu for 1 to 5 December", "Thursday: fish pie", "Monday: pasta"),
    ],
)
def test_a_passage_naming_its_weekday_under_a_heading_of_dates_is_that_day_of_them(
    language, heading, asked_one, other_one
):
    # Every line of the week's menu was read as the whole week: Monday's dish was "on
    # day" for Thursday as much as Thursday's.
    thursday = frozenset({date(2025, 12, 4)})
    assert day_fit(asked_one, heading, thursday, language, WEDNESDAY) is True
    assert day_fit(other_one, heading, thursday, language, WEDNESDAY) is False
    assert day_fit("Drinks included.", heading, thursday, language, WEDNESDAY) is True


@pytest.mark.parametrize(
    ("language", "heading", "asked_one", "other_one"),
    [
        ("en", "Week of 1 December", "Thursday: lentil soup", "Monday: pasta"),
        ("fr", "Semaine du 1er décembre", "Jeudi : soupe de lentilles", "Lundi : pâtes"),
        ("de", "Woche ab 1. Dezember", "Donnerstag: Linsensuppe", "Montag: Nudeln"),
        ("nl", "Week van 1 december", "Donderdag: linzensoep", "Maandag: pasta"),
        ("it", "Settimana dal 1 dicembre", "Giovedì: zuppa di lenticchie", "Lunedì: pasta"),
    ],
)
def test_a_weekday_under_a_heading_of_one_day_is_that_weekday_of_the_week_it_begins(
    language, heading, asked_one, other_one
):
    # "Thursday: lentil soup" under "Week of 1 December" was read as the 1st alone, so
    # every dish of the week's menu was about another day than the Thursday asked.
    thursday = frozenset({date(2025, 12, 4)})
    assert day_fit(asked_one, heading, thursday, language, WEDNESDAY) is True
    assert day_fit(other_one, heading, thursday, language, WEDNESDAY) is False
    next_thursday = frozenset({date(2025, 12, 11)})  # the week after: not this heading's
    assert day_fit(asked_one, heading, next_thursday, language, WEDNESDAY) is False


def test_a_weekday_under_the_heading_s_own_weekday_is_still_that_day():
    # "bis Donnerstag 8.30 Uhr" under "Mittwoch, 3. Dezember": the duty is the 3rd's.
    wednesday = frozenset({date(2025, 12, 3)})
    heading, line = "Mittwoch, 3. Dezember", "Mittwoch bis Donnerstag 8.30 Uhr: Löwen-Apotheke"
    assert day_fit(line, heading, wednesday, "de", WEDNESDAY) is True


@pytest.mark.parametrize(
    ("language", "question", "undated", "dated"),
    [
        (
            "de",
            "Gibt es an diesem Wochenende Bauarbeiten zwischen Köln und Düsseldorf?",
            "Bauarbeiten zwischen Köln und Bonn: Ersatzbusse ab Köln Süd.",
            "Samstag, 6. Dezember: zwischen Köln und Düsseldorf keine Züge.",
        ),
        (
            "fr",
            "Y a-t-il des travaux entre Lyon et Grenoble ce week-end ?",
            "Des cars entre Lyon et Grenoble la nuit.",
            "Dimanche 7 décembre : cars entre Lyon et Grenoble.",
        ),
    ],
)
def test_a_passage_stating_an_asked_day_counts_it_as_one_more_shared_term(
    language, question, undated, dated
):
    assert first_of_two(question, language, undated, dated) == "1.1"  # more shared words
    assert first_of_two(question, language, undated, dated, WEDNESDAY) == "2.1"


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("En 2024 el segundo plazo terminó el 9 de diciembre.", {2024}),
        ("Montag, 23.12.2024", {2024}),
        ("Saison 2025\u20132026", {2025, 2026}),
        ("2.000 visitors, 12,2025 km, order 20251, 2025.5 litres", set()),
        ("Opening hours 9:30-17:00", set()),
    ],
)
def test_a_year_is_a_number_from_1900_to_2099_standing_alone(text, years):
    assert stated_years(text) == years


@pytest.mark.parametrize(
    ("passage", "heading", "question", "fit"),
    [
        ("Im vergangenen Jahr hatte der Markt bis 23 Uhr offen.", "Weihnachtsmarkt 2024",
         "Bis wann hat der Weihnachtsmarkt am Samstag offen?", False),
        ("En 2024 el segundo plazo terminó el 9 de diciembre.", "",
         "¿Hasta qué día puedo pagar el segundo recibo?", False),
        ("Open until 22:30 on Saturdays.", "Christmas market 2025", "When does it close?", True),
        ("The 2026 season starts in April.", "", "When does the season start?", True),
        ("Open until 22:30 on Saturdays.", "Opening hours", "When does it close?", None),
        ("In 2024 the market closed at 23:00.", "", "When did it close in 2024?", True),
        ("In 2025 the market closes at 22:30.", "", "When did it close in 2024?", False),
    ],
)  # fmt: skip
def test_a_passage_naming_only_years_not_asked_about_does_not_fit(passage, heading, question, fit):
    assert year_fit(passage, heading, question, WEDNESDAY) is fit


def test_last_year_s_edition_ranks_after_this_year_s():
    sources = Sources()
    results = [
        {"title": "Christmas market 2024: a look back", "url": "https://a.example/",
         "snippet": "Last year the Christmas market was open on Saturdays until 23:00."},
        {"title": "Christmas market 2025", "url": "https://b.example/",
         "snippet": "Saturdays from 11:00 to 22:30."},
    ]  # fmt: skip
    sources.add_result("web.search", {"results": results})
    question = "Until when is the Christmas market open on Saturday?"
    assert candidates(sources, question, "en", WEDNESDAY)[0] == "2.1"
    assert candidates(sources, question, "en")[0] == "1.1"  # without the household's date


@pytest.mark.parametrize(
    ("language", "text", "weekdays"),
    [
        ("en", "Friday to Sunday: adults £7.50", {4, 5, 6}),
        ("en", "Open Fri\u2013Mon, 10am to 4pm", {4, 5, 6, 0}),  # around the week's end
        ("en", "Saturdays and Sundays only", {5, 6}),  # two days, no range
        ("de", "Freitag bis Sonntag: Erwachsene 7,50 €", {4, 5, 6}),
        ("de", "Mo\u2013Do außerhalb der Ferien", {0, 1, 2, 3}),
        ("de", "Öffnungszeiten Mo-Fr 9\u201318 Uhr", {0, 1, 2, 3, 4}),
        ("de", "Sa/So geschlossen", {5, 6}),
        ("fr", "Ouvert du lundi au vendredi", {0, 1, 2, 3, 4}),
        ("fr", "lun.-ven. 9 h \u2013 12 h", {0, 1, 2, 3, 4}),
        ("es", "De lunes a viernes, de 9 a 14 h", {0, 1, 2, 3, 4}),
        ("es", "Sábados no festivos: 7:15 y 20:10", {5}),
        ("nl", "ma t/m vr van 9 tot 17 uur", {0, 1, 2, 3, 4}),
        ("it", "dal lunedì al venerdì, ore 8-13", {0, 1, 2, 3, 4}),
        # the working days and the weekend, in their own words
        ("nl", "Praktijk De Linde: bel op werkdagen van 8.00 tot 17.00 uur", {0, 1, 2, 3, 4}),
        ("de", "Die Sprechstunde ist werktags von 8 bis 12 Uhr", {0, 1, 2, 3, 4}),
        ("en", "Call the surgery on weekdays before 10am", {0, 1, 2, 3, 4}),
        ("fr", "Le cabinet est ouvert en semaine de 8 h à 19 h", {0, 1, 2, 3, 4}),
        ("es", "Consultas en días laborables de 8 a 15 h", {0, 1, 2, 3, 4}),
        ("it", "Ambulatorio aperto nei giorni feriali", {0, 1, 2, 3, 4}),
        ("nl", "In het weekend belt u de huisartsenpost", {5, 6}),
        ("fr", "Le week-end, appelez le 15", {5, 6}),
    ],
)
def test_the_weekdays_a_text_names_with_the_days_between_two_joined(language, text, weekdays):
    assert stated_weekdays(text, language) == weekdays


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("de", "Ist das so? Do it yourself."),  # "So", "Do": abbreviations alone
        ("es", "Vistas al mar desde la terraza"),  # "mar": no Tuesday
        ("nl", "Wat doe je di?"),
        ("en", "Trains every 15 minutes"),
    ],
)
def test_an_abbreviated_weekday_alone_names_no_day(language, text):
    assert stated_weekdays(text, language) == frozenset()


def test_two_dates_joined_are_every_day_between_them_across_months_and_years():
    winter = stated_days("Horaires d'hiver (du 1er novembre au 28 février)", "fr", WEDNESDAY)
    assert date(2025, 12, 8) in winter and len(winter) == 120
    summer = stated_days("Horaires d'été (du 1er mars au 31 octobre)", "fr", WEDNESDAY)
    assert date(2025, 12, 8) not in summer
    holidays = stated_days("from 20 December to 6 January", "en", WEDNESDAY)
    assert date(2026, 1, 1) in holidays and len(holidays) == 18
    assert stated_days("20 December, 6 January", "en", WEDNESDAY) == {
        date(2025, 12, 20),
        date(2026, 1, 6),
    }  # two dates with nothing joining them as a range


def test_a_passage_with_no_date_is_off_day_when_it_names_only_other_weekdays():
    saturday = frozenset({date(2025, 12, 6)})
    assert day_fit("Mo\u2013Do: Erwachsene 5,50 €", "", saturday, "de", WEDNESDAY) is False
    assert day_fit("Ab Freitag: Eintritt 6 €", "", saturday, "de", WEDNESDAY) is False
    assert day_fit("Freitag bis Sonntag: 7,50 €", "", saturday, "de", WEDNESDAY) is None
    assert (
        day_fit("Eintritt 6 €", "Tarife Montag bis Donnerstag", saturday, "de", WEDNESDAY) is False
    )
    # a date decides before a weekday: "bis Donnerstag 8.30 Uhr" under Wednesday's date
    wednesday = frozenset({WEDNESDAY})
    heading = "Notdienst \u2013 Mittwoch, 3. Dezember"
    assert day_fit("Von 8.30 Uhr bis Donnerstag 8.30 Uhr", heading, wednesday, "de", WEDNESDAY)


def test_a_passage_on_other_weekdays_ranks_after_one_on_the_asked_day():
    question = "Was kostet die Eisbahn am Samstag für Erwachsene?"
    weekdays, weekend = "Mo\u2013Do: Eisbahn für Erwachsene 5,50 €", "Fr\u2013So: Erwachsene 7,50 €"
    assert first_of_two(question, "de", weekdays, weekend) == "1.1"  # more words
    assert first_of_two(question, "de", weekdays, weekend, WEDNESDAY) == "2.1"


@pytest.mark.parametrize(
    ("language", "text", "days"),
    [
        ("de", "Sa 06.12., 18 Uhr \u2013 Weihnachtsfeier", {date(2025, 12, 6)}),
        ("de", "Stand: 03.12.2025", {WEDNESDAY}),
        ("nl", "Ophaaldag: 8.12.", {date(2025, 12, 8)}),
        ("fr", "- Sam. 6 : 14 h 15 et 20 h 45", {date(2025, 12, 6)}),
        ("fr", "- Mer. 3 et jeu. 4 : 20 h 30", {WEDNESDAY, date(2025, 12, 4)}),
        ("en", "Sunday 7, doors at 10am", {date(2025, 12, 7)}),
    ],
)
def test_dates_in_numbers_and_a_weekday_with_its_day_s_number(language, text, days):
    assert stated_days(text, language, WEDNESDAY) == days


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("de", "Von 8.30 Uhr bis 12.30 Uhr"),  # times: no second dot
        ("de", "Freitag bis Sonntag: 7,50 \u20ac"),  # a price after a weekday
        ("de", "Mo 8\u201318 Uhr"),  # hours after a weekday
        ("en", "Monday 23 is far"),  # no Monday the 23rd within two weeks
        ("de", "Preis: 7.50."),
    ],
)
def test_times_prices_and_far_weekdays_are_no_dates(language, text):
    assert stated_days(text, language, WEDNESDAY) == frozenset()


def test_two_dates_in_numbers_joined_are_a_range():
    holidays = stated_days("Ferien vom 22.12. bis 06.01.", "de", WEDNESDAY)
    assert date(2025, 12, 31) in holidays and len(holidays) == 16
