"""A question naming one household family, which the model would answer without a
call, is read by the product (sovereign.conversation.offer.subjects.named_read;
docs/decisions/offered-tools-and-arguments.md, "The product reads the family a
question names")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sovereign.capabilities import home_assistant_facts, pihole
from sovereign.conversation import ToolCatalog
from sovereign.conversation.backends.base import ModelReply, allowed_choice, forced_tools
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.offer.choices import general_check
from sovereign.conversation.offer.subjects import named_families, named_read
from sovereign.conversation.voice.catalogs import Voice
from sovereign.conversation.voice.sentences import own
from sovereign.executor import Locality

from .answer.test_finish import health
from .conftest import ON
from .test_answers_from_what_ran import capability, registry_of
from .test_stand_ins import loop_for


def household(
    *, health_locality=Locality.LOCAL, home_assistant=False, home_locality=Locality.LOCAL
):
    return registry_of(
        replace(health(), locality=health_locality),
        capability(
            "home_assistant.get_state",
            available=lambda: home_assistant,
            locality=home_locality,
            phrases=home_assistant_facts.PHRASES,
            facts=home_assistant_facts.GET_STATE_FACTS,
            schema={
                "type": "object",
                "required": ["entity_id"],
                "properties": {"entity_id": {"type": "string"}},
            },
        ),
        capability("web.search", policy_key="external_enabled", locality=Locality.EXTERNAL),
    )


async def turn(question, script, tmp_path, *, registry=None):
    loop, backend, _ = loop_for(registry or household(), script, tmp_path)
    result = await loop.process_turn([{"role": "user", "content": question}], policy=ON, owner="o")
    return result, backend


FILLED = propose("system_health", {"facts": ["memory"], "also_asked": "nothing_else"})
"""The model's fill of the read the product proposes: the facts asked about, nothing else."""


@pytest.mark.parametrize(
    ("question", "decision"),
    [
        ("¿Cuánta memoria le queda al servidor?", ModelReply()),
        ("il serverino è bollente, è normale?", propose("general_knowledge")),
        ("Is the box alright?", ModelReply()),
        ("Il te reste de la mémoire ?", propose("general_knowledge")),  # asked about itself
    ],
)
async def test_a_device_question_answered_from_nothing_is_read_by_the_product(
    question, decision, tmp_path
):
    result, backend = await turn(question, [decision, FILLED], tmp_path)
    assert [(r.capability, r.outcome) for r in result.receipts] == [("system.health", "executed")]
    assert [f.capability for f in result.facts] == ["system.health"]
    assert "5.3" in result.text or "5,3" in result.text  # the free memory, from the result
    # The model fills the read with that tool alone admitted, and its "nothing else"
    # ends the turn with the product's sentences: no prose of the model's.
    assert len(backend.requests) == 2
    assert backend.requests[1].tool_choice != "auto"
    assert backend.requests[1].messages == backend.requests[0].messages  # the prefix cached
    assert "CPU" not in result.text  # the fact asked about, not every key fact


