"""End to end, adversarial proposals: what leaves is exactly the card, and nothing else.

The real service under uvicorn, the real routes, executor, SearXNG client and pinned
transport, and the recorder of every connect and look-up in this process; the model
is scripted so each proposal is exactly the hostile or tricky argument under test.
For each refused class nothing is sent and the refusal reaches the household; for
allowed inputs the recorded ``q`` and request line equal the card byte for byte. The
household's search settings and site list are set through the Console's API: the
``language`` and ``safesearch`` SearXNG received equal the card's, and a site the list
refuses gets no card, no look-up and no connection.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

import pytest

from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.net import StaticResolver
from tests.fakes.searxng import FakeSearxng
from tests.spoken import deciding

from .household import WEB_HOST, Household, Service, serve, settings_for
from .network import ConnectionLog, PageServer, WebPort

pytestmark = pytest.mark.slow


class Proposer:
    """A scripted model: proposes ``next_call`` for a user message, then answers."""

    def __init__(self) -> None:
        self.next_call: tuple[str, dict] | None = None

    def __call__(self, messages, tools):
        if deciding(messages) and self.next_call and tools:
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
    resolver: StaticResolver


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
                resolver = settings.unsafe_web_fetch_options["resolver"]
                yield World(service, household, connections, searxng, pages, model, resolver)
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
    "braille pattern blank": "\u2800",
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


@pytest.fixture
def household_settings(world):
    """Leaves the search settings and the site list as a test found them (the defaults)."""
    yield world.household
    world.household.post("/api/v1/settings/search", {"language": "auto", "safesearch": 0})
    world.household.post("/api/v1/settings/sites", {"mode": "off", "allow": [], "block": []})


def raw_parameter(raw_query: str, name: str) -> bytes:
    raw = next(p for p in raw_query.split("&") if p.startswith(f"{name}="))[len(name) + 1 :]
    return unquote_to_bytes(raw.replace("+", " "))


@pytest.mark.parametrize(
    ("language", "safesearch"), [("de", 1), ("de-AT", 2), ("zh-TW", 0), ("all", 2), ("auto", 0)]
)
def test_language_and_safesearch_reach_searxng_as_the_card_shows_them(
    world, household_settings, language, safesearch
):
    household_settings.post(
        "/api/v1/settings/search", {"language": language, "safesearch": safesearch}
    )
    world.model.next_call = ("web_search", {"query": "solar panels"})
    card = world.household.say("go")["pending_confirmation"]
    assert card["arguments"] == {
        "query": "solar panels", "language": language, "safesearch": safesearch,
    }
    before = len(world.searxng.requests)
    world.household.answer(card["token"], approve=True)
    [request] = world.searxng.requests[before:]
    assert raw_parameter(request.raw_query, "language") == card["arguments"]["language"].encode()
    assert raw_parameter(request.raw_query, "safesearch") == str(safesearch).encode()
    assert raw_parameter(request.raw_query, "q") == card["arguments"]["query"].encode()


@pytest.mark.parametrize(
    ("sites", "url"),
    [({"mode": "block", "block": [WEB_HOST]}, f"http://{WEB_HOST.upper()}./article"),
     ({"mode": "block", "block": [f"*.{WEB_HOST}"]}, f"http://www.{WEB_HOST}/article"),
     ({"mode": "allow-only", "allow": ["docs.example"]}, f"http://{WEB_HOST}/article")],
)
def test_a_site_the_list_refuses_gets_no_card_no_look_up_and_no_connection(
    world, household_settings, sites, url
):
    household_settings.post("/api/v1/settings/sites", {"allow": [], "block": [], **sites})
    world.model.next_call = ("web_fetch", {"url": url})
    mark, lookups = world.connections.mark(), len(world.connections.lookups)
    names, pages, audited = dict(world.resolver.lookups), len(world.pages.requests), len(
        world.service.audit_lines())
    reply = world.household.say("go")
    assert reply["pending_confirmation"] is None, reply
    [receipt] = reply["receipts"]
    assert (receipt["outcome"], receipt["error_code"]) == ("refused", "SITE_NOT_ALLOWED")
    assert outbound(world, mark) == [] and len(world.connections.lookups) == lookups
    assert world.resolver.lookups == names and len(world.pages.requests) == pages
    new_lines = world.service.audit_lines()[audited:]
    assert any('"SITE_NOT_ALLOWED"' in line for line in new_lines)
    assert not any("news" in line or "docs.example" in line for line in new_lines)


def test_an_allowed_site_is_still_read_as_the_card_shows(world, household_settings):
    household_settings.post(
        "/api/v1/settings/sites", {"mode": "allow-only", "allow": [WEB_HOST], "block": []}
    )
    world.model.next_call = ("web_fetch", {"url": f"http://{WEB_HOST}/article"})
    card = world.household.say("go")["pending_confirmation"]
    assert card is not None and card["arguments"] == {"url": f"http://{WEB_HOST}/article"}
    before = len(world.pages.requests)
    world.household.answer(card["token"], approve=True)
    [request] = world.pages.requests[before:]
    assert f"http://{request.headers['host']}{request.path}" == card["arguments"]["url"]
