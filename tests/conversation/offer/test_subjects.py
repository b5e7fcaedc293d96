"""The household family a question names by its words is the only one offered
(sovereign.conversation.offer.subjects; docs/decisions/offered-tools-and-arguments.md,
"The family a question names")."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from sovereign.capabilities import home_assistant_facts, pihole, system
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.offer import subjects
from sovereign.conversation.offer.subjects import family_offered, named_families, names_subject
from sovereign.conversation.voice.words import letters, stem
from sovereign.executor import Locality

from ..conftest import OFF, ON
from ..test_answers_from_what_ran import capability, registry_of
from ..test_stand_ins import loop_for

FAMILIES = {
    "system": system.PHRASES.subjects,
    "pihole": pihole.PHRASES.subjects,
    "home_assistant": home_assistant_facts.PHRASES.subjects,
}
PLACES = {"home_assistant": home_assistant_facts.PHRASES.places}
OTHERS = {"system": system.PHRASES.others}
LANGUAGES = ("en", "de", "fr", "es", "nl", "it")


HOUSEHOLD = [
    SimpleNamespace(phrases=p)
    for p in (system.PHRASES, pihole.PHRASES, home_assistant_facts.PHRASES)
]
"""The three household families as the turn loop reads them (a capability's phrases)."""


def named(question: str, language: str) -> set[str]:
    """The families ``question`` names (:func:`named_families`, the product's rule)."""
    return set(named_families(question, HOUSEHOLD, language))


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        ("en", "how much RAM is free right now", {"system"}),
        ("en", "Is everything alright with the little server?", {"system"}),
        ("en", "and the disk?", {"system"}),
        ("en", "Are trackers being stopped?", {"pihole"}),
        ("en", "What's the kitchen temperature?", {"home_assistant"}),
        ("en", "Did I leave the lights on in the living room?", {"home_assistant"}),
        ("de", "Wie warm ist das Gerät gerade?", {"system"}),
        ("de", "Wie ist die CPU-Last?", {"system"}),  # a part of a hyphenated word
        ("de", "Wie viel Festplattenplatz ist noch frei?", {"system"}),  # a compound
        ("de", "Wie hoch ist die Prozessortemperatur?", {"system"}),
        ("de", "Ist das Küchenlicht noch an?", {"home_assistant"}),
        ("de", "Wie viel Werbung wurde heute blockiert?", {"pihole"}),
        ("fr", "Quelle est la charge du processeur ?", {"system"}),
        ("fr", "Est-ce que les lumières du salon sont allumées ?", {"home_assistant"}),
        ("fr", "La porte d'entrée est-elle verrouillée ?", {"home_assistant"}),
        ("fr", "Combien de pubs ont été bloquées aujourd'hui ?", {"pihole"}),
        ("es", "¿Cuánta memoria libre queda?", {"system"}),
        ("es", "¿Cuántos anuncios se bloquearon hoy?", {"pihole"}),
        ("es", "¿Está cerrada la puerta trasera?", {"home_assistant"}),
        ("nl", "Hoeveel werkgeheugen is er nog vrij?", {"system"}),
        ("nl", "Zit de voordeur op slot?", {"home_assistant"}),
        ("nl", "Hoeveel advertenties zijn er vandaag geblokkeerd?", {"pihole"}),
        ("it", "Da quanto tempo è acceso il server?", {"system"}),
        ("it", "Che temperatura c'è in camera da letto?", {"home_assistant"}),
        ("it", "Quanta pubblicità è stata bloccata oggi?", {"pihole"}),
        # Two families: both stay.
        ("en", "How many ads did the server block today?", {"system", "pihole"}),
        # A place names the home only when nothing else is named: where the box stands
        # is not what is asked about it.
        ("en", "Is the server room warm?", {"system"}),
        ("en", "the box under the stairs keeps beeping, is it ok", {"system"}),
        ("de", "Der Server im Keller ist ganz heiß, alles gut?", {"system"}),
        ("fr", "Le boîtier dans le placard chauffe beaucoup, c'est normal ?", {"system"}),
        ("es", "¿El servidor del trastero va bien de memoria?", {"system"}),
        ("nl", "Wordt het servertje op zolder niet te warm?", {"system"}),
        ("it", "Il computerino in soffitta ha ancora spazio su disco?", {"system"}),
        # "small computer" in every inflection names the device; "computer" alone does not.
        ("de", "Warum ist der kleine Rechner im Flur heute so lahm?", {"system"}),
        ("de", "Ist es dem kleinen Rechner im Keller zu warm?", {"system"}),
        ("de", "Hat unser kleiner Rechner noch Platz?", {"system"}),
        ("de", "Mein Rechner ist so langsam", set()),
        ("en", "is the small computer in the hall ok?", {"system"}),
        ("en", "my computer is slow", set()),
        ("en", "How many ads were blocked in the kitchen?", {"pihole"}),
        # Another device of the household's shares the device's words, not its family.
        ("en", "my phone keeps saying storage full, what can I delete", set()),
        ("de", "Mein Laptop ist so langsam und der Lüfter dreht durch", set()),
        ("fr", "mon ordinateur portable chauffe, il faut changer le ventilateur ?", set()),
        ("es", "mi disco duro externo va lentísimo, ¿se está muriendo?", set()),
        ("nl", "mijn telefoon zegt dat het geheugen vol is", set()),
        ("it", "il cellulare di mio figlio ha la memoria piena", set()),
        ("en", "how warm is the hallway", {"home_assistant"}),
        ("nl", "Hoe warm is het in de meterkast?", {"home_assistant"}),
        ("it", "Fa caldo in soffitta?", {"home_assistant"}),
        # The floors of a home, its attic and its boiler, in every language.
        ("en", "is it cold upstairs?", {"home_assistant"}),
        ("de", "Ist es im Erdgeschoss warm genug?", {"home_assistant"}),
        ("fr", "la chaudière est toujours allumée ?", {"home_assistant"}),
        ("es", "¿hace frío en la buhardilla?", {"home_assistant"}),
        ("nl", "staat de cv-ketel nog aan?", {"home_assistant"}),
        ("it", "in mansarda fa freddo?", {"home_assistant"}),
        ("de", "Wann hat die Therme in Erding offen?", set()),  # a spa, not a boiler
        # None: nothing is narrowed.
        ("en", "And outside?", set()),
        ("en", "What is the capital of Peru?", set()),
        ("en", "What happened in Berlin last week?", set()),  # German "Last" is not listed
        ("en", "Which port does it use?", set()),  # Italian "porta" stems only in Italian
        ("de", "Wie ist das Wetter morgen in Köln?", set()),
        # The words of an address are not the question's.
        ("en", "What does http://www.bakewell-kitchen.example/ovens say?", set()),
        # A short subject is never found inside another word.
        ("en", "Is the tram running?", set()),
        ("de", "Ist die Natur im Garten schön?", {"home_assistant"}),  # Garten, not "tür"
        ("en", "Where can I download the programme?", set()),
        # "Raspberry" after an article names the device where the fruit is another word;
        # alone it is the English fruit, in any language's question.
        ("fr", "le raspberry a planté cette nuit ?", {"system"}),
        ("nl", "hoe heet wordt de raspberry eigenlijk?", {"system"}),
        ("de", "läuft der Raspberry noch?", {"system"}),
        ("de", "Ist es meinem Raspberry zu warm?", {"system"}),
        ("es", "¿el raspberry va lento?", {"system"}),
        ("it", "il raspberry è acceso da quanto?", {"system"}),
        ("en", "how many raspberries go in a pavlova?", set()),
        ("en", "is the raspberry jam ready?", set()),
        ("fr", "une recette de tarte aux framboises avec du sucre ?", set()),
    ],
)
def test_a_question_names_the_families_whose_words_it_holds(language, question, families):
    assert named(question, language) == families


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_listed_subject_names_its_family_and_no_other(family, language):
    phrases = FAMILIES[family][language]
    assert len(phrases) >= 10
    for phrase in phrases:
        assert names_subject(f"— {phrase} —", FAMILIES[family], language), phrase
        others = {name for name in named(phrase, language) if name != family}
        assert not others, f"{phrase!r} also names {others}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_listed_place_names_the_home_alone_and_gives_way_to_a_subject(language):
    places = PLACES["home_assistant"][language]
    assert len(places) >= 10
    for place in places:
        assert named(f"— {place} —", language) == {"home_assistant"}, place
        assert named(f"the server in the {place}", language) == {"system"}, place


