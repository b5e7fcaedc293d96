"""The time span a question names, from the catalog of six languages (offer/time_spans.py).

Every spelling of a span names it: case, accents, hyphens of any kind, spaces inside
the word, a possessive. Its neighbours do not: plurals that speak of habits ("on
weekends"), compounds ("Wochenendhaus"), spans ahead of today, and "the last week
of …", which names a part of something else.
"""

from __future__ import annotations

import pytest

from sovereign.capabilities import pihole, web_search
from sovereign.conversation.offer.guidance import ArgumentGuide, window_values
from sovereign.conversation.offer.subjects import conversation_scope
from sovereign.conversation.offer.time_spans import (
    UNIT_DAYS,
    named_span_days,
    names_time_scope,
    spans,
    time_scope,
)

from .test_subjects import HOUSEHOLD

WEEKEND = [
    # English
    "Are there engineering works this weekend?",
    "are there engineering works THIS WEEKEND",
    "engineering works this week-end",
    "engineering works this week\u2011end",  # a non-breaking hyphen
    "engineering works this week\u2010end",  # the Unicode hyphen
    "engineering works this week\u2013end",  # an en dash between two words
    "engineering works this week end",
    "engineering works this week_end",
    "engineering works #thisweekend",
    "this weekend's engineering works",
    "what's on at the weekend",
    "is it open over the weekend?",
    "trains last weekend",
    # German
    "Gibt es dieses Wochenende Bauarbeiten?",
    "Hat dieses Wochenende der Markt offen?",
    "Was ist am Wochenende los?",
    "Was ist am WOCHENENDE los?",
    "Was ist am Wochen-Ende los?",
    "Bauarbeiten übers Wochenende",
    "Bauarbeiten ubers Wochenende",  # typed without the umlaut
    "Was war letztes Wochenende los?",
    # French
    "Y a-t-il des travaux ce week-end ?",
    "Y a-t-il des travaux ce weekend ?",
    "Y a-t-il des travaux ce week end ?",
    "Y a-t-il des travaux ce WEEK-END ?",
    "Y a-t-il des travaux ce week-end de Pâques ?",
    "Qu'est-ce qu'on fait cette fin de semaine ?",
    # Spanish
    "¿Hay obras este fin de semana?",
    "¿Qué hacemos el finde?",
    "¿Está abierto el fin de semana?",
    "¿Qué pasó el fin de semana pasado?",
    # Dutch
    "Zijn er dit weekend werkzaamheden?",
    "Zijn er dit weekeinde werkzaamheden?",
    "Zijn er dit week-end werkzaamheden?",
    "Wat is er het weekend te doen?",
    "Wat was er afgelopen weekend?",
    # Italian
    "Ci sono lavori questo fine settimana?",
    "Ci sono lavori questo finesettimana?",
    "Ci sono lavori questo fine-settimana?",
    "Ci sono lavori questo weekend?",
    "Ci sono lavori nel fine settimana?",
    "Che cosa è successo lo scorso fine settimana?",
]


@pytest.mark.parametrize("question", WEEKEND)
def test_every_spelling_of_the_weekend_names_a_week(question):
    assert named_span_days(question) == 7


