"""From a model reply to proposals (proposals.adopt): a decision's `also_asked` read
against the question's own words (docs/decisions/answers-rendered-by-the-product.md,
point 3), so a question whose words ask more than the calls read is asked about again;
and a follow-up's window, which the turn loop carries on from the question before."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sovereign.capabilities import pihole, system
from sovereign.conversation.answer.checks import without_repeats
from sovereign.conversation.answer.facts import render
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import propose
from sovereign.conversation.offer.subjects import questions_in
from sovereign.conversation.voice.catalogs import Voice

from .answer.test_facts import HEALTH
from .answer.test_finish import health
from .conftest import ON
from .test_answers_from_what_ran import registry_of
from .test_local_first import health_read, pihole_and_web
from .test_named_read import turn
from .test_stand_ins import loop_for


def offered(request):
    return [tool["function"]["name"] for tool in request.tools]


@pytest.mark.parametrize(
    "question",
    [
        "How hot is the device, and how many queries did Pi-hole block today?",
        "Wie warm ist das Gerät, und wie viele Werbeanzeigen hat Pi-hole heute geblockt?",
        "¿Cuánta memoria le queda al servidor? ¿Y cuántos anuncios se han bloqueado hoy?",
    ],
)
async def test_a_second_family_named_is_asked_about_though_the_decision_said_nothing_else(
    question, tmp_path
):
    ads = propose("pihole_summary", {"facts": [], "also_asked": "nothing_else"})
    script = [health_read("temperature"), ads, ModelReply()]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert [r.capability for r in result.receipts] == ["system.health", "pihole.summary"]
    assert len(backend.requests) == 2  # the second read said nothing else: the turn ends


@pytest.mark.parametrize(
    "question",
    [
        "Joh, jij staat daar naast de cv-ketel, word je niet te heet? Hoe warm is je processor?",
        "How long has the device been up? And is the device hot?",
        "¿Está lleno el disco del servidor? ¿Cuánta memoria le queda al servidor?",
    ],
)
async def test_questions_that_all_name_the_family_read_are_answered_by_its_facts(
    question, tmp_path
):
    script = [health_read("temperature")]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert len(backend.requests) == 1  # nothing more was asked: the facts end the turn


async def test_a_second_question_naming_no_family_is_still_asked_about(tmp_path):
    question = "How long has the device been up? And who wrote Les Misérables?"
    script = [health_read("uptime"), propose("answer_the_rest", {}), "Victor Hugo."]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert len(backend.requests) == 3  # decided again, then the prose
    assert result.text.endswith("Victor Hugo.")


@pytest.mark.parametrize(
    "question",
    [
        "How long has the device been up? And who wrote Les Misérables?",
        "Depuis quand le boîtier tourne ? Et au fait, qui a écrit Les Misérables ?",
        "¿Cuánto lleva encendido el aparato? y de paso, ¿cómo se dice «enchufe» en inglés?",
        "Wie lange läuft das Gerät schon?? Und wer schrieb „Die Verwandlung“?",
        "Wie lange läuft das Gerät schon? und wer hat eigentlich den Faust geschrieben",
        "how long has the device been up and who wrote les miserables",
    ],
)
async def test_a_question_the_calls_leave_unread_is_answered_after_the_facts(question, tmp_path):
    script = [health_read("uptime"), "Victor Hugo."]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert len(backend.requests) == 2  # two questions, one call: asked again for the rest
    assert result.text.endswith("Victor Hugo.")


@pytest.mark.parametrize(
    ("question", "rest"),
    [
        ("How long has the device been up? And who wrote Les Misérables?",
         "And who wrote Les Misérables?"),
        ("Depuis quand le boîtier tourne ? Et au fait, qui a écrit Les Misérables ?",
         "Et au fait, qui a écrit Les Misérables ?"),
        ("Who wrote Les Misérables? And how long has the device been up?",
         "Who wrote Les Misérables?"),
        ("Depuis quand le boîtier tourne ? et qui a écrit Les Misérables",
         "et qui a écrit Les Misérables"),
    ],
)  # fmt: skip
async def test_the_rest_is_the_question_the_facts_leave_unanswered(question, rest, tmp_path):
    script = [health_read("uptime"), propose("answer_the_rest", {}), "Victor Hugo."]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    asked = [m["content"] for m in backend.requests[2].messages if m["role"] == "user"]
    assert asked[-1] == rest  # the prose is asked for the rest alone
    # as a question of its own: the call and its result, said already, are not after it
    assert backend.requests[2].messages[-1] == {"role": "user", "content": rest}
    assert result.text.endswith("Victor Hugo.")
    decided = [m["content"] for m in backend.requests[1].messages if m["role"] == "user"]
    assert decided[-1] == question  # the decisions read the whole message


@pytest.mark.parametrize(
    "question",
    [
        "How long has the device been up?",  # one question
        "Is it up? Who wrote it?",  # no question names the device: which is answered?
        "How long has the device been up? And is the device hot?",  # both name it
    ],
)
async def test_no_rest_is_named_when_the_product_cannot_tell_it(question, tmp_path):
    uptime = propose("system_health", {"facts": ["uptime"], "also_asked": "something_else"})
    script = [uptime, propose("answer_the_rest", {}), "Fine."]
    _, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    told = " ".join(m["content"] for m in backend.requests[2].messages)
    assert "The device itself has already told the person" in told  # the prose request
    asked = [m["content"] for m in backend.requests[2].messages if m["role"] == "user"]
    assert asked[-1] == question


@pytest.mark.parametrize(
    ("text", "language", "count"),
    [
        ("how hot is it", "en", 1),  # begins with a question word
        ("the disk", "en", 0),
        ("how hot is it?", "en", 1),
        ("how hot is it?? and the disk?", "en", 2),  # a run counts once
        ("¿Cuánta memoria? ¿Y el disco?", "es", 2),
        ("Quelle charge ? Et le disque ?", "fr", 2),
        ("read http://example.org/?q=1 please", "en", 0),  # inside an address
        ("is it «on?» and", "en", 1),
        ('who said "why?" first?', "en", 2),
        ("wie warm isses? und wer hat den faust geschrieben", "de", 2),  # no second mark
    ],
)
def test_questions_are_counted_by_their_marks_and_their_question_words(text, language, count):
    assert questions_in(text, language) == count


async def test_a_search_asked_for_in_words_is_decided_after_the_facts(tmp_path):
    question = (
        "Check how full the disk is, then search the web for how to free up disk space on Linux."
    )
    script = [health_read("disk"), ModelReply()]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert len(backend.requests) == 2  # asked again, with the search still offered
    assert "web_search" in offered(backend.requests[1])


@pytest.mark.parametrize(
    "question",
    [
        "How much memory is free on the device?",
        "Quanto spazio resta sul disco del server?",
        "How hot is the device? My phone says it is fine.",  # another thing, no family
    ],
)
async def test_a_question_naming_only_what_was_read_ends_with_the_facts(question, tmp_path):
    script = [health_read("memory")]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert [r.capability for r in result.receipts] == ["system.health"]
    assert len(backend.requests) == 1


async def test_a_follow_up_counts_over_the_window_the_question_before_named(tmp_path):
    # The capability's own schema, with its period marked as a time window.
    ads = replace(
        health(),
        name="pihole.summary",
        phrases=pihole.PHRASES,
        arguments_schema=pihole.ARGUMENTS_SCHEMA,
    )
    loop, backend, _ = loop_for(registry_of(health(), ads), [ModelReply()] * 3, tmp_path)
    history = [
        {"role": "user", "content": "hoeveel heeft pihole deze week geblokkeerd?"},
        {"role": "assistant", "content": "Deze week heeft Pi-hole 10.215 verzoeken geblokkeerd."},
        {"role": "user", "content": "hoeveel procent is dat van alles"},
    ]
    await loop.process_turn(history, policy=ON, owner="o")
    (tool,) = [t for t in backend.requests[0].tools if t["function"]["name"] == "pihole_summary"]
    parameters = tool["function"]["parameters"]
    assert parameters["properties"]["period"]["enum"] == ["last_7_days"]
    assert "period" in parameters["required"]


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("e in percentuale sul totale?", ["pihole.summary"]),  # a fact of Pi-hole's
        ("what is the capital of France?", []),  # no fact: goes on from nothing
    ],
)
async def test_a_follow_up_naming_a_fact_of_the_family_before_is_read_not_answered(
    question, read, tmp_path
):
    ads = replace(health(), name="pihole.summary", phrases=pihole.PHRASES, facts=pihole.FACTS)
    filled = propose("pihole_summary", {"facts": ["blocked"], "also_asked": "nothing_else"})
    script = [ModelReply(content="41.870 richieste su 1.000.000."), filled, *[ModelReply()] * 3]
    loop, _, _ = loop_for(registry_of(health(), ads), script, tmp_path)
    history = [
        {"role": "user", "content": "quante pubblicità ha bloccato il pihole oggi?"},
        {"role": "assistant", "content": "Oggi Pi-hole ha bloccato 1.116 richieste su 14.890."},
        {"role": "user", "content": question},
    ]
    result = await loop.process_turn(history, policy=ON, owner="o")
    assert [r.capability for r in result.receipts] == read
    assert ("41.870" in result.text) is not bool(read)


@pytest.mark.parametrize(
    ("question", "rest"),
    [
        ("How long has the device been up? And who wrote Les Misérables?",
         "And who wrote Les Misérables?"),
        ("hoe lang draait de server al? en wat is de hoofdstad van noorwegen",
         "en wat is de hoofdstad van noorwegen"),
    ],
)  # fmt: skip
async def test_a_question_left_unread_is_answered_though_the_model_chooses_nothing_more(
    question, rest, tmp_path
):
    script = [health_read("uptime"), ModelReply(), "Victor Hugo."]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    asked = [m["content"] for m in backend.requests[2].messages if m["role"] == "user"]
    assert asked[-1] == rest  # the prose is asked for the rest alone
    assert result.text.endswith("Victor Hugo.")


async def test_a_question_about_a_household_family_left_unread_is_not_answered_from_nothing(
    tmp_path,
):
    question = "Is the kitchen warm, and how hot is the device?"  # the home is not set up
    script = [health_read("temperature"), ModelReply()]
    result, backend = await turn(question, script, tmp_path)
    assert len(backend.requests) == 2 and backend.remaining == 0  # no prose asked for
    assert [r.capability for r in result.receipts] == ["system.health"]


@pytest.mark.parametrize(
    "chooses", [propose("answer_the_rest"), ModelReply()], ids=["the rest", "nothing more"]
)
async def test_the_prose_for_a_general_question_after_the_facts_is_not_checked_against_them(
    chooses, tmp_path
):
    question = "How long has the device been up? And who discovered penicillin?"
    prose = "Alexander Fleming discovered penicillin in 1928."  # a year no result holds
    script = [health_read("uptime"), chooses, prose]
    result, backend = await turn(question, script, tmp_path, registry=pihole_and_web())
    assert result.text.endswith(prose)
    assert backend.remaining == 0  # asked once, kept


async def test_the_prose_for_a_household_question_left_unread_is_still_checked(tmp_path):
    question = "How long has the device been up? And is the kitchen warm?"  # no home here
    prose = "It is 21 degrees in the kitchen."
    script = [health_read("uptime"), propose("answer_the_rest"), prose, prose]
    result, backend = await turn(question, script, tmp_path)  # Home Assistant not set up
    assert "21 degrees" not in result.text  # asked again once, then left out
    assert backend.remaining == 0


def pihole_reading():
    """Pi-hole's read, as the capability declares it, over a canned result."""

    async def execute(arguments):
        return {
            "period": arguments.get("period", "last_24_hours"),
            "queries_total": 7497,
            "queries_blocked": 3465,
            "percent_blocked": 46.2,
            "domains_on_blocklist": 104756,
            "blocking_status": "enabled",
            "retrieved_at": "2026-12-06T12:00:00Z",
        }

    return replace(
        health(),
        name="pihole.summary",
        arguments_schema=pihole.ARGUMENTS_SCHEMA,
        facts=pihole.FACTS,
        phrases=pihole.PHRASES,
        execute=execute,
    )


