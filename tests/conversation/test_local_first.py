"""Before a question's words leave the device about the one household family it names,
the product reads that family here (the turn loop's local-first rule; docs/decisions/
offered-tools-and-arguments.md, "What the device can read is read before a search")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sovereign.capabilities import pihole
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.offer.subjects import asks_for_the_web
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.sentences import own
from sovereign.executor import Locality

from .answer.test_finish import health
from .conftest import ON
from .test_answers_from_what_ran import capability, registry_of
from .test_named_read import household, turn
from .test_stand_ins import loop_for


def searched(query):
    return propose("web_search", {"query": query})


def health_read(*facts, rest="nothing_else"):
    return propose("system_health", {"facts": list(facts), "also_asked": rest})


FORCED_HEALTH = {"type": "function", "function": {"name": "system_health"}}


async def test_a_search_about_the_device_becomes_the_devices_read(tmp_path):
    question = "¿Cuánta memoria le queda al servidor?"
    script = [searched("memoria servidor"), health_read("memory")]
    result, backend = await turn(question, script, tmp_path)
    assert result.pending_confirmation is None  # no card: nothing was to leave
    assert [(r.capability, r.outcome) for r in result.receipts] == [("system.health", "executed")]
    assert "5,3" in result.text  # the free memory, stated by the product in Spanish
    # The model chose which facts, in a request admitting that read alone.
    forced = backend.requests[1]
    assert forced.tool_choice == FORCED_HEALTH
    assert forced.messages == backend.requests[0].messages
    assert len(backend.requests) == 2  # the facts answer the whole question


async def test_after_the_facts_the_model_decides_again_with_the_search_still_offered(tmp_path):
    question = "¿Cuánta memoria le queda al servidor?"
    script = [searched("memoria servidor"), health_read("memory", rest="something_else")]
    result, backend = await turn(question, [*script, ModelReply()], tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert "web_search" in [t["function"]["name"] for t in backend.requests[2].tools]


async def test_a_backend_that_does_not_force_the_read_leaves_the_general_check(tmp_path):
    script = [searched("memoria servidor"), ModelReply(), ModelReply()]
    result, _ = await turn("¿Cuánta memoria le queda al servidor?", script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert "5,3" in result.text


async def test_a_search_still_wanted_after_the_facts_is_proposed_with_its_card(tmp_path):
    news = searched("Raspberry Pi 5 news")
    script = [news, health_read(rest="something_else"), news]
    result, _ = await turn("Any news about the Raspberry Pi 5 server?", script, tmp_path)
    card = result.pending_confirmation
    assert card is not None and card.capability == "web.search"
    assert [r.capability for r in result.receipts] == ["system.health"]  # read first


async def test_a_search_for_a_question_naming_no_family_is_left_as_it_is(tmp_path):
    question = "Who won the match yesterday?"
    result, backend = await turn(question, [searched(question)], tmp_path)
    assert result.pending_confirmation is not None
    assert len(backend.requests) == 1


@pytest.mark.parametrize(
    "question",
    [
        "Is the kitchen light on, and is the server hot?",
        "hey, is the little box under the TV coping ok? its light has been blinking a lot",
        "¿Se ha reiniciado solo el cacharro esta semana? Anoche se fue la luz un rato",
    ],
)
async def test_of_two_families_named_the_one_the_device_can_read_is_read_first(question, tmp_path):
    # The home's lights are named too, and Home Assistant is not set up: the device is
    # the one family named that can be read here.
    script = [searched(question), health_read(rest="something_else"), ModelReply()]
    result, _ = await turn(question, script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert result.pending_confirmation is None


async def test_a_read_the_model_must_fill_is_asked_for_with_that_read_alone(tmp_path):
    pihole_read = replace(
        health(),
        name="pihole.summary",
        arguments_schema={
            "type": "object",
            "required": ["period"],
            "properties": {"period": {"enum": ["last_24_hours", "last_30_days"]}},
        },
        phrases=pihole.PHRASES,
    )
    web = capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL)
    loop, backend, _ = loop_for(
        registry_of(pihole_read, web),
        [
            searched("trackers blocked last month"),
            propose("pihole_summary", {"period": "last_30_days"}),
            ModelReply(),
        ],
        tmp_path,
    )
    question = "How many trackers did our ad blocker stop last month?"
    result = await loop.process_turn([{"role": "user", "content": question}], policy=ON, owner="o")
    assert [(r.capability, r.outcome) for r in result.receipts] == [("pihole.summary", "executed")]
    forced = backend.requests[1]
    assert forced.tool_choice == {"type": "function", "function": {"name": "pihole_summary"}}
    assert forced.messages == backend.requests[0].messages  # the same question, nothing added


async def test_a_status_question_taken_for_a_change_is_read_and_a_real_change_still_said(
    tmp_path,
):
    # "le mini-pc … il déborde ?" asks how full it is; the model chose the change stand-in.
    question = "le mini-pc il déborde ou je peux encore y mettre des vidéos ?"
    script = [propose("change_something"), health_read("disk")]
    result, backend = await turn(question, script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert backend.requests[1].tool_choice == FORCED_HEALTH
    assert own("cannot_change", Voice("fr")) not in result.text
    assert "Go" in result.text  # the free disk, stated in French
    # A change asked for is still said to be impossible, after what could be read.
    change = propose("change_something")
    script = [change, health_read(rest="something_else"), change, ModelReply()]
    result, _ = await turn("Restart the server.", script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert "can't switch, lock, set or change anything" in result.text


async def test_a_page_the_question_names_is_read_as_asked(tmp_path):
    registry = household()
    registry.add(
        capability(
            "web.fetch",
            policy_key="external_enabled",
            locality=Locality.EXTERNAL,
            schema={
                "type": "object",
                "required": ["url"],
                "properties": {"url": {"type": "string", "format": "uri"}},
            },
        )
    )
    question = "What does https://example.org/pi says about the server's memory?"
    script = [propose("web_fetch", {"url": "https://example.org/pi"})]
    result, backend = await turn(question, script, tmp_path, registry=registry)
    assert result.pending_confirmation is not None
    assert result.pending_confirmation.capability == "web.fetch"
    assert result.receipts == [] and len(backend.requests) == 1


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Search the web for the latest Raspberry Pi 5 firmware.", "en"),
        ("Such im Internet nach neuer Firmware für den Raspberry Pi", "de"),
        ("Cherche sur internet le firmware du mini-pc", "fr"),
        ("Busca en internet el firmware del servidor", "es"),
        ("Zoek online de nieuwste firmware voor de server", "nl"),
        ("Cerca online il firmware per il server", "it"),
    ],
)
async def test_a_search_the_question_asks_for_in_words_is_proposed_as_asked(
    question, language, tmp_path
):
    assert asks_for_the_web(question, language)
    result, backend = await turn(question, [searched("firmware")], tmp_path)
    assert result.pending_confirmation is not None
    assert result.pending_confirmation.capability == "web.search"
    assert result.receipts == [] and len(backend.requests) == 1


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("how many trackers has our ad zapper swatted over the past month", "en"),
        ("Wie viele Anfragen sind durch unsern Werbeschlucker durchgerauscht?", "de"),
        ("le mini-pc il déborde ?", "fr"),
        ("¿cuántos rastreadores lleva cazados el quitaanuncios de casa?", "es"),
        ("hoeveel domeinen weet onze reclamezeef te weren?", "nl"),
        ("il serverino sotto la scrivania è pieno?", "it"),
    ],
)
def test_a_question_that_names_no_search_does_not_ask_for_the_web(question, language):
    assert not asks_for_the_web(question, language)


HA_NOT_SET_UP_NL = (
    "Home Assistant is niet ingesteld op dit apparaat, dus ik kan de sensoren, lampen en "
    "sloten van je huis niet uitlezen."
)


@pytest.mark.parametrize(
    "question",
    [
        "Staat de verwarming boven nog aan?",
        "Quanti gradi ci sono in camera da letto adesso?",
        "What's the temperature in the kitchen?",
    ],
)
async def test_a_read_of_another_family_gives_way_to_the_named_one_s_stand_in(question, tmp_path):
    result, backend = await turn(question, [health_read("temperature")], tmp_path)
    assert result.receipts == []  # the device's temperature is not the home's: nothing ran
    assert len(backend.requests) == 1
    if question.startswith("Staat"):
        assert result.text == HA_NOT_SET_UP_NL
    else:
        assert "Home Assistant" in result.text


async def test_a_read_of_another_family_gives_way_to_the_named_one_s_read(tmp_path):
    hallway = propose("home_assistant_get_state", {"entity_id": "sensor.hallway"})
    result, backend = await turn(
        "How warm is it in the hallway?",
        [health_read("temperature"), hallway, ModelReply(), "It is warm."],
        tmp_path,
        registry=household(home_assistant=True),
    )
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    forced = backend.requests[1].tool_choice
    assert forced == {"type": "function", "function": {"name": "home_assistant_get_state"}}


@pytest.mark.parametrize(
    "question",
    [
        "How warm is the box in the hallway?",  # the device, placed in the hallway
        "Is the kitchen warm, and how hot is the device?",  # both named
        "How hot is it?",  # nothing named: the model's choice stands
    ],
)
async def test_a_read_of_a_family_the_question_names_or_of_any_when_none_is_stands(
    question, tmp_path
):
    # two questions ("…, and how …?"), one read: the model decides again after the facts
    result, _ = await turn(question, [health_read("temperature"), ModelReply()], tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]


def pihole_and_web(*, set_up=True, device=True):
    """Pi-hole's read (set up or not), a web search and, with ``device``, the device's
    read."""
    ads = replace(health(), name="pihole.summary", phrases=pihole.PHRASES, available=lambda: set_up)
    web = capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL)
    return registry_of(*([health()] if device else []), ads, web)


def pihole_not_set_up():
    """The device's read, Pi-hole's (not set up) and a web search."""
    return pihole_and_web(set_up=False)


@pytest.mark.parametrize(
    "question",
    [
        "Is Pi-hole set up on this box?",
        "How many ads did the server block today?",
        "¿Cuántos anuncios ha bloqueado hoy el servidor?",
        "Hoeveel advertenties heeft de server vandaag geblokkeerd?",
    ],
)
async def test_a_family_named_beside_the_one_read_is_said_to_be_missing(question, tmp_path):
    # The model reads the device; Pi-hole, named too, is not set up: both are said.
    result, _ = await turn(question, [health_read()], tmp_path, registry=pihole_not_set_up())
    assert [r.capability for r in result.receipts] == ["system.health"]
    stated, missing = result.text.rsplit(". ", 1)
    assert "Pi-hole" in missing and "Pi-hole" not in stated, result.text
    assert "5.3" in stated or "5,3" in stated  # the device's free memory, from its result


async def test_a_question_naming_the_read_family_alone_is_told_nothing_missing(tmp_path):
    question = "How much memory does the server have left?"
    registry = pihole_not_set_up()
    result, _ = await turn(question, [health_read("memory")], tmp_path, registry=registry)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert "Pi-hole" not in result.text


@pytest.mark.parametrize(
    "question",
    [
        "quante pubblicità ha fermato il blocca-annunci questo mese?",
        "How many ads did the ad blocker stop this week?",
        "Wie viele Tracker hat unser Werbefilter heute geblockt?",
        "¿cuántos anuncios ha bloqueado hoy?",
    ],
)
async def test_a_search_for_a_withheld_family_gives_way_to_its_stand_in(question, tmp_path):
    # Pi-hole, named, is not set up; the model would search the web for its figures.
    registry = pihole_and_web(set_up=False, device=False)
    result, backend = await turn(
        question, [searched("pihole ads blocked")], tmp_path, registry=registry
    )
    assert result.pending_confirmation is None  # no card: nothing leaves the device
    assert result.receipts == [] and len(backend.requests) == 1
    assert "Pi-hole" in result.text


async def test_a_search_for_a_withheld_family_asked_for_in_words_is_proposed(tmp_path):
    question = "Search the web for how many ads a pi-hole blocks in a month"
    registry = pihole_and_web(set_up=False, device=False)
    result, _ = await turn(
        question, [searched("pi-hole ads blocked per month")], tmp_path, registry=registry
    )
    assert result.pending_confirmation is not None
    assert result.pending_confirmation.capability == "web.search"


async def test_a_search_beside_the_home_not_set_up_is_proposed(tmp_path):
    # Home Assistant's reads are approved first and never come before a search, so with
    # the home not set up a search the model chose for a place of it stands.
    question = "Will it be cold in the garden tonight?"
    registry = household(home_locality=Locality.EXTERNAL)  # as Home Assistant is
    script = [searched("garden frost tonight")]
    result, _ = await turn(question, script, tmp_path, registry=registry)
    assert result.pending_confirmation is not None
    assert result.pending_confirmation.capability == "web.search"


@pytest.mark.parametrize(
    "second",
    [propose("answer_the_rest"), ModelReply(), ModelReply(content="Ad blocking is not on.")],
)
async def test_after_the_facts_a_named_family_not_yet_read_is_read(second, tmp_path):
    # The device was read; the model would then answer the rest in its own words, and
    # the question names Pi-hole too: Pi-hole is read instead.
    question = "Is ad blocking on, and how long has the device been running?"
    ads = propose("pihole_summary", {"facts": ["status"], "also_asked": "nothing_else"})
    script = [health_read("uptime"), second, ads, ModelReply()]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert [r.capability for r in result.receipts] == ["system.health", "pihole.summary"]
    assert "Ad blocking is not on" not in result.text
    forced = backend.requests[2].tool_choice
    assert forced == {"type": "function", "function": {"name": "pihole_summary"}}


async def test_after_the_facts_a_question_naming_only_what_was_read_ends(tmp_path):
    question = "How long has the device been running?"
    script = [health_read("uptime", rest="something_else"), propose("answer_the_rest"), "Fine."]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert len(backend.requests) == 3  # the answer the model was asked for: no read


async def test_a_read_of_the_home_the_question_names_is_not_replaced_by_the_device_s(tmp_path):
    # Home Assistant's read leaves the device (it is approved first), but the question
    # names the back door: it is what is asked for, beside the device.
    door = propose(
        "home_assistant_get_state",
        {"entity_id": "lock.back_door", "also_asked": "nothing_else"},
    )
    registry = household(home_assistant=True, home_locality=Locality.EXTERNAL)
    question = "Is the back door locked, and how hot is the device itself?"
    result, _ = await turn(
        question, [door, health_read("temperature")], tmp_path, registry=registry
    )
    assert result.pending_confirmation is not None
    assert result.pending_confirmation.capability == "home_assistant.get_state"
    assert result.receipts == []  # the device is not read in its place