@pytest.mark.parametrize(
    ("question", "days"),
    [
        ("What is on today?", 1),
        ("today's news", 1),
        ("Was läuft heute Abend?", 1),
        ("Qu'est-ce qu'il y a aujourd'hui ?", 1),
        ("Qu'est-ce qu'il y a aujourd\u2019hui ?", 1),  # a typographic apostrophe
        ("¿Qué hay hoy?", 1),
        ("Wat is er vanavond?", 1),
        ("Cosa c'è stasera?", 1),
        ("How many this week?", 7),
        ("Was gibt es diese Woche?", 7),
        ("Quoi de neuf cette semaine ?", 7),
        ("¿Qué hay esta semana?", 7),
        ("Wat is er deze week?", 7),
        ("Cosa c'è questa settimana?", 7),
        ("What's on this month?", 30),
        ("Was ist diesen Monat los?", 30),
        ("Qu'y a-t-il ce mois-ci ?", 30),
        ("Qu'y a-t-il ce mois ci ?", 30),
        ("¿Qué hay este mes?", 30),
        ("Wat is er deze maand?", 30),
        ("Cosa c'è questo mese?", 30),
        ("Is the market on this year?", 365),
        ("Is the market on this years?", 365),
        ("Gibt es dieses Jahr einen Markt?", 365),
        ("Gibt es heuer einen Markt?", 365),
        ("Y a-t-il un marché cette année ?", 365),
        ("Y a-t-il un marché cette annee ?", 365),
        ("¿Hay mercado este año?", 365),
        ("¿Hay mercado este ano?", 365),  # typed without the tilde
        ("Is er dit jaar een markt?", 365),
        ("C'è il mercatino quest'anno?", 365),
        ("C'è il mercatino quest\u2019anno?", 365),
        ("C'è il mercatino questo anno?", 365),
        ("news from the last 3 days", 3),
        ("news from the past three days", 3),
        ("news from the last \uff13 days", 3),  # full-width digit
        ("in the last 24 hours", 1),
        ("in den letzten 24 Stunden", 1),
        ("die letzten zwei Wochen", 14),
        ("les 3 derniers jours", 3),
        ("les trois dernières semaines", 21),
        ("los últimos dos meses", 60),
        ("de afgelopen drie dagen", 3),
        ("gli ultimi 3 giorni", 3),
        # "the past week/month/year" with the word for elapsed, last or previous
        ("Combien de pubs bloquées sur le mois écoulé ?", 30),
        ("Quelle part filtrée pendant l'année écoulée ?", 365),
        ("Combien de requêtes la semaine passée ?", 7),
        ("Quante richieste nell'ultimo mese?", 30),
        ("Quanto traffico l'ultima settimana?", 7),
        ("Quante pubblicità il mese passato?", 30),
        ("¿Cuántas consultas en la última semana?", 7),
        ("¿Cuánto se bloqueó el mes anterior?", 30),
        ("Hoeveel verzoeken de voorbije maand?", 30),
        ("Hoeveel reclame in de laatste week?", 7),
        ("Wie viel wurde vorige Woche geblockt?", 7),
        ("How much was blocked the previous month?", 30),
        # A whole unit, in six languages (a follow-up: "ok et sur tout le mois ?").
        ("and over the whole month?", 30),
        ("How many ads did it stop the entire week?", 7),
        ("Und wie viele waren es den ganzen Monat?", 30),
        ("und in der ganzen Woche?", 7),
        ("ok et sur tout le mois ?", 30),
        ("et toute la semaine ?", 7),
        ("¿y en todo el mes?", 30),
        ("¿y la semana entera?", 7),
        ("en de hele maand?", 30),
        ("en heel de week?", 7),
        ("e in tutta la settimana?", 7),
        ("e nel mese intero?", 30),
        ("and the whole year?", 365),
        # Spanish joins "de" and "el" into "del": the span after it is the same one.
        ("¿qué parte de las consultas del último mes se ha bloqueado?", 30),
        ("¿cuántos anuncios desde principios del mes pasado?", 30),
        ("¿y en la última semana?", 7),
        ("et toute l'année ?", 365),
        # since this time yesterday: the last 24 hours, not yesterday
        ("how many were blocked since this time yesterday?", 1),
        ("wie viele seit gestern um diese Zeit?", 1),
        ("combien depuis hier à la même heure ?", 1),
        ("¿cuántas desde ayer a esta hora?", 1),
        ("hoeveel sinds gisteren rond deze tijd?", 1),
        ("quante da ieri a quest'ora?", 1),
        # a counted span without its article, in each declension
        ("Pi-hole-Statistik bitte: Anfragen gesamt, letzte 30 Tage.", 30),
        ("Anfragen der vergangene 2 Wochen", 14),
        ("die vorigen drei Tage", 3),
        ("hoeveel in de vorige 7 dagen", 7),
        ("Desde ayer a estas horas, ¿cuántas ha tumbado?", 1),
        # a count over a span
        ("sur une semaine, ca fait combien de requetes ?", 7),
        ("et sur 30 jours ?", 30),
        ("how many queries over a week?", 7),
        ("over two weeks, how many were blocked?", 14),
    ],
)
def test_spans_of_each_length_in_six_languages(question, days):
    assert named_span_days(question) == pytest.approx(days)