COUNTS_BACK = "These figures count back from now; I have none for the day or time you named"


@pytest.mark.parametrize(
    ("conversation", "said"),
    [
        (["How many queries did Pi-hole block yesterday?"], True),
        (["how many queries did pihole block today?", "Pi-hole blocked 3,465.", "and yesterday?"],
         True),
        (["How many queries did Pi-hole block last Tuesday?"], True),
        (["How many queries did Pi-hole block today?"], False),  # the window is the day
        (["How many queries did Pi-hole block since this time yesterday?"], False),  # 24 hours
        (["How many queries did Pi-hole block this week?"], False),
        (["How many queries did Pi-hole block?"], False),  # no time named
    ],
)  # fmt: skip
async def test_facts_counted_back_from_now_say_so_when_the_question_names_another_time(
    conversation, said, tmp_path
):
    read = propose("pihole_summary", {"facts": ["blocked"], "also_asked": "nothing_else"})
    loop, _, _ = loop_for(registry_of(health(), pihole_reading()), [read], tmp_path)
    roles = ["user", "assistant"] * 2
    messages = [{"role": r, "content": c} for r, c in zip(roles, conversation, strict=False)]
    result = await loop.process_turn(messages, policy=ON, owner="o")
    assert "3,465" in result.text  # the facts read are said
    assert (COUNTS_BACK in result.text) is said