@pytest.mark.parametrize(
    ("family", "lists"), [(f, FAMILIES) for f in sorted(FAMILIES)] + [("home_assistant", PLACES)]
)
def test_each_family_lists_the_six_languages_without_repeats(family, lists):
    subjects = lists[family]
    assert set(subjects) == set(LANGUAGES)
    for language, phrases in subjects.items():
        spelled = [letters(p) for p in phrases]
        assert len(spelled) == len(set(spelled)), language


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_other_thing_takes_the_device_s_words_away(language):
    for other in OTHERS["system"][language]:
        assert "system" not in named(f"— {other} — memory disk cpu", language), other
        assert named(f"— {other} —", language) == set(), other  # nor a place


def test_a_place_is_never_also_a_subject():
    for language in LANGUAGES:
        things = {letters(p) for p in FAMILIES["home_assistant"][language]}
        assert not things & {letters(p) for p in PLACES["home_assistant"][language]}


def test_an_inflected_form_counts_only_in_the_questions_language():
    # "ampoules" is the plural of a listed French word: found by its stem in French only.
    assert "ampoules" not in FAMILIES["home_assistant"]["fr"]
    assert stem("ampoules", "fr") == stem("ampoule", "fr")
    assert named("Les ampoules sont allumées ?", "fr") == {"home_assistant"}
    assert named("Les ampoules sont allumées ?", "en") == set()


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        # A word another language lists is a function word here: it names nothing.
        ("nl", "Hoeveel opvragingen zijn er door de pihole gegaan?", {"pihole"}),
        ("nl", "Hoe kom ik door de winter zonder kou te vatten?", set()),
        ("it", "ho dato un'occhiata ad alcune ricette", set()),
        # The same words as the question's own language, or as a whole phrase, still do.
        ("en", "did anyone lock the door?", {"home_assistant"}),
        ("nl", "is de voordeur op slot?", {"home_assistant"}),
        ("it", "quante pubblicità ha fermato l'ad blocker?", {"pihole"}),
    ],
)
def test_a_stop_word_of_the_question_s_language_names_nothing(language, question, families):
    assert named(question, language) == families


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_no_one_word_subject_of_another_language_names_a_family_as_a_stop_word(family):
    from sovereign.conversation.voice.words import stop_words, words

    for listed_in, phrases in FAMILIES[family].items():
        for phrase in phrases:
            if len(list(words(phrase))) != 1:
                continue
            for language in LANGUAGES:
                if language != listed_in and letters(phrase) in stop_words(language):
                    assert family not in named(f"— {phrase} —", language), (phrase, language)


