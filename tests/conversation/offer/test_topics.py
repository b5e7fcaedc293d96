"""The facts a question names in their words are the facts said (offer.subjects'
asked_topics, conversation_topics and topics_to_state; the turn loop's adopt)."""

from __future__ import annotations

import pytest

from sovereign.capabilities import pihole, system
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.offer.subjects import (
    asked_topics,
    conversation_topics,
    topics_to_state,
)
from sovereign.conversation.voice.words import letters
from sovereign.executor import FactSheet, read_topic_words

from ..conftest import ON
from ..test_named_read import household, turn
from ..test_stand_ins import loop_for
from .test_subjects import HOUSEHOLD, LANGUAGES

SHEETS = {"system": system.FACTS, "pihole": pihole.FACTS}


@pytest.mark.parametrize(
    ("sheet", "language", "question", "asked"),
    [
        ("system", "nl", "hoeveel gb heb je nog vrij op je schijf?", ("disk",)),
        ("system", "nl", "hoe zwaar word je nu belast?", ("load",)),
        ("system", "en", "ok and the disk?", ("disk",)),
        ("system", "en", "when did it last restart?", ("uptime",)),  # no German "Last"
        ("system", "de", "Wie viel Platz ist auf der Platte noch?", ("disk",)),
        ("system", "de", "Wie viel Festplattenplatz ist frei?", ("disk",)),  # a compound
        ("system", "de", "Wie hoch ist die CPU-Auslastung?", ("load",)),
        ("system", "fr", "le processeur du boitier est a la peine ou pas", ("load",)),
        ("system", "es", "¿el procesador va muy justo?", ("load",)),
        ("system", "it", "il processore del server arranca?", ("load",)),
        # An abbreviation matches its letters or its plural, never a stem: "rame" lags.
        ("system", "fr", "le serveur est sollicité ? tout rame sur la télé", ("load",)),
        ("system", "it", "il server è lento? il cavo di rame è nuovo", ()),
        ("system", "en", "how much RAM is free?", ("memory",)),
        ("system", "en", "are the SSDs full?", ("disk",)),
        # The processor names its load beside its heat: a question naming it and its heat
        # may ask how busy it is in words no list holds, and a fact too many is said
        # rather than the one asked lost.
        ("system", "nl", "Hoe warm is je processor?", ("temperature", "load")),
        ("system", "de", "Wie warm ist der Prozessor gerade?", ("temperature", "load")),
        ("system", "fr", "t'es à combien de degrés là ?", ("temperature",)),
        ("system", "es", "¿vas justo de memoria o qué?", ("memory",)),
        ("system", "it", "quanto spazio resta sul disco?", ("disk",)),
        ("system", "en", "Is the server alright?", ()),  # a general check
        ("system", "de", "Ist der Speicher voll?", ()),  # memory or storage: not said
        ("pihole", "fr", "y a combien de sites dans la liste noire ?", ("blocklist",)),
        ("pihole", "en", "How many ads were blocked today?", ("blocked",)),
        ("pihole", "de", "Wie viel Prozent der Anfragen wurden blockiert?", ("queries", "blocked")),
        ("pihole", "en", "whats the block rate this week?", ("blocked",)),  # a share
        ("pihole", "nl", "en hoeveel procent wordt er tegengehouden?", ("blocked",)),
        ("pihole", "fr", "c'est quoi le taux de blocage cette semaine ?", ("blocked",)),
        ("pihole", "es", "¿qué tasa de bloqueo tiene el pihole hoy?", ("blocked",)),
        ("pihole", "it", "qual è il tasso di blocco di oggi?", ("blocked",)),
        ("pihole", "de", "welchen Anteil filtert der Pi-hole raus?", ("blocked",)),
        ("pihole", "en", "what fraction of lookups get stopped?", ("queries", "blocked")),
        ("pihole", "es", "¿Está activado el bloqueador?", ("status",)),
        ("pihole", "nl", "Hoeveel opvragingen zijn door de pihole gegaan?", ("queries",)),
        # Whether it still works is its status, in every language's words.
        ("pihole", "en", "is the ad blocker still working?", ("status",)),
        ("pihole", "de", "Läuft der Pi-hole noch?", ("status",)),
        ("pihole", "fr", "le pihole fonctionne toujours ?", ("status",)),
        ("pihole", "es", "¿sigue funcionando el pihole?", ("status",)),
        ("pihole", "nl", "werkt de pihole nog?", ("status",)),
        ("pihole", "it", "il pihole funziona ancora?", ("status",)),
        # Refused is blocked, in every language's words.
        ("pihole", "en", "how many lookups did the pihole refuse?", ("queries", "blocked")),
        ("pihole", "de", "Wie viele Anfragen hat der Pi-hole abgelehnt?", ("queries", "blocked")),
        ("pihole", "es", "¿cuántas consultas ha rechazado el pihole?", ("queries", "blocked")),
        ("pihole", "it", "quante richieste ha rifiutato il pihole?", ("queries", "blocked")),
        ("pihole", "nl", "en deze week?", ()),
        # the ad blocker's only list is its blocklist
        ("pihole", "en", "and how many sites are on the list?", ("blocklist",)),
        ("pihole", "de", "wie viele Domains stehen auf der Liste?", ("blocklist",)),
        ("pihole", "es", "¿cuántos dominios hay en su lista?", ("blocklist",)),
        ("pihole", "nl", "hoeveel sites staan er op de lijst?", ("blocklist",)),
        ("pihole", "it", "quanti siti ci sono nell'elenco?", ("blocklist",)),
        ("pihole", "en", "can you list what was stopped today?", ("blocked",)),  # a verb
        # the queries blocked, in the words households use for catching them
        ("pihole", "nl", "Pihole: hoeveel rotzooi is er de laatste 7 dagen weggevangen?",
         ("blocked",)),
        ("pihole", "fr", "combien de pubs interceptées cette semaine ?", ("blocked",)),
        ("pihole", "de", "Wie viel hat der Pi-hole heute abgeblockt?", ("blocked",)),
        ("pihole", "es", "¿cuántos anuncios ha frenado esta semana?", ("blocked",)),
        ("pihole", "en", "how many trackers got intercepted today?", ("blocked",)),
        ("pihole", "it", "quanta roba ha fatto fuori il pihole oggi?", ("blocked",)),
        ("pihole", "en", "how many did the pihole kill today?", ("blocked",)),
        ("pihole", "nl", "hoeveel heeft de pihole vandaag geweerd?", ("blocked",)),
        ("pihole", "fr", "combien de pubs éliminées aujourd'hui ?", ("blocked",)),
        # a verb's other tenses than the participles listed
        ("pihole", "es", "ok. ¿y cuántas bloqueó en los últimos 30 días?", ("blocked",)),
        ("pihole", "es", "¿cuántas bloquea el pihole al día?", ("blocked",)),
        ("pihole", "nl", "hoeveel blokkeert de pihole per dag?", ("blocked",)),
        ("pihole", "en", "how long is the blocklist?", ("blocklist",)),  # no other form
        # domains are counted on the list; queries are what is blocked
        ("pihole", "en", "how many domains has the ad blocker got on its naughty list?",
         ("blocklist",)),
        ("pihole", "fr", "combien de domaines dans le pihole ?", ("blocklist",)),
        # room for what is kept is the disk's; a room of the home is no topic of the device
        ("system", "en", "Am I about to run out of room for files on the box?", ("disk",)),
        ("system", "en", "is there any room left on the server?", ("disk",)),
        ("system", "en", "the box is out of room, isn't it?", ("disk",)),
        ("system", "en", "is the server in the spare room still ok?", ()),
        # a blocker that stopped is its status, not the queries it blocked
        ("pihole", "nl", "is de pihole gestopt?", ()),
        ("pihole", "de", "ist der Pi-hole gestoppt?", ()),
    ],
)
def test_a_question_names_the_facts_in_their_words(sheet, language, question, asked):
    assert asked_topics(question, SHEETS[sheet], language) == asked


