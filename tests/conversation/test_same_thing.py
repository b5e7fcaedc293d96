"""A value chosen from what exists is checked against the question, and a value that is
not the thing asked about is read no further: the family's list is read instead
(sovereign.conversation.offer.same_thing; docs/decisions/offered-tools-and-arguments.md,
"Whether the thing chosen is the thing asked about")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sovereign.capabilities import home_assistant_facts
from sovereign.conversation import ToolCatalog
from sovereign.conversation.backends.base import named_choice
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.offer.same_thing import (
    SAME_THING,
    Chosen,
    best_named,
    better_named,
    choosing_read,
    listing_read,
    named_in,
    named_with,
    words_named,
)
from sovereign.conversation.offer.subjects import followed_families
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.sentences import own
from sovereign.executor import Choice, Locality, read_word_groups

from .answer.test_finish import health
from .conftest import ON
from .test_answers_from_what_ran import capability, registry_of
from .test_stand_ins import loop_for

ENTITIES = {
    "sensor.kitchen_temperature": ("Kitchen temperature", "21.4"),
    "lock.back_door": ("Back door", "unlocked"),
    "light.landing": ("Landing light", "on"),
}


def _entity(entity_id):
    name, state = ENTITIES[entity_id]
    return {
        "entity_id": entity_id,
        "domain": entity_id.split(".")[0],
        "name": name,
        "friendly_name": name,
        "state": state,
        "unit_of_measurement": "°C" if entity_id.startswith("sensor.") else None,
        "device_class": "temperature" if entity_id.startswith("sensor.") else None,
        "attributes": {},
    }


def home(locality=Locality.LOCAL):
    """Home Assistant's two reads, with two allowed entities, on this device or (approved
    first) on its own server."""

    async def get_state(arguments):
        return {"entity": _entity(arguments["entity_id"]), "retrieved_at": "2026-12-06T01:00:00Z"}

    async def list_entities(arguments):
        entities = [_entity(e) for e in sorted(ENTITIES)]
        return {
            "entities": entities,
            "entity_count": len(entities),
            "missing_entity_ids": [],
            "retrieved_at": "2026-12-06T01:00:00Z",
        }

    def choices():
        return {"entity_id": [Choice(value=e, label=name) for e, (name, _) in ENTITIES.items()]}

    def read(name, execute, schema, facts, **extra):
        return capability(
            name,
            locality=locality,
            policy_key="home_assistant_enabled",
            execute=execute,
            schema=schema,
            phrases=home_assistant_facts.PHRASES,
            facts=facts,
            **extra,
        )

    one = {
        "type": "object",
        "required": ["entity_id"],
        "properties": {"entity_id": {"type": "string"}},
    }
    every = {"type": "object", "properties": {"domain": {"type": "string"}}}
    return registry_of(
        health(),
        read(
            "home_assistant.get_state",
            get_state,
            one,
            home_assistant_facts.GET_STATE_FACTS,
            choices=choices,
        ),
        read("home_assistant.list_entities", list_entities, every, home_assistant_facts.LIST_FACTS),
    )


POLICY = {**ON, "home_assistant_enabled": True}
KITCHEN = propose(
    "home_assistant_get_state",
    {"entity_id": "sensor.kitchen_temperature", "also_asked": "nothing_else"},
)


async def turn(question, script, tmp_path):
    loop, backend, _ = loop_for(home(), script, tmp_path)
    ask = [{"role": "user", "content": question}]
    return await loop.process_turn(ask, policy=POLICY, owner="o"), backend


NO, YES = propose(SAME_THING, {"answer": "no"}), propose(SAME_THING, {"answer": "yes"})


def checked(backend):
    """The names each check of the turn asked about, in order."""
    asked = [
        r.messages[-1]["content"]
        for r in backend.requests
        if r.tool_choice == named_choice(SAME_THING)
    ]
    return [text.split("Entity: ", 1)[1].split("\n", 1)[0] for text in asked]


async def test_a_thing_the_model_chose_that_is_not_the_one_asked_about_is_not_read(tmp_path):
    question = "whats the chest freezer in the garage reading?"
    result, backend = await turn(question, [KITCHEN, NO], tmp_path)
    assert [r.capability for r in result.receipts] == ["home_assistant.list_entities"]
    assert "Back door" in result.text and "Kitchen temperature" in result.text  # the list
    assert result.text.endswith("I could not tell which of them you asked about.")
    check = backend.requests[1]
    assert check.tool_choice == named_choice(SAME_THING)
    asked = check.messages[-1]["content"]
    assert question in asked and "Kitchen temperature" in asked
    assert checked(backend) == ["Kitchen temperature"]
    assert backend.remaining == 0


@pytest.mark.parametrize(
    ("question", "script", "read", "checks"),
    [
        # The model chose the kitchen for a follow-up; the question holds every word of
        # the landing light's name: it is read with no check.
        ("and what about the landing light?", [KITCHEN], "Landing light", []),
        # A compound that begins with a word of the name holds that word; the back
        # door's is the only name of which the question holds any: it is checked.
        ("und die Backtür?", [KITCHEN, YES], "Back door", ["Back door"]),
    ],
)
async def test_another_thing_whose_name_the_question_holds_more_of_is_read_in_its_place(
    question, script, read, checks, tmp_path
):
    result, backend = await turn(question, script, tmp_path)
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert read in result.text and "Kitchen" not in result.text
    assert checked(backend) == checks
    assert backend.remaining == 0


@pytest.mark.parametrize(
    ("question", "value", "label", "held"),
    [
        ("und das garagentor?", "binary_sensor.garage_door", "Garage door", 1),
        ("und das garagentor?", "lock.back_door", "Back door", 0),
        ("is the front door locked?", "lock.back_door", "Back door", 2),  # a lock's door
        ("is the front door locked?", "lock.front_door", "Front door", 3),
        ("kitchen temp?", "sensor.kitchen_temperature", "Küche", 1),  # the id's words
        ("is it on?", "light.landing", "On", 0),  # a name word too short to count
        # the id's kind counts, a word of the name and the id once
        ("¿Se quedó encendida la luz del desván?", "light.attic", "", 2),
        ("¿Se quedó encendida la luz del desván?", "light.landing", "Landing light", 1),
    ],
)
def test_the_words_of_a_name_a_question_holds(question, value, label, held):
    assert words_named(question, value, label, home_assistant_facts.PHRASES.alike) == held


def test_the_value_whose_name_the_question_holds_most_words_of_is_better_named():
    others = tuple(Choice(value=v, label=n) for v, (n, _) in ENTITIES.items())
    back = Chosen("entity_id", "lock.back_door", "Back door", others[:1] + others[2:])
    assert better_named("and the landing light?", back) == "light.landing"
    assert better_named("is the back door locked?", back) is None  # the chosen holds most
    assert better_named("and in the hallway?", back) is None  # none holds more
    front = Choice(value="lock.front_door", label="Front door")
    garage = Choice(value="binary_sensor.garage_door", label="Garage door")
    tied = Chosen("entity_id", "light.landing", "Landing light", (front, garage))
    assert better_named("is the door shut?", tied) is None  # two hold as many: a tie
    assert back.instead("light.landing").label == "Landing light"
    # a thing of another kind's room: the kind of the id counts ("la luz": a light)
    alike = home_assistant_facts.PHRASES.alike
    attic = Choice(value="light.attic", label="light.attic")
    landing = Chosen("entity_id", "light.landing", "Landing light", (attic, *others[:2]))
    assert better_named("¿Se quedó encendida la luz del desván?", landing, alike) == "light.attic"
    assert better_named("la luz del descansillo?", landing, alike) is None
    assert "lock.back_door" in [c.value for c in back.instead("light.landing").others]


async def test_a_thing_the_check_confirms_is_read(tmp_path):
    script = [KITCHEN, YES]
    result, backend = await turn("¿qué tal se está en la cocina?", script, tmp_path)
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert "21,4" in result.text and "Back door" not in result.text
    assert own("not_among_readable", Voice("es")) not in result.text
    assert backend.remaining == 0


async def test_a_thing_the_question_names_in_its_own_words_is_read_without_a_check(tmp_path):
    result, backend = await turn(
        "How warm is it by the kitchen temperature sensor?", [KITCHEN], tmp_path
    )
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert len(backend.requests) == 1


async def test_a_check_the_backend_does_not_answer_leaves_the_choice(tmp_path):
    result, _ = await turn("how is the fridge?", [KITCHEN, "not a call"], tmp_path)
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]


@pytest.mark.parametrize(
    ("question", "value", "label", "named"),
    [
        ("is the back door locked?", "lock.back_door", "Back door", True),
        ("Are the back doors locked?", "lock.back_door", "Back door", True),  # a longer word
        ("IS THE BACK DOOR LOCKED", "lock.back_door", "Back door", True),
        ("is the front door locked?", "lock.back_door", "Back door", False),
        ("is the door locked?", "lock.back_door", "Back door", False),  # one word of two
        ("Ist die Hintertür zu?", "lock.back_door", "Hintertür", True),  # the household's name
        ("Ist die Hintertür zu?", "lock.back_door", "Back door", False),
        ("how warm is the kitchen?", "sensor.kitchen_temperature", "Kitchen temperature", False),
        ("kitchen temperature now", "sensor.kitchen_temperature", "Küche", True),  # the id's words
        ("is the landing light on?", "light.landing", "Landing light", True),
        ("is the light on?", "light.landing", "Landing light", False),
        ("is the light on?", "light.landing", "A", False),  # a name of no word to look for
    ],
)
def test_a_value_is_named_only_when_the_question_holds_every_word_of_its_name_or_id(
    question, value, label, named
):
    assert named_in(question, value, label) is named


def test_the_list_read_in_place_of_one_thing_is_of_the_same_family_and_chooses_nothing():
    catalog = ToolCatalog.for_turn(home(), POLICY)
    get_state = catalog.capabilities["home_assistant.get_state"]
    listing = listing_read(get_state, catalog.tools(), catalog)
    assert listing is not None and listing["function"]["name"] == "home_assistant_list_entities"
    assert listing_read(catalog.capabilities["system.health"], catalog.tools(), catalog) is None
    only_one = [t for t in catalog.tools() if t["function"]["name"] != listing["function"]["name"]]
    assert listing_read(get_state, only_one, catalog) is None


@pytest.mark.parametrize(("also_asked", "requests"), [("nothing_else", 1), ("something_else", 2)])
async def test_an_approved_read_that_answers_the_whole_question_ends_the_turn(
    also_asked, requests, tmp_path
):
    read = propose(
        "home_assistant_get_state", {"entity_id": "lock.back_door", "also_asked": also_asked}
    )
    loop, backend, _ = loop_for(home(Locality.EXTERNAL), [read, "It is."], tmp_path)
    ask = [{"role": "user", "content": "is the back door locked?"}]
    paused = await loop.process_turn(ask, policy=POLICY, owner="o")
    card = paused.pending_confirmation
    assert card is not None and card.capability == "home_assistant.get_state"
    result = await loop.resume_turn(card.token, True, policy=POLICY, owner="o")
    assert result.text.startswith("Back door") and "unlocked" in result.text
    assert len(backend.requests) == requests  # asked again only when more was asked


async def test_a_follow_up_is_checked_on_its_own_words(tmp_path):
    loop, backend, _ = loop_for(home(), [KITCHEN, NO], tmp_path)
    conversation = [
        {"role": "user", "content": "how warm is the kitchen?"},
        {"role": "assistant", "content": "Kitchen temperature is 21.4 °C."},
        {"role": "user", "content": "and in the fridge?"},
    ]
    result = await loop.process_turn(conversation, policy=POLICY, owner="o")
    asked = backend.requests[1].messages[-1]["content"]
    assert "and in the fridge?" in asked and "how warm is the kitchen" not in asked
    assert [r.capability for r in result.receipts] == ["home_assistant.list_entities"]


async def test_an_entity_that_is_not_among_the_choices_is_left_to_validation(tmp_path):
    guessed = propose(
        "home_assistant_get_state", {"entity_id": "sensor.freezer", "also_asked": "nothing_else"}
    )
    result, backend = await turn("whats the chest freezer reading?", [guessed, "unused"], tmp_path)
    assert all(r.tool_choice != named_choice(SAME_THING) for r in backend.requests)  # no check
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert result.receipts[0].outcome != "executed"


ALIKE = home_assistant_facts.PHRASES.alike


@pytest.mark.parametrize(
    ("question", "value", "label"),
    [
        ("è rimasta accesa la lampada sul pianerottolo", "light.landing", "Landing light"),
        ("¿alguien se ha dejado la luz del descansillo dada?", "light.landing", "Landing light"),
        ("Brennt das Licht am Treppenabsatz noch?", "light.landing", "Landing light"),
        ("la lumière du palier est allumée ?", "light.landing", "Landing light"),
        ("brandt de lamp op de overloop nog?", "light.landing", "Landing light"),
        ("hab ich die Haustür abgesperrt?", "lock.front_door", "Front door"),
        ("quanti gradi in cucina?", "sensor.kitchen_temperature", "Kitchen temperature"),
    ],
)
def test_a_thing_named_in_another_language_s_words_is_named(question, value, label):
    assert not named_in(question, value, label)  # no word of the name itself
    assert named_in(question, value, label, ALIKE)


@pytest.mark.parametrize(
    ("question", "value", "label"),
    [
        ("hab ich die Haustür abgesperrt?", "lock.back_door", "Back door"),  # the front door
        ("è accesa la luce in cucina?", "light.landing", "Landing light"),  # another room
        ("quanta umidità c'è in cantina?", "sensor.kitchen_temperature", "Kitchen temperature"),
        ("è accesa la luce in soffitta?", "light.landing", "Landing light"),  # the attic
    ],
)
def test_words_alike_name_no_other_thing(question, value, label):
    assert not named_in(question, value, label, ALIKE)


def test_words_alike_choose_the_thing_named_over_the_thing_before():
    others = tuple(Choice(value=v, label=n) for v, (n, _) in ENTITIES.items())
    back = Chosen("entity_id", "lock.back_door", "Back door", others[:1] + others[2:])
    assert better_named("e la luce del pianerottolo?", back) is None
    assert better_named("e la luce del pianerottolo?", back, ALIKE) == "light.landing"


async def test_a_thing_named_in_another_language_is_read_without_a_check(tmp_path):
    landing = propose(
        "home_assistant_get_state", {"entity_id": "light.landing", "also_asked": "nothing_else"}
    )
    result, backend = await turn(
        "è rimasta accesa la lampada sul pianerottolo?", [landing], tmp_path
    )
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert checked(backend) == []
    assert backend.remaining == 0


def test_word_groups_are_read_with_every_language_s_words_and_refused_when_malformed(tmp_path):
    path = tmp_path / "alike.json"
    path.write_text('{"groups": [{"en": ["landing"], "it": ["pianerottolo"]}]}', "utf-8")
    assert read_word_groups(path) == (("landing", "pianerottolo"),)
    for bad in ('{"groups": {"en": ["x"]}}', '{"groups": [{"en": "landing"}]}', "[]"):
        path.write_text(bad, "utf-8")
        with pytest.raises(ValueError):
            read_word_groups(path)


def test_each_group_of_words_alike_names_one_thing_in_the_six_languages():
    catalog = json.loads(
        (
            Path(home_assistant_facts.__file__).parent / "subjects" / "home_assistant_alike.json"
        ).read_text(encoding="utf-8")
    )
    for group in catalog["groups"]:
        assert set(group) == {"en", "de", "fr", "es", "nl", "it"}, group


@pytest.mark.parametrize(
    ("questions", "language", "families"),
    [
        (["¿qué temperatura hace en la cocina?", "¿y en la calle?"], "es", {"home_assistant"}),
        (["Ist die Haustür zu?", "und am Treppenabsatz?"], "de", {"home_assistant"}),
        (["¿qué temperatura hace en la cocina?", "¿y mañana?"], "es", set()),  # no thing
        (["how hot is the device?", "and outside?"], "en", set()),  # the device has none
    ],
)
def test_a_follow_up_naming_a_thing_of_the_home_in_words_alike_goes_on_from_the_home(
    questions, language, families
):
    capabilities = ToolCatalog.for_turn(home(), POLICY).capabilities.values()
    assert followed_families(questions, capabilities, language) == families


@pytest.mark.parametrize(
    ("earlier", "question", "value", "label", "named"),
    [
        # the street is outside, degrees a temperature
        (
            "¿cuántos grados marca la cocina?",
            "¿y en la calle?",
            "sensor.outside_temperature",
            "Outside temperature",
            True,
        ),
        (
            "how warm is it in the hallway? the temperature",
            "and in the kitchen?",
            "sensor.kitchen_temperature",
            "Kitchen temperature",
            True,
        ),
        # the follow-up holds no word of the name: the words before it do not count
        (
            "what's the kitchen temperature?",
            "and the fridge?",
            "sensor.kitchen_temperature",
            "Kitchen temperature",
            False,
        ),
        # the two together do not hold every word
        (
            "is the back door locked?",
            "and the kitchen?",
            "sensor.kitchen_temperature",
            "Kitchen temperature",
            False,
        ),
    ],
)
def test_a_follow_up_names_a_value_with_the_message_before_it(
    earlier, question, value, label, named
):
    assert named_with(earlier, question, value, label, ALIKE) is named


@pytest.mark.parametrize(
    ("earlier", "question", "script", "read", "checks"),
    [
        # the follow-up names the kitchen, the message before the temperature: unchecked
        (
            "what is the temperature in the hallway?",
            "and in the kitchen?",
            [
                propose(
                    "home_assistant_get_state",
                    {"entity_id": "lock.back_door", "also_asked": "nothing_else"},
                )
            ],
            "21.4",
            [],
        ),
        # the follow-up names nothing of the kitchen's temperature: checked as before
        (
            "what's the kitchen temperature?",
            "and the fridge?",
            [KITCHEN, NO],
            None,
            ["Kitchen temperature"],
        ),
    ],
)
async def test_a_follow_up_is_read_unchecked_when_it_and_the_message_before_name_the_thing(
    earlier, question, script, read, checks, tmp_path
):
    loop, backend, _ = loop_for(home(), script, tmp_path)
    conversation = [
        {"role": "user", "content": earlier},
        {"role": "assistant", "content": "Yes."},
        {"role": "user", "content": question},
    ]
    result = await loop.process_turn(conversation, policy=POLICY, owner="o")
    assert checked(backend) == checks
    receipts = [r.capability for r in result.receipts]
    if read is None:
        assert receipts == ["home_assistant.list_entities"]
    else:
        assert receipts == ["home_assistant.get_state"] and read in result.text


LISTED = propose("home_assistant_list_entities", {"also_asked": "nothing_else"})


async def test_a_list_chosen_where_the_question_names_one_thing_reads_that_thing(tmp_path):
    question = "we're halfway to the airport and we left the back one open. is it locked?"
    result, backend = await turn(question, [LISTED, YES], tmp_path)
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert checked(backend) == ["Back door"]  # a part of its name: checked as a choice is
    assert "Kitchen temperature" not in result.text and "Landing light" not in result.text
    assert own("not_among_readable", Voice("en")) not in result.text


async def test_a_list_chosen_for_a_thing_the_check_says_no_to_stays_the_list(tmp_path):
    result, _ = await turn("is the back gate of the garden shut?", [LISTED, NO], tmp_path)
    assert [r.capability for r in result.receipts] == ["home_assistant.list_entities"]


@pytest.mark.parametrize(
    "question",
    [
        "what does Home Assistant show right now?",  # names none
        "are the kitchen and the landing ok?",  # names two as much
    ],
)
async def test_a_list_chosen_where_the_question_names_no_one_thing_stays_the_list(
    question, tmp_path
):
    result, backend = await turn(question, [LISTED, "unused"], tmp_path)
    assert [r.capability for r in result.receipts] == ["home_assistant.list_entities"]
    assert checked(backend) == []


def test_the_read_of_one_thing_in_place_of_the_list_chooses_from_what_exists():
    catalog = ToolCatalog.for_turn(home(), POLICY)
    listing = catalog.capabilities["home_assistant.list_entities"]
    tool, reader = choosing_read(listing, catalog.tools(), catalog)
    assert tool["function"]["name"] == "home_assistant_get_state"
    assert reader.name == "home_assistant.get_state"
    assert choosing_read(reader, catalog.tools(), catalog) is None  # it chooses already
    assert choosing_read(catalog.capabilities["system.health"], catalog.tools(), catalog) is None
    choices = [Choice(value=e, label=name) for e, (name, _) in ENTITIES.items()]
    assert best_named("und die Hintertür, ist die zu? back", choices) == "lock.back_door"
    assert best_named("is everything ok?", choices) is None