def test_a_tool_without_a_family_is_always_offered():
    assert family_offered(frozenset({"system"}), None)
    assert family_offered(frozenset(), "pihole")
    assert family_offered(frozenset({"pihole"}), "pihole")
    assert not family_offered(frozenset({"system"}), "pihole")


def household(*, home_assistant: bool):
    return registry_of(
        capability("system.health"),
        capability("pihole.summary", available=lambda: False),
        capability("home_assistant.get_state", available=lambda: home_assistant),
        capability("home_assistant.list_entities", available=lambda: home_assistant),
        capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL),
        capability("web.fetch", policy_key="external_enabled", locality=Locality.EXTERNAL),
    )


async def offered(question, tmp_path, *, home_assistant=False, policy=ON, history=()):
    loop, backend, _ = loop_for(
        household(home_assistant=home_assistant), [ModelReply(), "Done."], tmp_path
    )
    messages = [*history, {"role": "user", "content": question}]
    await loop.process_turn(messages, policy=policy, owner="o")
    return [t["function"]["name"] for t in backend.requests[0].tools]


READS = {"system_health", "web_search", "change_something", "general_knowledge"}
"""What can run, and the choices that stand for no family: offered whatever is named."""


async def test_a_device_question_is_offered_no_stand_in_of_another_family(tmp_path):
    names = await offered("Quelle est la charge du processeur ?", tmp_path)
    assert set(names) >= READS
    assert "smart_home_not_set_up" not in names and "pihole_not_set_up" not in names


async def test_a_room_question_keeps_the_smart_home_stand_in_and_every_read(tmp_path):
    names = await offered("How warm is it in the living room?", tmp_path)
    assert READS | {"smart_home_not_set_up"} <= set(names)
    assert "pihole_not_set_up" not in names
    configured = await offered("Is the bedroom warm?", tmp_path, home_assistant=True)
    assert {"home_assistant_get_state", "system_health"} <= set(configured)


async def test_a_follow_up_is_narrowed_by_its_own_words(tmp_path):
    history = [
        {"role": "user", "content": "How many ads were blocked today?"},
        {"role": "assistant", "content": "Pi-hole is not set up on this device."},
    ]
    names = await offered("and the disk?", tmp_path, history=history)
    assert "system_health" in names and "pihole_not_set_up" not in names