@pytest.mark.parametrize(
    "question",
    [
        "Is the tip open on weekends?",  # a habit, not a span
        "cheap weekend breaks in Paris",
        "The Weeknd tour dates",
        "weekender bag reviews",
        "Wochenendhaus am See mieten",
        "Wochenenden in Berlin",
        "week-ends à Paris pas chers",
        "fines de semana baratos",
        "weekendtas kopen",
        "Is the market open next weekend?",  # ahead of today
        "the weather in Berlin tomorrow",
        "since Monday",
        "in March",
        "results from 2019",
        "the latest news about the Raspberry Pi 5",
        "When is the last day to post Christmas cards?",  # part of something else
        "When does the last week of term start?",
        "Was war in der letzten Woche vor Weihnachten?",
        "notizie ultima ora Milano",
        "Que s'est-il passé la dernière semaine de décembre ?",  # a part of something else
        "Quando inizia l'ultima settimana di scuola?",
        "¿Qué pasa la última semana de enero?",
        "¿Qué pasa en el último mes del año?",
        "Is the tip open all week?",  # a habit: "all week" is no span
        "Can I grow basil all year?",
        "Wat gebeurt er de laatste week van het jaar?",
        "this weekday timetable",
        "",
    ],
)
def test_neighbours_of_a_span_name_none(question):
    assert named_span_days(question) is None


def test_the_first_span_named_is_the_one():
    assert named_span_days("this weekend, or else this month") == 7
    assert named_span_days("this month, or else this weekend") == 30


def test_every_catalog_unit_has_a_length_and_every_language_all_four_parts():
    import json

    from sovereign.conversation.offer.time_spans import CATALOG

    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    languages = [language for language in catalog if not language.startswith("_")]
    assert sorted(languages) == ["de", "en", "es", "fr", "it", "nl"]
    for language in languages:
        entry = catalog[language]
        assert set(entry) == {
            "spans",
            "spans_ahead",
            "not_spans",
            "counted",
            "units",
            "numbers",
            "scopes",
            "counted_scopes",
            "anchors",
        }
        spans_of = set(entry["spans"]) | set(entry["spans_ahead"])
        assert spans_of | set(entry["units"]) <= set(UNIT_DAYS)
        assert {"day", "week", "month", "year"} <= spans_of
    assert spans().fixed.values  # compiled


@pytest.mark.parametrize(
    ("question", "time_range", "period"),
    [
        # The coming weekend may lie ahead: Pi-hole counts over it, a search reaches
        # back as long again before it, when pages about it are written.
        ("this weekend", "month", "last_7_days"),
        ("dieses Wochenende", "month", "last_7_days"),
        ("ce week-end", "month", "last_7_days"),
        ("este fin de semana", "month", "last_7_days"),
        ("dit weekeinde", "month", "last_7_days"),
        ("questo fine settimana", "month", "last_7_days"),
        # A span that holds today or lies behind it: a window counted back from now
        # covers it.
        ("today", "day", "last_24_hours"),
        ("this month", "month", "last_30_days"),
        ("this year", "year", "last_30_days"),
        ("last weekend", "week", "last_7_days"),
        ("letzte Woche", "week", "last_7_days"),
        ("la semaine dernière", "week", "last_7_days"),
        ("el mes pasado", "month", "last_30_days"),
        ("afgelopen maand", "month", "last_30_days"),
        ("l'anno scorso", "year", "last_30_days"),
        ("the past 24 hours", "day", "last_24_hours"),
        ("die letzten drei Tage", "week", "last_7_days"),
    ],
)
def test_the_window_offered_covers_the_span(question, time_range, period):
    guide = ArgumentGuide.for_context([{"role": "user", "content": f"what's on {question}?"}])
    searching, summing = (
        guide.narrow(web_search.ARGUMENTS_SCHEMA),
        guide.narrow(pihole.ARGUMENTS_SCHEMA),
    )
    search = searching["properties"]["time_range"]["enum"]
    summary = summing["properties"]["period"]["enum"]
    assert search == [time_range] and summary == [period]
    assert summing["required"] == ["period"]  # it chooses what is counted: never left out
    assert "time_range" not in searching.get("required", [])  # it only hides results
    assert guide.span_days is not None
    covering = window_values(web_search.TIME_RANGE_DAYS, guide.span_days)
    assert web_search.TIME_RANGE_DAYS[covering[0]] >= guide.span_days  # never shorter