async def test_a_fill_that_says_something_else_is_asked_leaves_the_rest_to_the_model(tmp_path):
    filled = propose("system_health", {"facts": ["memory"], "also_asked": "something_else"})
    script = [propose("general_knowledge"), filled, propose("answer_the_rest"), "A card game."]
    result, backend = await turn("Is memory on the server a card game?", script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert "answer_the_rest" in [t["function"]["name"] for t in backend.requests[2].tools]
    assert result.text.endswith("A card game.")


async def test_a_backend_that_does_not_fill_the_read_gets_the_general_check(tmp_path):
    script = [ModelReply(), ModelReply(), ModelReply()]
    result, backend = await turn("How is the server doing?", script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    # all key facts, briefly, and the model asked for the rest after them
    assert "answer_the_rest" in [t["function"]["name"] for t in backend.requests[2].tools]


async def test_what_else_the_question_asks_is_still_answered_by_the_model(tmp_path):
    script = [
        propose("general_knowledge"),
        ModelReply(),  # no fill: the product's general check
        propose("answer_the_rest"),
        "Memory is a card game.",
    ]
    question = "How is the server doing? And what are the rules of memory, the card game?"
    result, _ = await turn(question, script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert result.text.endswith("Memory is a card game.")


@pytest.mark.parametrize(
    "question",
    [
        "What are the rules of memory, the card game?",
        "trou de mémoire : c'est qui déjà le peintre des Nymphéas ?",
        "tengo una memoria fatal para los nombres de la gente, ¿algún truco?",
        "c'est quoi la différence entre la ram et le disque dur ?",
    ],
)
async def test_general_knowledge_chosen_about_a_part_any_computer_has_is_not_read(
    question, tmp_path
):
    script = [propose("general_knowledge"), "Claude Monet."]
    result, backend = await turn(question, script, tmp_path)
    assert result.receipts == [] and result.text == "Claude Monet."
    assert len(backend.requests) == 2  # the prose, asked once: nothing was read


@pytest.mark.parametrize(
    ("question", "decision"),
    [
        # names the device itself
        ("das kästchen ist heute so lahm, ist der prozessor am anschlag?", "general_knowledge"),
        ("il serverino è bollente, è normale?", "general_knowledge"),
        # a part alone, and the model chose nothing: read as before
        ("trou de mémoire : combien en reste-t-il ?", None),
    ],
)
async def test_general_knowledge_about_the_device_itself_or_no_choice_is_still_read(
    question, decision, tmp_path
):
    first = propose(decision) if decision else ModelReply()
    script = [first, FILLED, "unused"]
    result, _ = await turn(question, script, tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]


async def test_general_knowledge_about_a_family_without_names_of_its_own_is_still_read(
    tmp_path,
):
    # A door is the household's own, not a part every home has: the lock is read.
    filled = propose(
        "home_assistant_get_state", {"entity_id": "lock.back_door", "also_asked": "nothing_else"}
    )
    script = [propose("general_knowledge"), filled, "unused"]
    registry = household(home_assistant=True)
    result, _ = await turn(
        "did anyone remember to lock the back door", script, tmp_path, registry=registry
    )
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]


async def test_the_facts_are_said_in_the_questions_language(tmp_path):
    question = "¿Cuánta memoria le queda al servidor?"
    result, _ = await turn(question, [ModelReply(), FILLED], tmp_path)
    assert "5,3" in result.text  # HEALTH's available memory, written the Spanish way


@pytest.mark.parametrize(
    ("question", "script"),
    [
        # names no family: the model's own prose
        ("What is the capital of Peru?", [ModelReply(), "Lima."]),
        # another device of the household's, not this one
        ("Mein Handy meldet Speicher voll, was tun?", [ModelReply(), "Fotos löschen."]),
    ],
)
async def test_nothing_is_read_when_the_question_names_no_family_of_this_device(
    question, script, tmp_path
):
    result, _ = await turn(question, script, tmp_path)
    assert result.receipts == [] and result.facts == []


@pytest.mark.parametrize(
    ("question", "prose"),
    [
        ("How is the server doing?", "I cannot tell without a read."),
        ("alles fit bei dir? nicht dass du wieder schlapp machst", "Ja, alles in Ordnung."),
    ],
)
async def test_prose_for_a_question_naming_a_readable_family_is_held_and_the_family_read(
    question, prose, tmp_path
):
    loop, _, _ = loop_for(household(), [ModelReply(content=prose), FILLED], tmp_path)
    shown = []

    async def show(text):
        shown.append(text)

    ask = [{"role": "user", "content": question}]
    result = await loop.process_turn(ask, policy=ON, owner="o", on_token=show)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert prose not in result.text and prose not in "".join(shown)  # never shown


def home_elsewhere():
    """The device and Home Assistant, read on its own server (approved first)."""
    return household(home_assistant=True, home_locality=Locality.EXTERNAL)


async def test_a_home_question_answered_from_nothing_asks_to_read_a_thing_that_exists(
    tmp_path,
):
    prose = ModelReply(content="Yes, I remember locking the back door.")
    filled = propose(
        "home_assistant_get_state", {"entity_id": "lock.back_door", "also_asked": "nothing_else"}
    )
    loop, backend, _ = loop_for(home_elsewhere(), [prose, filled], tmp_path)
    ask = [{"role": "user", "content": "did anyone remember to lock the back door"}]
    result = await loop.process_turn(ask, policy=ON, owner="o")
    card = result.pending_confirmation
    assert card is not None and card.capability == "home_assistant.get_state"
    assert "remember" not in result.text
    again = backend.requests[1]
    assert again.tool_choice == allowed_choice(["home_assistant_get_state"])
    assert again.messages == backend.requests[0].messages  # the same prompt, cached


async def test_a_home_question_the_backend_will_not_fill_keeps_the_models_words(tmp_path):
    prose = ModelReply(content="I can't tell.")
    loop, _, _ = loop_for(home_elsewhere(), [prose, ModelReply()], tmp_path)
    ask = [{"role": "user", "content": "Is the front door locked?"}]
    result = await loop.process_turn(ask, policy=ON, owner="o")
    assert result.receipts == [] and result.pending_confirmation is None
    assert result.text == "I can't tell."


async def test_a_read_that_leaves_the_device_or_needs_an_argument_is_never_the_products_alone(
    tmp_path,
):
    # Only the model may propose it (asked to choose it, then approved first): a backend
    # that does not fill it leaves no call.
    away = household(health_locality=Locality.EXTERNAL)
    script = [ModelReply(), ModelReply(), "Fine."]
    result, backend = await turn("How is the server doing?", script, tmp_path, registry=away)
    assert result.receipts == [] and result.pending_confirmation is None
    assert backend.requests[1].tool_choice == allowed_choice(["system_health"])
    home = household(home_assistant=True)
    catalog = ToolCatalog.for_turn(home, {**ON, "home_assistant_enabled": True})
    named = named_families("Is the front door locked?", catalog.capabilities.values(), "en")
    assert named == {"home_assistant"}
    assert named_read(named, catalog.tools(), catalog) is None  # an entity is needed


async def test_of_two_families_named_only_the_one_that_can_be_read_here_is_read(tmp_path):
    question = "Is the kitchen light on, and is the server hot?"
    result, _ = await turn(question, [ModelReply(), FILLED], tmp_path)  # the home: not set up
    assert [r.capability for r in result.receipts] == ["system.health"]
    set_up = ToolCatalog.for_turn(household(home_assistant=True), ON)
    named = frozenset({"system", "home_assistant"})
    assert named_read(named, set_up.tools(), set_up) is None  # both can: the model's choice
    not_set_up = ToolCatalog.for_turn(household(), ON)
    assert named_read(named, not_set_up.tools(), not_set_up)["function"]["name"] == (
        "system_health"
    )


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("Is the little box under the TV coping ok? Its light keeps blinking.", True),
        ("Is the kitchen light on?", False),  # the home alone: its stand-in says it all
    ],
)
async def test_a_stand_in_for_one_family_named_leaves_the_other_read(question, read, tmp_path):
    script = [propose("smart_home_not_set_up"), FILLED, "unused"]
    result, _ = await turn(question, script, tmp_path)
    assert "Home Assistant is not set up" in result.text
    assert [r.capability for r in result.receipts] == (["system.health"] if read else [])