async def test_a_question_naming_no_family_or_two_keeps_their_stand_ins(tmp_path):
    names = await offered("What's the weather in Leeds tomorrow?", tmp_path, policy=OFF)
    assert {"system_health", "pihole_not_set_up", "smart_home_not_set_up"} <= set(names)
    both = await offered("How many ads did the server block today?", tmp_path, policy=OFF)
    assert {"system_health", "pihole_not_set_up"} <= set(both)
    assert "smart_home_not_set_up" not in both
    # a place in the home gives way to what is asked about: the ad blocker
    placed = await offered("How many ads were blocked in the kitchen?", tmp_path, policy=OFF)
    assert "pihole_not_set_up" in placed and "smart_home_not_set_up" not in placed


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        # A compound of a family's own words, or of them and an aspect, names it.
        ("de", "Wie hoch ist die Speicherauslastung?", {"system"}),
        ("de", "Wie ist die Arbeitsspeichernutzung gerade?", {"system"}),
        ("de", "Wie hoch ist die Gerätetemperatur?", {"system"}),
        ("de", "Ist die Serverauslastung normal?", {"system"}),
        ("de", "Wie schnell ist die Lüfterdrehzahl?", {"system"}),
        ("de", "Wie viel Festplattenspeicher ist belegt?", {"system"}),
        ("nl", "Hoe hoog is de processorbelasting?", {"system"}),
        ("nl", "Wat is het geheugengebruik nu?", {"system"}),
        ("nl", "Hoeveel schijfgebruik is er?", {"system"}),
        ("nl", "Hoe snel draait het, de ventilatorsnelheid?", {"system"}),
        ("de", "Sind die Wohnzimmerlampen noch an?", {"home_assistant"}),
        ("de", "Ist das Schlafzimmerfenster zu?", {"home_assistant"}),
        ("de", "Was zeigt das Heizungsthermostat?", {"home_assistant"}),
        ("de", "Wie kalt ist die Kühlschranktemperatur?", {"home_assistant"}),
        ("de", "Wie warm ist die Wohnzimmertemperatur?", {"home_assistant"}),  # a place's
        ("nl", "Brandt de keukenlamp nog?", {"home_assistant"}),
        ("nl", "Staan de woonkamerlampen aan?", {"home_assistant"}),
        ("nl", "Is de garagedeur dicht?", {"home_assistant"}),
        ("nl", "Staat de badkamerverwarming aan?", {"home_assistant"}),
        # A family's compound parts name it only inside a compound of its words.
        ("de", "Wie viel hat der Werbefilter heute geschluckt?", {"pihole"}),
        ("de", "Ist die Trackerliste aktuell?", {"pihole"}),
        ("nl", "Hoeveel houdt de reclamefilter tegen?", {"pihole"}),
        ("nl", "Werkt de advertentieblokker nog?", {"pihole"}),
        ("de", "Welcher Kaffeefilter passt in die Maschine?", set()),
        ("de", "Schreib Milch auf die Einkaufsliste", set()),
        ("de", "Wo kaufe ich einen neuen Filter?", set()),
        ("nl", "Zet melk op de boodschappenlijst", set()),
        ("nl", "Moet het waterfilter vervangen worden?", set()),
        # A place of the home, listed with its own name.
        ("de", "Ist es in der Waschküche warm genug?", {"home_assistant"}),
        ("nl", "Is het warm in de logeerkamer?", {"home_assistant"}),
        # Its other part no family holds: another thing with the same last word.
        ("de", "Wann wird der Briefkasten geleert?", set()),
        ("de", "Im Sicherungskasten ist eine Sicherung rausgeflogen", set()),
        ("de", "Die Herdplatte wird nicht mehr heiß", set()),
        ("de", "Lohnt sich ein Stromspeicher für die Solaranlage?", set()),
        ("de", "Welches Küchengerät brauche ich für Smoothies?", set()),
        ("de", "Wohin mit der leeren Bierkiste?", set()),
        ("de", "Wie reinige ich eine Tischplatte aus Eiche?", set()),
        ("de", "Mein Plattenspieler rauscht", set()),
        ("de", "Ist ein Speicherofen teuer im Betrieb?", set()),
        ("de", "Wie lang ist die Akkulaufzeit von dem Handy?", set()),
        ("de", "Wie lange ist die Vertragslaufzeit?", set()),
        ("de", "Muss ich die Apfelkerne entfernen?", set()),
        ("de", "Ist der Mailserver von meinem Anbieter gestört?", set()),
        ("de", "Der Badlüfter ist so laut", set()),  # a place and the device's word
        ("nl", "Wanneer moet ik mijn belasting betalen?", set()),
        ("nl", "Hoeveel inkomstenbelasting betaal ik?", set()),
        ("nl", "Wat ligt er in het nachtkastje?", set()),
        ("nl", "Welk fotoapparaat is goed voor beginners?", set()),
        ("nl", "Mijn scheerapparaat is kapot", set()),
        ("nl", "Is er plek in de fietsenopslag?", set()),
        ("nl", "Mijn kortetermijngeheugen is slecht", set()),
        ("nl", "Waar is het koekjesdoosje?", set()),
        # The internet router is another device of the household's.
        ("en", "Should I restart the router every week?", set()),
        ("de", "Muss ich die Fritzbox ab und zu neu starten?", set()),
        ("fr", "Faut-il redémarrer la box internet de temps en temps ?", set()),
        ("es", "¿Cada cuánto hay que reiniciar el router?", set()),
        ("nl", "Moet ik de router af en toe herstarten?", set()),
        ("it", "Il modem va riavviato ogni tanto?", set()),
        # Another thing of the household's, joined with the device's word.
        ("de", "Der Handyspeicher ist voll", set()),
        ("nl", "Het telefoongeheugen is vol", set()),
        # Other languages: the household's other boxes.
        ("en", "Where is the fuse box?", set()),
        ("en", "Has the post come, is there anything in the letterbox?", set()),
        ("fr", "Le facteur est-il passé, il y a du courrier dans la boîte aux lettres ?", set()),
        ("es", "¿Dónde está la caja de herramientas?", set()),
        ("it", "Dov'è la scatola degli attrezzi?", set()),
    ],
)
def test_a_compound_names_a_family_only_when_made_of_its_words(language, question, families):
    assert named(question, language) == families


@pytest.mark.parametrize("language", ["de", "nl"])
def test_an_aspect_alone_names_no_family(language):
    import json

    from sovereign.conversation.offer.subjects import COMPOUNDS

    aspects = json.loads(COMPOUNDS.read_text(encoding="utf-8"))[language]["aspects"]
    subjects = {letters(p) for family in FAMILIES.values() for p in family[language]}
    own = [aspect for aspect in aspects if letters(aspect) not in subjects]
    assert len(own) >= 10  # "Auslastung" is also the device's subject, so named by it
    for aspect in own:
        assert named(f"Wie ist die {aspect}?", language) == set(), aspect


