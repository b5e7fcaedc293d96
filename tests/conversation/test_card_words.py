"""The turn loop keeps a query to the household's words (conversation/approval/card_words.py).

With web.search's ``query`` marked ``x-household-words``, words the household never
wrote are taken out of the model's proposal before the card; when none of the
household's own words would remain, the query stays and those words are flagged on
the card. Words only the assistant said are not the household's. The household's
edit is its own.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from sovereign.conversation.approval.added_words import KIND, REASON
from sovereign.conversation.backends.base import ModelReply, ToolCall, forced_tools
from sovereign.conversation.backends.scripted import propose

from .conftest import ON


@pytest.fixture
def world(world):
    """The conversation world with web.search's query marked as web.search marks it."""
    registry = world.executor.registry
    search = registry.get("web.search", 1)
    schema = json.loads(json.dumps(search.arguments_schema))
    schema["properties"]["query"]["x-household-words"] = True
    registry.remove("web.search", 1)
    registry.add(replace(search, arguments_schema=schema))
    return world


def asked(*messages):
    """A conversation of user and assistant messages, alternating from the user's."""
    roles = ("user", "assistant")
    return [{"role": roles[i % 2], "content": text} for i, text in enumerate(messages)]


async def card(world, messages, query):
    loop, _ = world.loop([propose("web_search", {"query": query}), ModelReply(), "Done."])
    halted = await loop.process_turn(messages, policy=ON, owner="o")
    return loop, halted.pending_confirmation


async def test_a_year_the_household_never_said_is_taken_out_before_the_card(world):
    loop, pending = await card(
        world,
        asked("Is the Harpenden Christmas market on this year?"),
        "Harpenden Christmas market 2023",
    )
    assert pending.arguments == {"query": "Harpenden Christmas market"}
    assert pending.flags == []
    await loop.resume_turn(pending.token, True, policy=ON, owner="o")
    assert world.calls.of("web.search") == [{"query": "Harpenden Christmas market"}]


