"""End to end: the household edits a flagged query, and only the edit leaves.

The real service under uvicorn (routes, executor, identifier check with this data
directory's private words, SearXNG client and pinned transport), the recorder of
every connect and look-up in this process, and a replaying SearXNG that records
every request. The model is scripted so the proposal is exactly the flagged query.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.service.private_words import PrivateWordsStore
from tests.fakes.searxng import FakeSearxng
from tests.spoken import deciding

from .household import Household, Service, serve, settings_for
from .network import ConnectionLog, PageServer, WebPort

pytestmark = pytest.mark.slow

MESSAGE = "/api/v1/conversation/message"
PROPOSED = "Maya Okafor birthday party at 192.168.50.37 juniper lane"
EDITED = "birthday party ideas for a 9 year old"


@dataclass
class World:
    service: Service
    household: Household
    connections: ConnectionLog
    searxng: FakeSearxng


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[World]:
    def model(messages, tools):
        if deciding(messages) and tools:
            return propose("web_search", {"query": PROPOSED})
        return "Here are some ideas."

    data_dir = tmp_path_factory.mktemp("edited-egress-data")
    PrivateWordsStore(data_dir).add("Maya Okafor")
    PrivateWordsStore(data_dir).add("Juniper Lane")
    with ConnectionLog() as connections, FakeSearxng() as searxng, PageServer() as pages:
        settings = settings_for(data_dir, searxng.base_url, WebPort(pages.port))
        with serve(settings, ScriptedBackend(model)) as service:
            household = Household(service)
            household.sign_in()
            household.set_web_search(True)
            try:
                yield World(service, household, connections, searxng)
            finally:
                household.close()


def outbound(world: World, mark: int) -> list[tuple[str, int]]:
    service_port = int(world.service.url.rsplit(":", 1)[1])
    return [(h, p) for h, p in world.connections.since(mark) if p != service_port]


def test_the_edited_query_not_the_proposal_is_what_searxng_receives(world):
    mark, lookups = world.connections.mark(), len(world.connections.lookups)
    searches = len(world.searxng.requests)
    pending = world.household.say("plan maya's party")["pending_confirmation"]
    assert pending["arguments"]["query"] == PROPOSED
    flagged = {(PROPOSED[f["start"] : f["end"]], f["kind"]) for f in pending["flags"]}
    assert flagged == {
        ("Maya Okafor", "private_word"),
        ("192.168.50.37", "private_address"),
        ("juniper lane", "private_word"),
        # the household wrote only "maya" and "party": the rest is the assistant's
        ("Okafor birthday", "added_by_assistant"),
        ("192.168.50.37 juniper lane", "added_by_assistant"),
    }
    assert outbound(world, mark) == []  # nothing before the answer

    edited = {**pending["arguments"], "query": EDITED}  # as the Console sends it
    edit = {"token": pending["token"], "approve": True, "arguments": edited}
    reply = world.household.post(MESSAGE, {"confirmation": edit}).json()

    [search] = world.searxng.requests[searches:]
    assert search.q == EDITED  # byte for byte the household's edit
    assert PROPOSED not in json.dumps([r.__dict__ for r in world.searxng.requests], default=str)
    searxng_port = int(world.searxng.base_url.rsplit(":", 1)[1])
    assert outbound(world, mark) == [("127.0.0.1", searxng_port)]
    assert len(world.connections.lookups) == lookups
    assert [(r["capability"], r["outcome"]) for r in reply["receipts"]] == [
        ("web.search", "executed")
    ]

    # The original token no longer works: this session's retry replays the answer it
    # got (nothing runs again), another session gets a 400, and nothing leaves.
    retry = world.household.post(MESSAGE, {"confirmation": {**edit, "arguments": None}})
    assert retry.json()["receipts"] == reply["receipts"]
    other = Household(world.service)
    try:
        other.sign_in()
        stolen = other.client.post(
            MESSAGE,
            json={"confirmation": {"token": pending["token"], "approve": True}},
            headers={"X-CSRF-Token": other.csrf},
        )
    finally:
        other.close()
    assert stolen.status_code == 400
    assert stolen.json()["error"]["code"] == "INVALID_CONFIRMATION"
    assert world.searxng.requests[searches:] == [search]
    assert outbound(world, mark) == [("127.0.0.1", searxng_port)]


def test_the_audit_keeps_the_flag_kinds_and_the_edit_never_the_words(world):
    records = [json.loads(line) for line in world.service.audit_lines()]
    web = [r for r in records if r["capability"] == "web.search"]
    assert [r["outcome"] for r in web[:5]] == [
        "confirmation_required", "edited", "confirmation_required", "executing", "executed",
    ]  # fmt: skip
    assert web[0]["flags"] == ["added_by_assistant", "private_address", "private_word"]
    assert web[2]["flags"] == [] and web[2]["reason"] == "edited by the household"
    text = json.dumps(records).lower()
    for secret in ("maya", "okafor", "juniper", "192.168.50.37", "birthday"):
        assert secret not in text


def test_a_refused_edit_sends_nothing_and_the_card_still_answers(world):
    mark, searches = world.connections.mark(), len(world.searxng.requests)
    pending = world.household.say("plan maya's party again")["pending_confirmation"]
    bad_arguments = {**pending["arguments"], "query": "a\u2028b"}
    bad = {"token": pending["token"], "approve": True, "arguments": bad_arguments}
    refused = world.household.client.post(
        MESSAGE, json={"confirmation": bad}, headers={"X-CSRF-Token": world.household.csrf}
    )
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "INVALID_EDIT"
    assert outbound(world, mark) == [] and len(world.searxng.requests) == searches
    denied = world.household.answer(pending["token"], approve=False)
    assert [r["outcome"] for r in denied["receipts"]] == ["denied"]
    assert outbound(world, mark) == []