async def test_prose_that_repeats_the_facts_is_left_out_and_the_rest_asked_again(tmp_path):
    stated = render(system.FACTS, HEALTH, ["uptime"], Voice("en"))
    question = "How long has the device been up? And by the way, who wrote Faust?"
    script = [health_read("uptime"), propose("answer_the_rest"), " ".join(stated), "Goethe."]
    loop, backend, _ = loop_for(pihole_and_web(), script, tmp_path)
    shown: list[str] = []

    async def sink(piece):
        shown.append(piece)

    ask = [{"role": "user", "content": question}]
    result = await loop.process_turn(ask, policy=ON, owner="o", on_token=sink)
    assert result.text == " ".join(stated) + "\n\nGoethe."  # the facts once, then the rest
    assert "".join(shown) == result.text  # the repeat was never shown
    again = backend.requests[3].messages[0]["content"]
    assert "You repeated what the device already told" in again and "who wrote Faust" in again


def test_a_sentence_that_repeats_one_said_is_left_out_whatever_its_case_and_spacing():
    said = ["The device has been up for 8 hours.", "Memory is fine."]
    prose = "the device has been  up for 8 hours! Goethe wrote Faust. Memory is fine"
    assert without_repeats(prose, said) == "Goethe wrote Faust."
    assert without_repeats("The device has been up for 9 hours.", said) != ""