def test_the_named_facts_narrow_the_models_choice_or_join_it():
    sheet = system.FACTS
    assert topics_to_state(("memory", "disk"), ("disk",), sheet) == ("disk",)
    assert topics_to_state(("memory",), ("disk",), sheet) == ("memory", "disk")  # both said
    assert topics_to_state((), ("disk",), sheet) == ("disk",)  # a general check narrowed
    assert topics_to_state(("memory",), (), sheet) == ("memory",)  # named none: the model's
    assert topics_to_state((), (), sheet) == ()


def test_a_fact_another_fact_s_sentence_states_is_left_to_that_one():
    # "Pi-hole blocked 3,465 of 7,497 DNS queries" holds the total of all queries.
    sheet = pihole.FACTS
    asked = asked_topics("quante richieste ha fatto fuori?", sheet, "it")
    assert asked == ("queries", "blocked")
    assert topics_to_state(("queries",), asked, sheet) == ("blocked",)
    assert topics_to_state(("queries", "blocked"), (), sheet) == ("blocked",)
    assert topics_to_state(("queries", "blocklist"), (), sheet) == ("queries", "blocklist")
    assert topics_to_state(("status", "blocked"), (), sheet) == ("status", "blocked")
    # the device's facts share no fields: each stays
    every = tuple(t.name for t in system.FACTS.topics)
    assert topics_to_state(every, (), system.FACTS) == every


def test_a_follow_up_naming_no_family_goes_on_from_the_question_before():
    sheet = pihole.FACTS
    asked = conversation_topics(
        ["How many ads were blocked today?", "en deze week?"], sheet, HOUSEHOLD, "nl"
    )
    assert asked == ("blocked",)
    # A new question naming a family but no fact is a general one: nothing carried over.
    again = ["How many ads were blocked today?", "How is the ad blocker doing?"]
    assert conversation_topics(again, sheet, HOUSEHOLD, "en") == ()
    assert conversation_topics(["en deze week?"], sheet, HOUSEHOLD, "nl") == ()