ITSELF = system.PHRASES.itself
"""What the device's read serves, as a household asks the assistant about itself."""


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        # The assistant runs on the device: asked about itself, it is asked about the device.
        ("en", "are you running a bit hot today?", {"system"}),
        ("en", "How much room is left on you for music?", {"system"}),
        ("en", "you seem slow, is your memory full?", {"system"}),
        ("de", "Bist du heute überlastet?", {"system"}),
        ("de", "Hast du noch genug Platz für die Musik?", {"system"}),
        ("fr", "Tu n'as pas trop chaud aujourd'hui ?", {"system"}),
        ("fr", "Il te reste de l'espace pour mes photos ?", {"system"}),
        ("es", "¿Estás muy ocupado ahora mismo?", {"system"}),
        ("es", "¿Te queda espacio para la música?", {"system"}),
        ("nl", "Ben je erg traag vandaag?", {"system"}),
        ("nl", "Heb jij nog ruimte voor mijn foto's?", {"system"}),
        ("it", "Sei surriscaldato?", {"system"}),
        ("it", "Ti è rimasto spazio per la musica?", {"system"}),
        # How a person feels, asked of the assistant.
        ("de", "alles fit bei dir? nicht dass du wieder schlapp machst", {"system"}),
        ("en", "are you tired today?", {"system"}),
        ("fr", "t'es en forme ce matin ?", {"system"}),
        ("es", "¿Estás cansado hoy?", {"system"}),
        ("nl", "ben je moe vandaag?", {"system"}),
        ("it", "sei in forma oggi?", {"system"}),
        ("en", "I'm so tired today, what should I cook?", set()),  # the household's own
        # Spanish imperatives carry the address at their end.
        ("es", "oye, ¿qué tal te encuentras hoy? hazte un chequeo general, anda", {"system"}),
        ("es", "revísate la salud, porfa", {"system"}),
        ("es", "hazte un café y dime la capital de Chile", set()),
        # Where it stands is not what is asked about it.
        ("en", "are you warm enough in the hallway cupboard?", {"system"}),
        ("nl", "Word je niet te warm in de meterkast?", {"system"}),
        # A request is no question about the assistant itself.
        ("en", "Can you tell me how hot it gets in Lisbon in July?", set()),
        ("en", "could you remind me that the bin is full", set()),
        ("de", "Kannst du mir sagen, ob es morgen warm wird?", set()),
        ("fr", "Tu peux me dire s'il fera chaud demain ?", set()),
        ("es", "¿Te importaría decirme qué temperatura hará mañana?", set()),
        ("nl", "Kun je me zeggen hoe warm het morgen wordt?", set()),
        ("it", "Sei capace di dirmi se domani farà caldo?", set()),
        # Its words with no address, or an address with none of them, or far apart.
        ("en", "It's so hot today, what should I cook?", set()),
        ("en", "Are you a robot?", set()),
        ("en", "you know, my grandmother always said the attic gets warm", {"home_assistant"}),
        ("fr", "J'ai trop chaud, que faire ?", set()),  # French "je" is no address
        ("nl", "Wat doe je als het buiten heel erg warm wordt?", set()),
        # Another device of the household's keeps its words; another family's subject wins.
        ("en", "Is your phone full again?", set()),
        ("de", "Hast du heute viel Werbung blockiert?", {"pihole"}),
    ],
)
def test_the_assistant_asked_about_itself_names_the_device(language, question, families):
    assert named(question, language) == families


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_of_itself_names_the_device_beside_an_address_alone(language):
    address = {"en": "you", "de": "du", "fr": "tu", "es": "tú", "nl": "jij", "it": "tu"}[language]
    assert len(ITSELF[language]) >= 20
    for phrase in ITSELF[language]:
        assert named(f"{address} {phrase}", language) == {"system"}, phrase
        if not names_subject(phrase, FAMILIES["system"], language):
            alone = named(f"— {phrase} —", language)
            assert "system" not in alone, f"{phrase!r} names the device with no address"


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        # A thing pointed at, after an article or a demonstrative, beside a word of what
        # the device reads: the device, wherever it stands.
        ("nl", "Gaat alles goed met dat ding onder de trap?", {"system"}),
        ("es", "¿Al trasto ese le queda RAM o va con la lengua fuera?", {"system"}),
        ("fr", "Elle chauffe pas trop, la bécane dans le placard ?", {"system"}),
        ("de", "Ist das Ding im Flur schon wieder überlastet?", {"system"}),
        ("it", "Quel coso in cantina è surriscaldato?", {"system"}),
        ("en", "is that gadget under the stairs running hot again?", {"system"}),
        # After another word, or with no word of what the device reads, it names nothing.
        ("en", "what's a good thing to eat when it's hot?", set()),
        ("nl", "Waar heb ik dat ding neergelegd?", set()),
        ("de", "Wie heißt das Ding, mit dem man Eier trennt?", set()),
        ("es", "Ayer compré un trasto viejo en el Rastro", set()),
        # Another thing of the household's keeps its words.
        ("en", "is that thing on my phone full again?", set()),
    ],
)
def test_a_thing_pointed_at_beside_what_the_device_reads_names_the_device(
    language, question, families
):
    assert named(question, language) == families