def test_a_window_stays_optional_when_the_question_names_a_scope_but_no_span():
    guide = ArgumentGuide.for_context([{"role": "user", "content": "blocked since Monday?"}])
    summing = guide.narrow(pihole.ARGUMENTS_SCHEMA)
    assert guide.span_days is None and "period" in summing["properties"]
    assert "period" not in summing.get("required", [])


SCOPED = [
    "What happened today?",
    "news from this morning",
    "the weather in Berlin tomorrow",
    "yesterday's match",
    "articles from the past year",
    "How many queries this week?",
    "totals for the last 30 days",
    "over the last month",
    "in the last 24 hours",
    "posts from the previous fortnight",
    "reviews from 3 days ago",
    "reviews from two weeks ago",
    "since Monday",
    "since 2024",
    "What changed in March?",
    "results from 2019",
    "this weekend's events",
    "during the coming week",
]
SCOPED_ELSEWHERE = [
    "Wie viele Anfragen gab es gestern?",
    "Was wurde vor zwei Wochen blockiert?",
    "Seit März?",
    "Combien de requêtes hier ?",
    "les publicités bloquées il y a 3 jours",
    "depuis mai",
    "¿Cuántos anuncios se bloquearon ayer?",
    "hace dos semanas",
    "desde 2024",
    "Hoeveel verzoeken waren er gisteren?",
    "drie dagen geleden",
    "sinds januari",
    "Quante richieste ieri?",
    "due settimane fa",
    "dal 2023",
    "Blocked on Monday?",
    "Qu'est-ce qu'il y a mercredi ?",
]
UNSCOPED_ELSEWHERE = [
    "Wie heiß ist das Gerät?",
    "Combien de mémoire est libre ?",
    "¿Cuántos dominios hay en la lista?",
    "Hoeveel schijfruimte is er nog?",
    "Quanta memoria è libera?",
    "Mai wieder ein Update?",  # a month's name alone
    "in 1000 Jahren",  # a number that is no year after an anchor
    "Est-ce en ordre ?",
]
UNSCOPED = [
    "the opening hours of the Louvre",
    "a recipe for vegan lasagna",
    "the latest news about the Raspberry Pi 5",
    "new firmware for my router",
    "the current price of Bitcoin",
    "Is the CPU busy right now?",
    "How many domains are on my blocklist?",
    "Framework Laptop 13 reviews",
    "What may happen if I reboot?",
    "a daily routine for my garden",
    "the 1000 best songs",
]


@pytest.mark.parametrize("text", SCOPED + SCOPED_ELSEWHERE)
def test_a_question_that_names_a_time_scope_in_any_catalog_language_is_time_scoped(text):
    assert names_time_scope(text)


@pytest.mark.parametrize("text", UNSCOPED + UNSCOPED_ELSEWHERE)
def test_latest_new_current_numbers_and_months_alone_name_no_time_scope(text):
    assert not names_time_scope(text)


@pytest.mark.parametrize(
    "question", [*WEEKEND, *SCOPED, *SCOPED_ELSEWHERE, *UNSCOPED_ELSEWHERE, *UNSCOPED]
)
def test_one_reading_gives_the_scope_and_the_span_the_two_questions_give(question):
    text = question if isinstance(question, str) else question[0]
    assert time_scope(text)[:2] == (names_time_scope(text), named_span_days(text))


def _catalog_spans(key):
    import json

    from sovereign.conversation.offer.time_spans import CATALOG

    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    return [
        (phrase, UNIT_DAYS[unit])
        for language, entry in catalog.items()
        if not language.startswith("_")
        for unit, phrases in entry[key].items()
        for phrase in phrases
    ]


@pytest.mark.parametrize(("phrase", "days"), _catalog_spans("spans"))
def test_every_span_that_holds_today_or_lies_behind_it_is_not_ahead(phrase, days):
    assert time_scope(f"what is on {phrase}?") == (True, days, False)


