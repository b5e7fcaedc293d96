"""What a turn withholds is offered as a stand-in that runs nothing and says what is missing
(sovereign.conversation.offer.stand_ins; docs/decisions/offered-tools-and-arguments.md)."""

from __future__ import annotations

import json

import pytest

from sovereign.conversation import ToolCatalog, TurnLoop
from sovereign.conversation.backends.base import ModelReply, allowed_choice
from sovereign.conversation.backends.decision import decision_schema
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.conversation.offer.stand_ins import stand_ins
from sovereign.conversation.voice.catalogs import Voice
from sovereign.executor import AuditLog, ConfirmationStore, Executor, Locality

from .conftest import OFF
from .test_answers_from_what_ran import capability, registry_of
from .test_denial_ends_the_queue import reply

ASK_KITCHEN = [{"role": "user", "content": "What's the kitchen temperature?"}]
HA_NOT_SET_UP = (
    "Home Assistant is not set up on this device, so I can't read your home's sensors, "
    "lights or locks."
)
WEB_OFF = "Web search is switched off, so I can't search the web or read web pages for you."
PIHOLE_NOT_SET_UP = "Pi-hole is not set up on this device, so I can't read its ad-blocking totals."
CANNOT_CHANGE = "I can only read things here; I can't switch, lock, set or change anything."


def household(*, home_assistant=None):
    """The production families' names: health always, Home Assistant as given, the web."""
    return registry_of(
        capability("system.health"),
        capability(
            "home_assistant.get_state",
            available=lambda: home_assistant is not None,
            policy_key="home_assistant_enabled",
        ),
        capability(
            "home_assistant.list_entities",
            available=lambda: home_assistant is not None,
            policy_key="home_assistant_enabled",
        ),
        capability("pihole.summary", available=lambda: False),
        capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL),
        capability("web.fetch", policy_key="external_enabled", locality=Locality.EXTERNAL),
    )


def names(catalog, language="en"):
    return [(s.name, s.sentence) for s in stand_ins(catalog, Voice(language))]


def test_one_stand_in_per_withheld_family_named_for_what_is_missing():
    catalog = ToolCatalog.for_turn(household(), {"external_enabled": False})
    assert names(catalog) == [  # switched off first, then not set up, each last first
        ("web_switched_off", WEB_OFF),
        ("pihole_not_set_up", PIHOLE_NOT_SET_UP),
        ("smart_home_not_set_up", HA_NOT_SET_UP),
        ("change_something", CANNOT_CHANGE),  # nothing that is offered can change anything
    ]
    switched_off = ToolCatalog.for_turn(household(home_assistant=True), {"external_enabled": True})
    assert [name for name, _ in names(switched_off)] == [
        "smart_home_switched_off",
        "pihole_not_set_up",
        "change_something",
    ]
    everything = {"external_enabled": True, "home_assistant_enabled": True}
    assert names(ToolCatalog.for_turn(household(home_assistant=True), everything)) == [
        ("pihole_not_set_up", PIHOLE_NOT_SET_UP),
        ("change_something", CANNOT_CHANGE),
    ]
    german = dict(names(catalog, "de"))
    assert german["pihole_not_set_up"].startswith("Pi-hole ist auf diesem Gerät nicht eingerichtet")


def test_a_stand_in_takes_no_arguments_and_never_names_a_capability():
    catalog = ToolCatalog.for_turn(household(), {"external_enabled": False})
    tools = [s.tool() for s in stand_ins(catalog, Voice("en"))]
    for tool in tools:
        function = tool["function"]
        assert function["parameters"] == {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
        }
        assert catalog.resolve(function["name"]) is None
        assert function["description"].startswith("Only for a question that ")
    descriptions = {t["function"]["name"]: t["function"]["description"] for t in tools}
    assert descriptions["web_switched_off"] == (
        "Only for a question that asks to search the web or read a web page, or asks for "
        "news, weather or prices."
    )
    assert "lights, locks" in descriptions["smart_home_not_set_up"]
    assert "switch, turn on or off" in descriptions["change_something"]
    # The decision grammar can only write {} for it.
    branch = next(
        b
        for b in decision_schema(tools)["anyOf"]
        if b["properties"]["action"].get("const") == "web_switched_off"
    )
    assert branch["properties"]["arguments"]["properties"] == {}