POINTED = json.loads(
    (Path(subjects.__file__).parent / "pointed_things.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_thing_pointed_at_names_the_device_after_a_stop_word_alone(language):
    article = {"en": "the", "de": "das", "fr": "le", "es": "el", "nl": "het", "it": "il"}[language]
    hot = ITSELF[language][1]
    for word in POINTED[language]:
        assert named(f"{article} {word} {hot}", language) == {"system"}, word
        assert named(f"— {word} —", language) == set(), word


def test_itself_lists_the_six_languages_without_repeats():
    assert set(ITSELF) == set(LANGUAGES)
    for language, phrases in ITSELF.items():
        spelled = [letters(p) for p in phrases]
        assert len(spelled) == len(set(spelled)), language


LANDMARK_WORDS = json.loads(
    (Path(subjects.__file__).parent / "landmarks.json").read_text(encoding="utf-8")
)
BOX = {"en": "box", "de": "Kästchen", "fr": "boîtier", "es": "cajita", "nl": "kastje"}
BOX["it"] = "scatoletta"


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        ("en", "How long has the little box by the router been up without a restart?", {"system"}),
        ("en", "Is the box next to the router running hot?", {"system"}),
        ("de", "wie viel platz ist auf dem kästchen neben dem router noch frei", {"system"}),
        ("nl", "Is het kastje bij de tv nog een beetje fit, of wordt het overbelast?", {"system"}),
        ("fr", "Le boîtier à côté de la télé chauffe ?", {"system"}),
        ("es", "¿La cajita al lado de la tele tiene espacio?", {"system"}),
        ("it", "La scatoletta accanto alla tv è surriscaldata?", {"system"}),
        # the other thing is what is asked about: the place word comes first, or none
        ("de", "Bei meinem Handy ist der Speicher voll", set()),
        ("nl", "Bij mijn laptop is de schijf vol", set()),
        ("en", "My phone next to the box says storage full", set()),
        ("en", "Is there enough space on my phone?", set()),
        ("de", "Ist auf dem Handy neben dem Sofa noch Speicher frei?", set()),
        ("fr", "Il reste de la mémoire sur mon téléphone ?", set()),
    ],
)
def test_a_landmark_is_not_the_subject(language, question, families):
    assert named(question, language) == families


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_of_place_makes_every_other_thing_a_landmark_after_a_subject(language):
    for place in LANDMARK_WORDS[language]:
        for other in OTHERS["system"][language]:
            question = f"{BOX[language]} {place} {other}"
            assert named(question, language) == {"system"}, question
            assert named(f"{place} {other} {BOX[language]}", language) == set(), (place, other)


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        # What a thing pointed at stands by is where it is, not what is asked about.
        ("it", "il coso sopra al frigo è caldo?", {"system"}),
        ("en", "is the thing on top of the fridge running hot?", {"system"}),
        ("de", "Ist das Ding neben dem Kühlschrank heiß?", {"system"}),
        ("de", "Ist das Teil im Flurschrank heiß?", {"system"}),
        ("fr", "Le truc à côté du frigo chauffe ?", {"system"}),
        ("es", "¿El trasto encima de la nevera está caliente?", {"system"}),
        ("nl", "Is dat ding naast de koelkast warm?", {"system"}),
        ("en", "is that gadget next to my laptop running hot?", {"system"}),
        ("en", "is the gadget sitting next to the fridge running hot?", {"system"}),
        ("nl", "dat ding dat naast de koelkast staat, wordt dat niet te warm?", {"system"}),
        # Another thing it stands by leaves a sentence about it alone.
        ("en", "is the gadget by the router full? I'd put my laptop backups on it", {"system"}),
        ("de", "Ist das Ding neben dem Router voll? Die Fotos vom Handy drauf", {"system"}),
        # The thing's own subject, or a subject asked about after it, stays named.
        ("en", "Is the fridge too warm?", {"home_assistant"}),
        ("en", "The thing next to the fridge: is the kitchen light on?", {"home_assistant"}),
        ("it", "Il frigo sopra al coso è caldo?", {"home_assistant"}),
    ],
)
def test_what_a_thing_pointed_at_stands_by_is_no_subject(language, question, families):
    assert named(question, language) == families


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_of_place_after_a_thing_pointed_at_makes_a_subject_its_place(language):
    article = {"en": "the", "de": "das", "fr": "le", "es": "el", "nl": "het", "it": "il"}[language]
    hot = ITSELF[language][1]
    fridge = {"en": "fridge", "de": "Kühlschrank", "fr": "frigo", "es": "nevera"}
    fridge |= {"nl": "koelkast", "it": "frigo"}
    thing = POINTED[language][0]
    for place in LANDMARK_WORDS[language]:
        question = f"{article} {thing} {place} {fridge[language]} {hot}"
        assert named(question, language) == {"system"}, question


def test_landmarks_list_the_six_languages_without_repeats():
    assert set(LANDMARK_WORDS) - {"_about"} == set(LANGUAGES)
    for language in LANGUAGES:
        spelled = [letters(p) for p in LANDMARK_WORDS[language]]
        assert len(spelled) == len(set(spelled)), language


def test_a_driveway_is_no_disk():
    question = "can you write a note asking the neighbours to keep their bins off our drive?"
    assert named(question, "en") == set()
    assert named("Is the hard drive full?", "en") == {"system"}


NAMES = system.PHRASES.names