@pytest.mark.parametrize(
    ("earlier", "question", "language", "chosen", "asked"),
    [
        # asks something of its own the sheet's words miss: the model's choice stands
        ("Wie warm wird eigentlich die CPU vom Server?", "ok. und wie lang läuft er schon am "
         "Stück?", "de", ("uptime",), ()),
        # the same fact again, for another time: carried over, whatever the model chose
        ("How many ads were blocked today?", "en deze week?", "nl", ("queries",), ("blocked",)),
        ("Wie warm wird die CPU?", "und gestern?", "de", ("uptime",), ("temperature", "load")),
        # the model chose what the one before named, or nothing: carried over
        ("Wie warm wird die CPU?", "und jetzt?", "de", ("temperature",), ("temperature", "load")),
        ("Wie warm wird die CPU?", "und jetzt?", "de", (), ("temperature", "load")),
    ],
)  # fmt: skip
def test_a_follow_up_of_its_own_keeps_the_models_choice(earlier, question, language, chosen, asked):
    sheet = system.FACTS if "CPU" in earlier else pihole.FACTS
    found = conversation_topics([earlier, question], sheet, HOUSEHOLD, language, chosen)
    assert found == asked


@pytest.mark.parametrize("name", ["system", "pihole"])
def test_every_topic_lists_words_in_the_six_languages_without_repeats(name):
    sheet = SHEETS[name]
    assert set(sheet.asked_by) == {topic.name for topic in sheet.topics}
    for topic, languages in sheet.asked_by.items():
        assert set(languages) == set(LANGUAGES), topic
        for language, phrases in languages.items():
            spelled = [" ".join(letters(w) for w in p.split()) for p in phrases]
            assert len(spelled) == len(set(spelled)), (topic, language)


@pytest.mark.parametrize("name", ["system", "pihole"])
def test_every_listed_word_names_its_topic(name):
    sheet = SHEETS[name]
    for topic, languages in sheet.asked_by.items():
        for language, phrases in languages.items():
            for phrase in phrases:
                assert topic in asked_topics(f"— {phrase} —", sheet, language), (phrase, language)


def test_every_abbreviation_is_matched_by_its_letters_alone():
    from sovereign.conversation.voice.words import stem

    found = 0
    for sheet in SHEETS.values():
        for lists in (sheet.asked_by,):
            for topic, languages in lists.items():
                for language, phrases in languages.items():
                    for phrase in phrases:
                        if not phrase.isupper():
                            continue
                        found += 1
                        inflected = phrase.lower() + "e"  # stems as the word in French
                        if stem(inflected, language) == stem(phrase.lower(), language):
                            question = f"— {inflected} —"
                            assert topic not in asked_topics(question, sheet, language), phrase
    assert found >= 12  # RAM, CPU, SSD in six languages at least


def test_words_for_a_topic_the_sheet_lacks_are_refused(tmp_path):
    path = tmp_path / "topics.json"
    path.write_text('{"_about": "x", "battery": {"en": ["battery"]}}', encoding="utf-8")
    with pytest.raises(ValueError, match="battery"):
        FactSheet(
            kinds=system.FACTS.kinds,
            topics=system.FACTS.topics,
            summary=system.FACTS.summary,
            catalog=system.FACTS.catalog,
            domain="system",
            asked_by=read_topic_words(path),
        )
    path.write_text('{"disk": ["disk"]}', encoding="utf-8")
    with pytest.raises(ValueError, match="disk"):
        read_topic_words(path)


async def test_the_fact_the_question_names_is_said_though_the_model_chose_another(tmp_path):
    question = "hoeveel gb heb je nog vrij op je schijf? wil de vakantiefotos erop zetten"
    script = [propose("system_health", {"facts": ["memory"], "also_asked": "nothing_else"})]
    result, _ = await turn(question, script, tmp_path)
    assert "41,2" in result.text  # the free disk, in Dutch
    (facts,) = result.facts
    assert "41,2" in str(facts)  # the facts panel says what the sentences say


async def test_the_model_choice_is_narrowed_to_the_fact_named(tmp_path):
    question = "ok and the disk?"
    script = [propose("system_health", {"facts": ["memory", "disk"], "also_asked": "nothing_else"})]
    result, _ = await turn(question, script, tmp_path)
    assert "41.2" in result.text and "5.3" not in result.text  # the disk, not the memory


async def test_a_follow_up_of_its_own_is_told_the_fact_the_model_chose(tmp_path):
    filled = propose("system_health", {"facts": ["uptime"], "also_asked": "nothing_else"})
    loop, _, _ = loop_for(household(), [filled, "unused"], tmp_path)
    messages = [
        {"role": "user", "content": "Wie warm wird eigentlich die CPU vom Server?"},
        {"role": "assistant", "content": "Sie ist im normalen Bereich."},
        {"role": "user", "content": "ok. und wie lang läuft er schon am Stück?"},
    ]
    result = await loop.process_turn(messages, policy=ON, owner="o")
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert "Temperatur" not in result.text and "0,42" not in result.text  # not the CPU's
    assert "Stunden" in result.text or "Tag" in result.text, result.text  # the uptime
