"""A question that names a page, or refers to one named earlier, is answered from that
page: of the tools that reach outside, only its reader is offered before anything ran
(docs/decisions/offered-tools-and-arguments.md, "A page named is read, not searched for").
"""

from __future__ import annotations

import pytest

from sovereign.conversation.backends.base import ModelReply

from .test_unreadable_addresses import ON, ask, loop_over


def offered(request) -> list[str]:
    return [t["function"]["name"] for t in request.tools]


@pytest.mark.parametrize(
    "question",
    [
        "What oven temperature does the recipe at http://www.bakewell.example/lemon ask for?",
        "D'après http://www.ecole.example/menus, qu'est-ce qu'il y a à la cantine jeudi ?",
        "Según https://colegio.example/comedor?semana=49, ¿qué hay de comer el jueves?",
        "Hoe laat gaat de bibliotheek open volgens http://bieb.example/open?",
        "https://news.example/a",
    ],
)
async def test_a_question_naming_a_page_is_offered_its_reader_and_no_search(question, tmp_path):
    loop, backend = loop_over([ModelReply(), "Done."], tmp_path)
    await loop.process_turn(ask(question), policy=ON, owner="o")
    names = offered(backend.requests[0])
    assert "web_fetch" in names and "web_search" not in names
    assert "system_health" in names  # what reads the device stays


async def test_a_question_referring_to_a_page_named_earlier_is_offered_its_reader(tmp_path):
    messages = [
        {"role": "user", "content": "Keep https://news.example/story in mind."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "What does that article say about the bridge?"},
    ]
    loop, backend = loop_over([ModelReply(), "Done."], tmp_path)
    await loop.process_turn(messages, policy=ON, owner="o")
    names = offered(backend.requests[0])
    assert "web_fetch" in names and "web_search" not in names


@pytest.mark.parametrize(
    "question",
    [
        "Are there engineering works between Bedford and Luton this weekend?",
        "Search the web for reviews of bakewell.example, please.",  # no address
    ],
)
async def test_a_question_naming_no_readable_page_keeps_the_search(question, tmp_path):
    loop, backend = loop_over([ModelReply(), "Done."], tmp_path)
    await loop.process_turn(ask(question), policy=ON, owner="o")
    assert "web_search" in offered(backend.requests[0])