def test_a_stand_in_never_shadows_a_capability_of_the_same_name():
    registry = household()
    registry.add(capability("pihole.not_set_up"))  # its model-safe name is pihole_not_set_up
    catalog = ToolCatalog.for_turn(registry, {"external_enabled": True})
    assert "pihole_not_set_up" not in [name for name, _ in names(catalog)]


def loop_for(registry, script, tmp_path):
    backend = ScriptedBackend(script)
    audit = AuditLog(tmp_path)
    executor = Executor(registry, confirmations=ConfirmationStore(), audit=audit)
    return TurnLoop(executor, backend), backend, audit


async def test_choosing_a_stand_in_runs_nothing_and_answers_with_its_sentence(tmp_path):
    loop, backend, audit = loop_for(
        household(), [propose("smart_home_not_set_up"), "It is 21 °C in the kitchen."], tmp_path
    )
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    result = await loop.process_turn(ASK_KITCHEN, policy=OFF, owner="o", on_token=sink)
    assert result.text == HA_NOT_SET_UP and "".join(shown) == HA_NOT_SET_UP
    assert result.receipts == [] and result.pending_confirmation is None
    assert backend.remaining == 1  # the model was not asked to write an answer
    assert not audit.path.exists() or audit.path.read_text() == ""
    offered = [t["function"]["name"] for t in backend.requests[0].tools]
    # The kitchen names the home: Pi-hole's stand-in is not offered, what can run is.
    assert offered == [
        "system_health",
        "web_switched_off",
        "smart_home_not_set_up",
        "change_something",
        "general_knowledge",
    ]