@pytest.mark.parametrize(("phrase", "days"), _catalog_spans("spans_ahead"))
def test_every_span_that_may_lie_ahead_is_ahead(phrase, days):
    assert time_scope(f"what is on {phrase}?") == (True, days, True)


@pytest.mark.parametrize(
    "question",
    [
        "news from the last 3 days",
        "die letzten zwei Wochen",
        "les 3 derniers jours",
        "las últimas 48 horas",
        "de afgelopen 2 maanden",
        "gli ultimi dieci giorni",
    ],
)
def test_a_counted_span_lies_behind_today(question):
    scope = time_scope(question)
    assert scope.named and scope.days and not scope.ahead


@pytest.mark.parametrize(
    "question",
    [
        "anything in the news about the strike in the last few days",
        "Was ist in den letzten Tagen in Leipzig passiert?",
        "quoi de neuf à Lyon ces derniers jours",
        "¿qué ha pasado en Sevilla los últimos días?",
        "wat is er de afgelopen dagen gebeurd in Den Haag",
        "cosa è successo a Torino negli ultimi giorni",
    ],
)
def test_a_few_days_behind_today_are_a_week_in_six_languages(question):
    assert time_scope(question) == (True, 7, False)


@pytest.mark.parametrize(
    "question",
    [
        "a film about the last days of Pompeii",
        "the last few days before Christmas are busy",
        "ein Buch über die letzten Tage von Pompeji",
        "in den letzten Tagen vor Weihnachten",
        "un livre sur les derniers jours de Pompéi",
        "una película sobre los últimos días de Pompeya",
        "een boek over de laatste dagen van Pompeii",
        "un film sugli ultimi giorni di Pompei",
    ],
)
def test_the_last_days_of_something_name_no_span(question):
    assert time_scope(question).days is None


def conversation(*questions):
    """User messages, each answered, the last one unanswered."""
    messages = []
    for question in questions[:-1]:
        messages += [{"role": "user", "content": question}, {"role": "assistant", "content": "…"}]
    return [*messages, {"role": "user", "content": questions[-1]}]


@pytest.mark.parametrize(
    ("language", "questions", "period"),
    [
        (
            "nl",
            ("hoeveel heeft pihole deze week geblokkeerd?", "hoeveel procent is dat van alles"),
            "last_7_days",
        ),
        (
            "en",
            ("How many ads did Pi-hole block this month?", "and what share is that?"),
            "last_30_days",
        ),
        (
            "es",
            ("¿Cuántos anuncios ha bloqueado el pihole esta semana?", "vale", "¿y el total?"),
            "last_7_days",
        ),
        # A question naming the family again goes on too.
        (
            "en",
            ("How many ads did Pi-hole block this week?", "and how many were blocked?"),
            "last_7_days",
        ),
    ],
)
def test_a_follow_up_naming_no_scope_goes_on_from_the_one_before(language, questions, period):
    scope = conversation_scope(list(questions), HOUSEHOLD, language)
    assert scope is not None
    guide = ArgumentGuide.for_context(conversation(*questions), followed=scope)
    summing = guide.narrow(pihole.ARGUMENTS_SCHEMA)
    assert summing["properties"]["period"]["enum"] == [period]
    assert "period" in summing["required"]
    # A search's window hides results by their date: it is never carried on.
    assert "time_range" not in guide.narrow(web_search.ARGUMENTS_SCHEMA)["properties"]


@pytest.mark.parametrize(
    "questions",
    [
        ("How many ads did Pi-hole block this week?", "how many today?"),  # its own
        ("How many ads did Pi-hole block this week?", "how hot is the device?"),
        ("How many ads did Pi-hole block this week?", "how hot is the box?", "and the ads?"),
        ("how many ads did pihole block?", "and the share?"),  # no scope anywhere
        ("what's on this week in Leeds?", "how many ads did Pi-hole block?"),
        ("and the share?",),
    ],
)
def test_a_question_with_its_own_scope_or_after_another_family_goes_on_from_none(questions):
    assert conversation_scope(list(questions), HOUSEHOLD, "en") is None
    guide = ArgumentGuide.for_context(conversation(*questions))
    assert guide.followed is None