def test_the_general_check_names_no_topic_and_leaves_the_rest_to_the_model():
    catalog = ToolCatalog.for_turn(household(), ON)
    read = named_read(frozenset({"system"}), catalog.tools(), catalog)
    assert read is not None and read["function"]["name"] == "system_health"
    assert general_check(read) == {
        "facts": [],
        "also_asked": "something_else",
    }
    web_search = next(t for t in catalog.tools() if t["function"]["name"] == "web_search")
    assert general_check(web_search) == {}
    assert named_read(frozenset({"home_assistant"}), catalog.tools(), catalog) is None
    assert named_read(frozenset(), catalog.tools(), catalog) is None


def test_a_read_whose_round_requires_an_argument_is_left_to_the_model():
    pihole_read = replace(
        health(),
        name="pihole.summary",
        arguments_schema={"type": "object", "properties": {"period": {"type": "string"}}},
        phrases=pihole.PHRASES,
    )
    catalog = ToolCatalog.for_turn(registry_of(pihole_read), ON)
    tools = catalog.tools()
    assert named_read(frozenset({"pihole"}), tools, catalog) == tools[0]
    assert tools[0]["function"]["name"] == "pihole_summary"
    function = tools[0]["function"]
    narrowed = {**function, "parameters": {**function["parameters"], "required": ["period"]}}
    # A span named ("this month") makes the period required: only the model may fill it.
    assert named_read(frozenset({"pihole"}), [{**tools[0], "function": narrowed}], catalog) is None


@pytest.mark.parametrize(
    "question",
    [
        "ik wil extra RAM in m'n pc prikken, waar moet ik op letten?",
        "Mein Handyspeicher ist schon wieder voll, was kann ich löschen?",
        "My laptop is slow. Is the memory the problem?",
    ],
)
async def test_a_fact_of_another_thing_of_the_family_is_not_read_from_the_device(
    question, tmp_path
):
    prose = "Look for the memory type your motherboard takes."
    script = [FILLED, propose("general_knowledge"), prose]
    loop, backend, _ = loop_for(household(), script, tmp_path)
    ask = [{"role": "user", "content": question}]
    result = await loop.process_turn(ask, policy=ON, owner="o")
    assert result.receipts == [] and result.text == prose
    first, again = backend.requests[:2]
    offered = [t["function"]["name"] for t in first.tools]
    # Chosen again without the read, and without any household family's stand-in: the
    # question is about a thing of no family here.
    assert "smart_home_not_set_up" in offered
    household_owned = {"system_health", "smart_home_not_set_up"}
    assert again.tool_choice == allowed_choice([n for n in offered if n not in household_owned])