def test_the_device_s_names_are_its_subjects_in_the_six_languages():
    assert set(NAMES) == set(LANGUAGES)
    for language in LANGUAGES:
        subjects = {letters(p) for p in FAMILIES["system"][language]}
        assert {letters(p) for p in NAMES[language]} <= subjects, language


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        # A sentence naming the device itself (by its name, or by asking the assistant
        # about itself) and no other thing: the device is named.
        (
            "en",
            "are we running out of disk space on the server? "
            "I've been backing my laptop up to it all week",
            {"system"},
        ),
        ("de", "Mein Handy ist voll. Passt noch was auf den Server?", {"system"}),
        ("fr", "Mon portable est plein. Il reste de la place sur le serveur ?", {"system"}),
        ("es", "El móvil está lleno. ¿Queda sitio en el servidor?", {"system"}),
        ("nl", "Mijn telefoon zit vol.\nIs er nog ruimte op de server?", {"system"}),
        ("it", "Il telefono è pieno! C'è ancora spazio sul server?", {"system"}),
        # A part or a figure beside another thing stays that thing's.
        ("en", "My laptop is slow. Is the memory the problem?", set()),
        ("de", "Mein Laptop ist langsam. Liegt es am Arbeitsspeicher?", set()),
        ("es", "Mi móvil va lento. ¿Es por la memoria?", set()),
        # The device named as where another thing's data goes: the device is named.
        (
            "en",
            "my daughter wants to copy all her photos off her phone onto the server, "
            "is there space for that?",
            {"system"},
        ),
        (
            "de",
            "Passt auf die Kiste noch ein Backup vom Laptop? Wie viel Platz ist frei?",
            {"system"},
        ),
        ("de", "Geht sich auf der Kistn no a Backup vom Laptop aus?", {"system"}),
        (
            "fr",
            "Je veux copier les photos de mon téléphone sur le serveur, il reste de la place ?",
            {"system"},
        ),
        (
            "es",
            "Quiero pasar las fotos del móvil al servidor, ¿queda espacio en el disco?",
            {"system"},
        ),
        (
            "nl",
            "Ik wil de foto's van mijn telefoon op de server zetten, is er nog ruimte?",
            {"system"},
        ),
        ("it", "Voglio copiare le foto del telefono sul server, c'è ancora spazio?", {"system"}),
        # The device's name in the same sentence as another thing: that thing's.
        ("en", "My phone says the device storage is almost full", set()),
        ("en", "Is my laptop faster than the server?", set()),
        ("fr", "Mon téléphone dit que l'appareil n'a plus de stockage", set()),
        # The name inside another thing's own words is that thing's.
        ("en", "The set-top box is slow. What can I do?", set()),
        ("de", "Die Kiste Bier ist leer. Wo ist der Kasten Wasser?", set()),
        ("fr", "J'ai un appareil photo. Combien de stockage faut-il ?", set()),
        # A decimal point or an abbreviation is no end of a sentence.
        ("en", "My phone has 1.5 GB left, e.g.the server?", set()),
        # A sentence asking the assistant about itself, beside a sentence about another
        # thing: the device is named.
        (
            "nl",
            "Mijn man heeft gisteren aan de stekkers achter de tv gezeten. "
            "Ben jij toen ook uitgegaan? Hoeveel uur sta je nu aan?",
            {"system"},
        ),
        ("en", "The power went off last night and my laptop died. Did you crash too?", {"system"}),
        (
            "de",
            "Gestern war Stromausfall, mein Handy ist leer. Bist du auch ausgegangen?",
            {"system"},
        ),
        ("fr", "Ma tablette a redémarré cette nuit. Et toi, tu as planté ?", {"system"}),
        ("es", "El móvil se quedó sin batería anoche. ¿Tú te has colgado también?", {"system"}),
        ("it", "Il telefono si è spento stanotte. Tu ti sei impallato?", {"system"}),
        # A clause set apart by a spaced dash is a sentence of its own.
        (
            "de",
            "der alte drucker im arbeitszimmer glüht seit er läuft \u2013 wird unser kästchen im "
            "regal daneben dadurch auch so warm?",
            {"system"},
        ),
        ("en", "my laptop keeps freezing - is the little server struggling too?", {"system"}),
        ("en", "my laptop - the one with the full disk - keeps freezing", set()),
        # In the same sentence as the other thing, the question is that thing's.
        ("en", "Did my phone crash, or did you?", set()),
        ("de", "Ist mein Handy abgestürzt, weißt du das?", set()),
        # Switching the household's other things off is no question about itself.
        ("en", "did you turn off the oven?", set()),
        ("de", "hast du den Herd ausgeschaltet?", set()),
    ],
)
def test_a_sentence_naming_the_device_itself_names_it_beside_another_thing(
    language, question, families
):
    assert named(question, language) == families


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_name_of_the_device_names_it_in_a_sentence_of_its_own(language):
    for other in OTHERS["system"][language]:
        for name in NAMES[language]:
            question = f"{other}. {name}?"
            assert named(question, language) == {"system"}, question
            assert named(f"{other} {name}?", language) == set(), (other, name)


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "Is there room on my phone for a copy of the disk?"),
        ("de", "Hat mein Handy im Zimmer noch Speicher frei?"),
    ],
)
def test_a_place_names_no_family_where_another_thing_s_subject_is_named(language, question):
    # "room left on the drive" of his phone's videos named the home by "room".
    assert named(question, language) == set()


PLURALS = system.PHRASES.plurals


def test_the_device_s_plurals_list_the_six_languages_and_no_name_s_spelling():
    assert set(PLURALS) == set(LANGUAGES)
    names = {letters(n) for listed in NAMES.values() for n in listed}
    for language, phrases in PLURALS.items():
        assert not {letters(p) for p in phrases} & names, language