@pytest.mark.parametrize(
    ("stand_in", "question", "said"),
    [
        ("web_switched_off", "what's the weather?", f"{WEB_OFF}\n\nYour CPU is fine."),
        ("general_knowledge", "who wrote Emma?", "Your CPU is fine."),
    ],
)
async def test_a_stand_in_beside_a_real_call_lets_the_real_call_run(
    tmp_path, stand_in, question, said
):
    both = reply(("system_health", {}), (stand_in, {}))
    loop, backend, _ = loop_for(household(), [both, ModelReply(), "Your CPU is fine."], tmp_path)
    ask = [{"role": "user", "content": f"How is the device, and {question}"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert result.text == said
    assert backend.remaining == 0
    assert "general_knowledge" not in [t["function"]["name"] for t in backend.requests[1].tools]


async def test_a_stand_in_after_a_result_leaves_the_answer_to_the_model(tmp_path):
    answer = "The device itself is fine."
    script = [propose("system_health"), propose("smart_home_not_set_up"), answer]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    # (A question naming the kitchen alone would not read the device: test_local_first.)
    ask = [{"role": "user", "content": "Is the server warm, and is the heating on?"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    # What is missing is said in the product's words first; the model's answer follows.
    assert result.text == f"{HA_NOT_SET_UP}\n\n{answer}" and backend.remaining == 0


CANNOT_CHANGE = "I can only read things here; I can't switch, lock, set or change anything."


@pytest.mark.parametrize(
    ("question", "chosen", "home_assistant", "said"),
    [
        # A family the question names is withheld: its stand-in says so.
        ("Is the ad blocker on?", "web_switched_off", None, PIHOLE_NOT_SET_UP),
        ("Is the heating upstairs still on?", "change_something", None, HA_NOT_SET_UP),
        ("Switch off the kitchen light", "change_something", None, HA_NOT_SET_UP),
        # The web asked for in words, no family named, a family set up: as chosen.
        ("Search the web for the best ad blocker", "web_switched_off", None, WEB_OFF),
        ("Who won the match yesterday?", "web_switched_off", None, WEB_OFF),
        ("Switch off the kitchen light", "change_something", {}, CANNOT_CHANGE),
    ],
)
async def test_a_stand_in_for_no_family_named_gives_way_to_the_named_family_s(
    question, chosen, home_assistant, said, tmp_path
):
    script = [propose(chosen), "unused"]
    loop, _, _ = loop_for(household(home_assistant=home_assistant), script, tmp_path)
    ask = [{"role": "user", "content": question}]
    policy = {**OFF, "home_assistant_enabled": True}
    result = await loop.process_turn(ask, policy=policy, owner="o")
    assert result.text == said and result.receipts == []


@pytest.mark.parametrize(
    ("question", "language"),
    [("whats the latest score in the Arsenal match", "en"), ("¿A qué hora cierra hoy?", "es")],
)
async def test_a_read_no_message_named_is_chosen_again_among_the_rest(question, language, tmp_path):
    script = [propose("system_health"), propose("web_switched_off"), "unused"]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    ask = [{"role": "user", "content": question}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert result.receipts == [] and backend.remaining == 1
    first, again = backend.requests
    offered = [t["function"]["name"] for t in first.tools]
    rest = [name for name in offered if name != "system_health"]
    assert again.tools == first.tools and again.tool_choice == allowed_choice(rest)
    said = dict(names(ToolCatalog.for_turn(household(), OFF), language))["web_switched_off"]
    assert result.text == said


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("is hollins park parkrun on this saturday?? heard the lake path flooded", "en"),
        ("hat das bürgerbüro in St. Ilgen morgen auf?", "de"),
        ("il rifugio Cima Verde è aperto questo weekend?", "it"),
    ],
)
@pytest.mark.parametrize("chosen", ["smart_home_not_set_up", "change_something"])
async def test_a_stand_in_for_what_no_message_asked_is_chosen_again_without_any(
    question, language, chosen, tmp_path
):
    script = [propose(chosen), propose("web_switched_off"), "unused"]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert result.receipts == [] and backend.remaining == 1
    first, again = backend.requests
    offered = [t["function"]["name"] for t in first.tools]
    aside = {"smart_home_not_set_up", "pihole_not_set_up", "change_something"}
    aside |= {"general_knowledge"}  # it chose something to be read
    assert aside <= set(offered)
    rest = [name for name in offered if name not in aside]
    assert again.tools == first.tools and again.tool_choice == allowed_choice(rest)
    said = dict(names(ToolCatalog.for_turn(household(), OFF), language))["web_switched_off"]
    assert result.text == said


@pytest.mark.parametrize(
    "ask",
    [
        [{"role": "user", "content": "How warm is the hallway?"}],
        [{"role": "user", "content": "Is the heating on?"}],
        [
            {"role": "user", "content": "Is the kitchen warm?"},
            {"role": "assistant", "content": "Home Assistant is not set up."},
            {"role": "user", "content": "and tomorrow morning?"},
        ],
    ],
)
async def test_a_family_s_stand_in_for_its_own_words_is_not_chosen_again(ask, tmp_path):
    loop, backend, _ = loop_for(household(), [propose("smart_home_not_set_up")], tmp_path)
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert result.text == HA_NOT_SET_UP and backend.remaining == 0
    assert [r.tool_choice for r in backend.requests] == ["auto"]


async def test_each_choice_put_aside_stays_aside(tmp_path):
    script = [
        propose("smart_home_not_set_up"),
        propose("system_health"),
        propose("web_switched_off"),
        "unused",
    ]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    ask = [{"role": "user", "content": "is the library open on sunday"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert result.receipts == [] and result.text == WEB_OFF and backend.remaining == 1
    offered = [t["function"]["name"] for t in backend.requests[0].tools]
    aside = {"smart_home_not_set_up", "pihole_not_set_up", "change_something", "system_health"}
    aside |= {"general_knowledge"}
    last = [name for name in offered if name not in aside]
    assert backend.requests[2].tool_choice == allowed_choice(last)


async def test_a_time_window_the_question_chose_is_no_thing_of_the_household(tmp_path):
    # "hoy" offers Pi-hole's window; reading its last 24 hours names no thing of the home.
    from sovereign.capabilities import pihole

    registry = registry_of(
        capability("pihole.summary", schema=pihole.ARGUMENTS_SCHEMA),
        capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL),
    )
    read = propose("pihole_summary", {"period": "last_24_hours"})
    loop, backend, _ = loop_for(registry, [read, propose("web_switched_off"), "unused"], tmp_path)
    ask = [{"role": "user", "content": "a cuánto está hoy el euro frente al dólar"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert result.receipts == [] and backend.remaining == 1
    assert backend.requests[1].tool_choice != "auto"  # chosen again, without the read


async def test_a_follow_up_keeps_the_family_named_before_and_is_not_asked_again(tmp_path):
    script = [propose("system_health", {}), "It is fine."]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    ask = [
        {"role": "user", "content": "How is the server doing?"},
        {"role": "assistant", "content": "It is running."},
        {"role": "user", "content": "And right now?"},
    ]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert backend.requests[0].tool_choice == "auto" and len(backend.requests) == 2


async def test_a_read_of_a_thing_the_model_chose_is_not_asked_again(tmp_path):
    script = [propose("home_assistant_get_state", {"entity_id": "sensor.outside"}), "Cold."]
    loop, backend, _ = loop_for(household(home_assistant={}), script, tmp_path)
    ask = [{"role": "user", "content": "What's it like outside?"}]
    result = await loop.process_turn(ask, policy=OFF, owner="o")
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert all(r.tool_choice == "auto" for r in backend.requests)


@pytest.mark.parametrize("arguments", [{}, {"entity_id": "sensor.kitchen"}])
async def test_the_stand_in_is_never_sent_to_the_executor_whatever_its_arguments(
    tmp_path, arguments
):
    loop, _, audit = loop_for(household(), [propose("smart_home_not_set_up", arguments)], tmp_path)
    result = await loop.process_turn(ASK_KITCHEN, policy=OFF, owner="o")
    assert result.text == HA_NOT_SET_UP and result.receipts == []
    lines = audit.path.read_text().splitlines() if audit.path.exists() else []
    assert [json.loads(line) for line in lines] == []


def test_a_family_without_words_of_its_own_gets_no_stand_in_but_a_plain_sentence():
    registry = registry_of(
        capability("system.health"), capability("garden.water", policy_key="garden_enabled")
    )
    catalog = ToolCatalog.for_turn(registry, {})
    # No stand-in without a family's own description of the questions it serves; the
    # system prompt still says, in plain words, that something is switched off.
    assert [s.name for s in stand_ins(catalog, Voice("en"))] == ["change_something"]
    assert catalog.unavailable_sentences(Voice("en")) == [
        "That is switched off on this device, so I can't do it."
    ]


ASK_AUTHOR = [{"role": "user", "content": "Who wrote Pride and Prejudice?"}]


async def test_choosing_general_knowledge_runs_nothing_and_the_model_answers(tmp_path):
    loop, backend, audit = loop_for(
        household(), [propose("general_knowledge"), "Jane Austen wrote it."], tmp_path
    )
    result = await loop.process_turn(ASK_AUTHOR, policy=OFF, owner="o")
    assert result.text == "Jane Austen wrote it."
    assert result.receipts == [] and result.pending_confirmation is None
    assert backend.remaining == 0  # the model was asked for its prose
    assert backend.requests[1].tools is None  # ... without tools
    assert not audit.path.exists() or audit.path.read_text() == ""


async def test_general_knowledge_is_offered_only_before_anything_ran(tmp_path):
    script = [propose("system_health"), ModelReply(), "Fine."]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    await loop.process_turn(ASK_KITCHEN, policy=OFF, owner="o")
    offered = [[t["function"]["name"] for t in r.tools or []] for r in backend.requests]
    assert "general_knowledge" in offered[0]
    assert all("general_knowledge" not in names for names in offered[1:])


OTHER_DEVICES = "I can't check that: I can read this device, but not your other devices."


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("how many devices are online at home right now?", OTHER_DEVICES),
        ("is my laptop still charging?", OTHER_DEVICES),
        (
            "wie viel akku hat meine uhr noch? das ladekabel ist auch weg",
            "Das kann ich nicht nachsehen: Ich kann dieses Gerät ablesen, aber nicht die "
            "anderen Geräte im Haushalt.",
        ),
        (
            "ist mein Handy schon voll geladen?",
            "Das kann ich nicht nachsehen: Ich kann dieses Gerät ablesen, aber nicht die "
            "anderen Geräte im Haushalt.",
        ),
        (
            "¿la consola de los niños sigue encendida?",
            "No puedo comprobarlo: puedo leer este aparato, pero no los demás aparatos de la casa.",
        ),
    ],
)
async def test_a_question_about_another_thing_of_the_household_may_be_told_it_cannot_be_read(
    question, said, tmp_path
):
    script = [propose("other_device_unreadable"), "There are 15 devices online."]
    loop, backend, audit = loop_for(household(), script, tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert result.text == said
    assert result.receipts == [] and backend.remaining == 1  # no prose asked for
    assert not audit.path.exists() or audit.path.read_text() == ""
    offered = [t["function"]["name"] for t in backend.requests[0].tools]
    assert offered[-2:] == ["other_device_unreadable", "general_knowledge"]


@pytest.mark.parametrize(
    "question",
    [
        "Who wrote Pride and Prejudice?",  # no thing of the household's
        "how hot is the server? my laptop is burning up too",  # names the device itself
        "how much RAM is free right now?",
        "la montre vexa run 3 on peut aller à la piscine avec ou pas?",  # a product
        "combien consomme une télé en veille ?",  # a thing in general
        "hoeveel stroom gebruikt een tv op stand-by?",
    ],
)
async def test_the_other_things_door_is_offered_only_for_a_question_naming_them_alone(
    question, tmp_path
):
    loop, backend, _ = loop_for(household(), [propose("general_knowledge"), "Fine."], tmp_path)
    await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    offered = [t["function"]["name"] for t in backend.requests[0].tools]
    assert "other_device_unreadable" not in offered


@pytest.mark.parametrize("chosen", ["general_knowledge", "other_device_unreadable",
                                    "smart_home_not_set_up", "change_something"])  # fmt: skip
@pytest.mark.parametrize(
    "question",
    [
        "my phone storage is full, what should I delete first?",
        "lieber mein alter Laptop oder ein neues Tablet fürs Studium?",
        "hoe zet ik foto's van mijn telefoon op de laptop?",
        "meglio il mio portatile vecchio o un tablet per la scuola?",
        "merece la pena cambiarle la batería al móvil de mi madre?",  # worth it
        "pourquoi les téléphones chauffent autant quand ils chargent ?",  # why
        "¿por qué se calienta tanto mi portátil por debajo?",
    ],
)
async def test_advice_about_another_thing_is_answered_in_prose_whatever_was_chosen(
    chosen, question, tmp_path
):
    script = [propose(chosen), "Start with old videos and downloads."]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    assert result.text == "Start with old videos and downloads."
    assert "other_device_unreadable" in [t["function"]["name"] for t in backend.requests[0].tools]


# In the terminal client (web search off, nothing of the home set up), "is my laptop
# still charging?", given the change stand-in, was answered "The laptop is still
# charging."; "ist mein Handy schon voll geladen?" was told that web search is off.
@pytest.mark.parametrize("chosen", ["smart_home_not_set_up", "change_something",
                                    "web_switched_off"])  # fmt: skip
@pytest.mark.parametrize(
    "question",
    ["staat de tv beneden nog aan?", "il portatile di Giulia è ancora acceso?",
     "did the kids switch the tv off before bed?", "is my laptop still charging?",
     "ist mein Handy schon voll geladen?"],
)  # fmt: skip
async def test_a_misfit_stand_in_for_how_another_thing_is_says_it_cannot_be_read(
    chosen, question, tmp_path
):
    script = [propose(chosen), "Ja, de tv staat nog aan."]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    said = ("Dat kan ik niet", "Non posso verificarlo", "I can't check", "Das kann ich nicht")
    assert result.text.startswith(said)
    assert "aan." not in result.text and backend.remaining == 1


@pytest.mark.parametrize(
    ("chosen", "question"),
    [
        ("web_switched_off", "search the web: is my phone still charging?"),  # in words
        ("web_switched_off", "how many watts does a TV use?"),  # a TV in general
        ("change_something", "turn my laptop off"),
    ],
)
async def test_a_stand_in_asked_for_in_words_is_kept_for_another_thing(chosen, question, tmp_path):
    loop, _, _ = loop_for(household(), [propose(chosen), "Fine."], tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=OFF, owner="o")
    said = ("Web search is", "Die Websuche ist", "I can only read")
    assert result.text.startswith(said), result.text