async def test_the_model_s_context_holds_its_call_as_it_was_sent(world):
    loop, backend = world.loop(
        [propose("web_search", {"query": "Harpenden Christmas market 2023"}), ModelReply(), "Ok"]
    )
    halted = await loop.process_turn(
        asked("Is the Harpenden Christmas market on this year?"), policy=ON, owner="o"
    )
    await loop.resume_turn(halted.pending_confirmation.token, True, policy=ON, owner="o")
    context = backend.requests[-1].messages
    (call,) = next(m for m in context if m.get("tool_calls"))["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"query": "Harpenden Christmas market"}


async def test_a_word_of_an_earlier_message_of_the_household_is_kept(world):
    messages = asked("We live in Harpenden.", "Noted.", "Is the Christmas market on?")
    _, pending = await card(world, messages, "Harpenden Christmas market St Albans")
    assert pending.arguments == {"query": "Harpenden Christmas market"}


async def test_a_word_only_the_assistant_said_is_not_the_household_s(world):
    messages = asked(
        "Which town near us has a Christmas market?",
        "Harpenden has one on its High Street.",
        "When is the Christmas market on?",
    )
    _, pending = await card(world, messages, "Harpenden Christmas market dates")
    assert pending.arguments == {"query": "Christmas market dates"}


async def test_a_query_with_none_of_the_household_s_words_is_flagged_not_emptied(world, tmp_path):
    messages = asked("Who won the final?", "Which final do you mean?", "the one yesterday")
    _, pending = await card(world, messages, "Champions League final result")
    assert pending.arguments == {"query": "Champions League final result"}
    assert pending.flags == [
        {"kind": KIND, "argument": "query", "start": 0, "end": 16, "reason": REASON},
        {"kind": KIND, "argument": "query", "start": 23, "end": 29, "reason": REASON},
    ]
    assert pending.to_wire()["flags"] == pending.flags
    assert world.calls.of("web.search") == []  # only a card
    records = [
        json.loads(line)
        for line in (tmp_path / "capabilities" / "audit.jsonl").read_text().splitlines()
    ]
    (ask,) = [r for r in records if r["outcome"] == "confirmation_required"]
    assert ask["flags"] == [KIND]
    assert "Champions" not in json.dumps(ask)  # the kind alone, never the words


async def test_the_household_s_edit_is_its_own_words_and_is_neither_trimmed_nor_flagged(world):
    messages = asked("Who won the final?")
    loop, pending = await card(world, messages, "Champions League final result")
    edited = {"query": "Champions League final 2026 result"}
    done = await loop.resume_turn(pending.token, True, policy=ON, owner="o", arguments=edited)
    assert done.pending_confirmation is None
    assert world.calls.of("web.search") == [edited]


async def test_the_question_s_language_chooses_its_neutral_terms_and_stems(world):
    messages = asked("Wann öffnet der Weihnachtsmarkt in Bamberg dieses Jahr?")
    _, pending = await card(world, messages, "Weihnachtsmärkte Bamberg 2023 Öffnungszeiten")
    assert pending.arguments == {"query": "Weihnachtsmärkte Bamberg Öffnungszeiten"}
    assert pending.flags == []


async def test_an_unmarked_argument_is_left_as_the_model_wrote_it(world):
    loop, _ = world.loop([propose("web_fetch", {"url": "https://news.example/notes"})])
    halted = await loop.process_turn(
        asked("Read https://news.example/notes please"), policy=ON, owner="o"
    )
    assert halted.pending_confirmation.arguments == {"url": "https://news.example/notes"}
    assert halted.pending_confirmation.flags == []


# --- a query written in another language than the question's --------------------------

MUSEUM = "A che ora apre il museo di Ravelta domenica?"


async def searched(world, question, *queries):
    """The card after the model proposed ``queries`` one after another, and the requests."""
    script = [propose("web_search", {"query": q}) for q in queries]
    loop, backend = world.loop([*script, ModelReply(), "Fatto."])
    halted = await loop.process_turn(asked(question), policy=ON, owner="o")
    return halted.pending_confirmation, backend.requests


async def test_a_query_translated_into_another_language_is_asked_for_in_the_question_s(world):
    pending, requests = await searched(
        world, MUSEUM, "Ravelta Museum opening hours", "orari museo Ravelta domenica"
    )
    assert pending.arguments == {"query": "orari museo Ravelta domenica"}
    again = requests[1]
    assert forced_tools(again.tool_choice) == ("web_search",)
    assert again.messages[:-1] == requests[0].messages  # the same prompt, and a note
    assert "Italian" in again.messages[-1]["content"]


async def test_a_query_still_in_another_language_when_asked_again_stays_the_first(world):
    pending, requests = await searched(
        world, MUSEUM, "Ravelta Museum opening hours", "Ravelta Museum Sunday opening time"
    )
    assert len(requests) == 2  # asked again once, not more
    assert pending.arguments == {"query": "Ravelta Museum opening hours"}
    assert pending.flags  # what the household did not write is shown


@pytest.mark.parametrize(
    ("question", "query"),
    [
        (MUSEUM, "orari museo Ravelta"),  # the question's language
        ("¿Cuánto cuesta la ITV de un diésel en Sotillo?", "precio itv diesel sotillo"),
        ("When does the Ravelta museum open on Sunday?", "Ravelta museum Sunday opening"),
        ("Wann öffnet das Freibad Talheim?", "Freibad Talheim opening hours"),  # theirs lead
        ("Quand passe le dernier bac ?", "bac"),  # too short to tell a language
    ],
)
async def test_a_query_in_the_question_s_language_or_its_own_words_is_not_asked_again(
    world, question, query
):
    pending, requests = await searched(world, question, query)
    assert len(requests) == 1 and pending is not None


async def test_a_search_whose_arguments_are_no_json_object_is_refused_not_asked_again(world):
    unreadable = ModelReply(tool_calls=(ToolCall("c1", "web_search", None, "not an object"),))
    loop, backend = world.loop([unreadable, ModelReply(), "Non ho potuto cercare."])
    result = await loop.process_turn(asked(MUSEUM), policy=ON, owner="o")
    assert [r.outcome for r in result.receipts] == ["refused"]
    assert all(r.tool_choice == "auto" for r in backend.requests)