async def test_a_fact_singled_out_stays_read_where_no_other_thing_is_named(tmp_path):
    result, _ = await turn("How much is free?", [FILLED], tmp_path)
    assert [r.capability for r in result.receipts] == ["system.health"]


async def test_a_family_s_stand_in_for_another_thing_of_the_household_s_gives_way_to_prose(
    tmp_path,
):
    prose = "Check which memory type and speed your motherboard supports."
    question = "ik wil extra RAM in m'n pc prikken, waar moet ik op letten?"
    result, backend = await turn(question, [propose("smart_home_not_set_up"), prose], tmp_path)
    assert result.receipts == [] and result.text == prose and backend.remaining == 0
    # The prose is asked without what the turn withholds: nothing of it is the answer
    # (the model wrote that it is not possible "omdat je het niet ingesteld hebt").
    decision, writing = (request.messages[0]["content"] for request in backend.requests)
    assert "Home Assistant" in decision and "Home Assistant" not in writing
    assert writing.startswith(decision.split("\nRight now:")[0])
    # A question naming the home keeps the stand-in: it says what is missing.
    result, _ = await turn("Is the heating on?", [propose("smart_home_not_set_up")], tmp_path)
    assert "Home Assistant" in result.text


@pytest.mark.parametrize(
    "question",
    [
        "what should the fridge actually be set on? ours has a dial going 1 to 7",
        "¿a qué temperatura pongo el horno para asar un pollo de kilo y medio?",
    ],
)
async def test_a_family_s_stand_in_for_advice_about_a_thing_of_the_home_gives_way_to_prose(
    question, tmp_path
):
    prose = "Set it to the middle of the dial."
    result, backend = await turn(question, [propose("smart_home_not_set_up"), prose], tmp_path)
    assert result.receipts == [] and result.text == prose and backend.remaining == 0


CANNOT_CHANGE = "I can only read things here; I can't switch, lock, set or change anything."


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Is the back door still locked? The little one can't sleep", "en"),
        ("zit de achterdeur nog op slot? de kleine kan niet slapen", "nl"),
        ("back door locked tonight please", "en"),  # a change the words do not spell out
    ],
)
async def test_the_change_stand_in_for_a_part_that_can_be_read_reads_it_and_says_so(
    question, language, tmp_path
):
    filled = propose(
        "home_assistant_get_state", {"entity_id": "lock.back_door", "also_asked": "nothing_else"}
    )
    script = [propose("change_something"), filled, ModelReply(), "unused"]
    loop, backend, _ = loop_for(home_elsewhere(), script, tmp_path)
    ask = [{"role": "user", "content": question}]
    card = (await loop.process_turn(ask, policy=ON, owner="o")).pending_confirmation
    assert card is not None and card.capability == "home_assistant.get_state"
    assert backend.requests[1].tool_choice == allowed_choice(["home_assistant_get_state"])
    result = await loop.resume_turn(card.token, True, policy=ON, owner="o")
    assert [r.capability for r in result.receipts] == ["home_assistant.get_state"]
    assert own("cannot_change", Voice(language)) in result.text


async def test_the_change_stand_in_for_a_change_asked_in_words_reads_nothing(tmp_path):
    loop, _, _ = loop_for(home_elsewhere(), [propose("change_something"), "unused"], tmp_path)
    ask = [{"role": "user", "content": "lock the back door please"}]
    result = await loop.process_turn(ask, policy=ON, owner="o")
    assert result.receipts == [] and result.pending_confirmation is None
    assert result.text == CANNOT_CHANGE


async def test_a_search_read_locally_instead_is_not_asked_for_in_the_question_s_language(
    tmp_path,
):
    # The question names the device: its health is read instead of the search, so the
    # search's language (English for a Spanish question) is not asked about again.
    query = {"type": "string", "x-household-words": True}
    search = capability(
        "web.search",
        policy_key="external_enabled",
        locality=Locality.EXTERNAL,
        schema={"type": "object", "required": ["query"], "properties": {"query": query}},
    )
    registry = registry_of(health(), search)
    english = propose("web_search", {"query": "since when has the server been on"})
    question = "desde cuándo está encendido el servidor sin apagarse? hubo un apagón"
    result, backend = await turn(question, [english, FILLED], tmp_path, registry=registry)
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert forced_tools(backend.requests[1].tool_choice) == ("system_health",)
    assert len(backend.requests) == 2
