"""End to end, adversarial proposals: what leaves is exactly the card, and nothing else.

The real service under uvicorn, the real routes, executor, SearXNG client and pinned
transport, and the recorder of every connect and look-up in this process; the model
is scripted so each proposal is exactly the hostile or tricky argument under test.
For each refused class nothing is sent and the refusal reaches the household; for
allowed inputs the recorded ``q`` and request line equal the card byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

import pytest

from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from tests.fakes.searxng import FakeSearxng

from .household import WEB_HOST, Household, Service, serve, settings_for
from .network import ConnectionLog, PageServer, WebPort

pytestmark = pytest.mark.slow


class Proposer:
    """A scripted model: proposes ``next_call`` for a user message, then answers."""

    def __init__(self) -> None:
        self.next_call: tuple[str, dict] | None = None

    def __call__(self, messages, tools):
        if messages[-1]["role"] == "user" and self.next_call and tools:
            name, arguments = self.next_call
            return propose(name, arguments)
        return "Done."


@dataclass
class World:
    service: Service
    household: Household
    connections: ConnectionLog
    searxng: FakeSearxng
    pages: PageServer
    model: Proposer


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[World]:
    model = Proposer()
    data_dir = tmp_path_factory.mktemp("adversarial-data")
    with ConnectionLog() as connections, FakeSearxng() as searxng, PageServer() as pages:
        settings = settings_for(data_dir, searxng.base_url, WebPort(pages.port))
        with serve(settings, ScriptedBackend(model)) as service:
            household = Household(service)
            household.sign_in()
            household.set_web_search(True)
            try:
                yield World(service, household, connections, searxng, pages, model)
            finally:
                household.close()


def outbound(world: World, mark: int) -> list[tuple[str, int]]:
    service_port = int(world.service.url.rsplit(":", 1)[1])
    return [(h, p) for h, p in world.connections.since(mark) if p != service_port]


REFUSED = {
    "format (ZWSP)": "\u200b",
    "zero width joiner": "\u200d",
    "word joiner": "\u2060",
    "tag character": "\U000e0041",
    "bidi override": "\u202e",
    "bidi isolate": "\u2067",
    "variation selector": "\ufe0f",
    "hangul filler (default-ignorable)": "\u3164",
    "line separator": "\u2028",
    "paragraph separator": "\u2029",
    "newline": "\n",
    "tab": "\t",
    "no-break space": "\u00a0",
    "ideographic space": "\u3000",
    "private use": "\ue000",
    "unassigned": "\u0378",
}


@pytest.mark.parametrize("character", REFUSED.values(), ids=REFUSED.keys())
@pytest.mark.parametrize("capability", ["web_search", "web_fetch"])
def test_a_refused_character_sends_nothing_and_the_household_hears_why(
    world, capability, character
):
    arguments = (
        {"query": f"solar{character}panels"} if capability == "web_search"
        else {"url": f"http://{WEB_HOST}/article{character}x"}
    )
    world.model.next_call = (capability, arguments)
    mark, searches, pages = world.connections.mark(), len(world.searxng.requests), len(
        world.pages.requests)
    reply = world.household.say("go")
    assert reply["pending_confirmation"] is None, reply
    [receipt] = reply["receipts"]
    assert (receipt["outcome"], receipt["error_code"]) == ("refused", "INVALID_ARGUMENTS")
    assert outbound(world, mark) == []
    assert len(world.searxng.requests) == searches and len(world.pages.requests) == pages


def test_a_loopback_or_local_destination_gets_no_card_and_no_look_up(world):
    # (127.0.0.1 itself is the harness's one allowed test address)
    for url in ("http://127.0.0.2:8081/completion", "http://[::1]/", "http://10.0.0.1/",
                "http://printer.local/", "http://localhost/", "http://router/"):
        world.model.next_call = ("web_fetch", {"url": url})
        mark, lookups = world.connections.mark(), len(world.connections.lookups)
        reply = world.household.say("go")
        assert reply["pending_confirmation"] is None, reply
        assert reply["receipts"][0]["error_code"] == "FETCH_TARGET_REJECTED"
        assert outbound(world, mark) == [] and len(world.connections.lookups) == lookups


@pytest.mark.parametrize(
    "query",
    ["  solar   panels  ", "!!wp solar panels", ":de Wetter <3", "random uuid", "time Berlin",
     "cafe\u0301 au lait", "Müller & Söhne \"GmbH\"", "100% C++ <b>tags</b>"],
)
def test_the_q_searxng_received_is_the_card_byte_for_byte(world, query):
    world.model.next_call = ("web_search", {"query": query})
    card = world.household.say("go")["pending_confirmation"]
    assert card is not None
    before = len(world.searxng.requests)
    world.household.answer(card["token"], approve=True)
    [request] = world.searxng.requests[before:]
    raw_q = next(p for p in request.raw_query.split("&") if p.startswith("q="))[2:]
    assert unquote_to_bytes(raw_q.replace("+", " ")) == card["arguments"]["query"].encode()


@pytest.mark.parametrize(
    ("raw", "target"),
    [("HTTP://NEWS.EXAMPLE/article#top", "/article"),
     (f"http://{WEB_HOST}./x/../article", "/article"),
     (f"http://{WEB_HOST}/%61rticle", "/article"),
     (f"http://{WEB_HOST}/caf\u00e9?q=\u00fc", "/caf%C3%A9?q=%C3%BC")],
)
def test_the_request_line_is_the_card_byte_for_byte(world, raw, target):
    world.model.next_call = ("web_fetch", {"url": raw})
    card = world.household.say("go")["pending_confirmation"]
    assert card is not None and card["arguments"]["url"] == f"http://{WEB_HOST}{target}"
    before = len(world.pages.requests)
    world.household.answer(card["token"], approve=True)
    [request] = world.pages.requests[before:]
    assert f"http://{request.headers['host']}{request.path}" == card["arguments"]["url"]