@pytest.mark.parametrize("language", LANGUAGES)
def test_many_of_the_device_s_things_are_the_household_s_not_the_device(language):
    # "unsere Geräte", "our devices": Snowball stems the plural as the device's name.
    for plural in PLURALS[language]:
        assert "system" not in named(f"— {plural} — memory disk cpu", language), plural
        assert named(f"— {plural} —", language) == set(), plural


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        ("en", "How many devices are online?", set()),
        ("en", "Is the device's memory full?", {"system"}),
        ("en", "My laptop and all our devices are slow. Is the server hot?", {"system"}),
        ("de", "Wie viele Geräte sind in unserem Netz?", set()),
        ("de", "Ist die Geräte-Temperatur in Ordnung?", {"system"}),
        ("de", "Ist die Gerätetemperatur in Ordnung?", {"system"}),
        ("fr", "Combien d'appareils sont connectés ?", set()),
        ("fr", "L'appareil chauffe ?", {"system"}),
        ("it", "Quanti apparecchi ci sono in casa?", set()),
        ("it", "L'apparecchio scalda?", {"system"}),
        ("nl", "Hoeveel apparaten zijn er online?", set()),
        ("es", "¿Cuántos dispositivos están conectados?", set()),
        ("es", "¿Está caliente el dispositivo?", {"system"}),
    ],
)
def test_a_plural_is_spelled_not_stemmed(language, question, families):
    assert named(question, language) == families


@pytest.mark.parametrize(
    ("language", "question", "families"),
    [
        # A verb form whose stem is a subject's names nothing by that stem.
        ("en", "Does the number 9 still run on Boxing Day?", set()),
        ("it", "Come si fa a cucinare il riso integrale?", set()),
        ("it", "Devo portare la giacca stasera?", set()),
        ("es", "¿Cómo cocinar garbanzos sin olla?", set()),
        ("fr", "Il faut porter un manteau demain ?", set()),
        # The subject's own inflections, and a subject that ends so itself, still do.
        ("it", "Le porte sono chiuse?", {"home_assistant"}),
        ("es", "¿Está limpia la cocina?", {"home_assistant"}),
        ("en", "Is it blocking ads?", {"pihole"}),
        ("en", "Is the box overheating?", {"system"}),
    ],
)
def test_a_verb_form_is_no_noun_of_the_same_stem(language, question, families):
    assert named(question, language) == families


VERB_ENDINGS = json.loads(
    (Path(subjects.__file__).parent / "verb_endings.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_subject_ending_as_a_verb_still_names_its_family(family):
    for language, endings in VERB_ENDINGS.items():
        if language == "_about":
            continue
        for subject in FAMILIES[family][language]:
            if any(letters(subject).endswith(e) for e in endings):
                assert family in named(f"— {subject} —", language), subject


ARTICLES = json.loads(subjects.INDEFINITE_ARTICLES.read_text(encoding="utf-8"))


def test_indefinite_articles_list_the_six_languages_without_repeats():
    assert set(ARTICLES) - {"_about"} == set(LANGUAGES)
    for language in LANGUAGES:
        assert len(set(ARTICLES[language])) == len(ARTICLES[language]), language


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_other_thing_after_an_indefinite_article_is_one_in_general(language):
    stops = subjects.stop_words(language)
    for other in OTHERS["system"][language]:
        if letters(other.split()[0]) in stops:
            continue  # "my watch", "mein PC": the household's own in the word itself
        assert subjects.names_other_things(f"{other}?", HOUSEHOLD, language, owned_only=True)
        for article in ARTICLES[language]:
            question = f"{article} {other}?"
            assert subjects.names_other_things(question, HOUSEHOLD, language), question
            owned = subjects.names_other_things(question, HOUSEHOLD, language, owned_only=True)
            assert owned == frozenset(), question


@pytest.mark.parametrize(
    ("language", "question", "owned"),
    [
        ("en", "how many watts does a TV use?", False),
        ("en", "did the kids switch the tv off before bed?", True),
        ("en", "is my laptop still charging? a phone would be full by now", True),
        ("en", "does a brand new laptop need charging before first use?", False),
        ("en", "is my new laptop still charging?", True),
        ("de", "wie viel Strom braucht ein Fernseher im Standby?", False),
        ("de", "ist mein Handy schon voll geladen?", True),
        ("fr", "combien consomme une télé en veille ?", False),
        ("fr", "combien consomme d'une télé en veille ?", False),
        ("fr", "la télé d'en bas est encore allumée ?", True),
        ("es", "¿cuánto dura la batería de un móvil normalmente?", False),
        ("es", "¿la consola de los niños sigue encendida?", True),
        ("nl", "hoeveel stroom gebruikt een tv op stand-by?", False),
        ("nl", "staat de tv beneden nog aan?", True),
        ("it", "quanto consuma una tv in standby?", False),
        ("it", "il portatile di Giulia è ancora acceso?", True),
    ],
)
def test_another_thing_is_the_household_s_own_unless_named_in_general(language, question, owned):
    assert subjects.names_other_things(question, HOUSEHOLD, language) == {"system"}
    found = subjects.names_other_things(question, HOUSEHOLD, language, owned_only=True)
    assert found == ({"system"} if owned else frozenset())
