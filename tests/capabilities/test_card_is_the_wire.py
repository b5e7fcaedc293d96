"""Card text == token binding == wire bytes, for tricky inputs that are allowed (DESIGN §4).

Each case runs through the real turn loop with a scripted model: the model proposes
the raw argument, the loop pauses with a card (``pending_confirmation.arguments``), the
confirmation store records what the token was bound to, the household approves, and
the real HTTP client sends the request: SearXNG's ``q`` as the loopback fake received
it, and web.fetch's request line and ``Host`` header as a loopback server read them.
"""

from __future__ import annotations

import json
from ipaddress import ip_address
from urllib.parse import unquote_to_bytes

import pytest

from sovereign.capabilities import web_fetch, web_search
from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.executor import AuditLog, ConfirmationStore, Executor, Registry
from sovereign.net import AddressPolicy, StaticResolver
from tests.fakes.searxng import FakeSearxng
from tests.net.support import LoopbackConnector, LoopbackServer, respond

POLICY = {"external_enabled": True}
HOST = "pages.test"


class RecordingStore(ConfirmationStore):
    """The real store, remembering the exact arguments each token was bound to."""

    def __init__(self) -> None:
        super().__init__()
        self.bound: list[str] = []

    def issue(self, name, version, arguments, **options):
        self.bound.append(json.dumps(arguments, ensure_ascii=False, sort_keys=True))
        return super().issue(name, version, arguments, **options)


async def approve_once(registry, tool, arguments):
    """Propose → card → approve; returns (card arguments, bound arguments JSON)."""
    store = RecordingStore()
    executor = Executor(registry, confirmations=store, audit=AuditLog(None))
    loop = TurnLoop(executor, ScriptedBackend([propose(tool, arguments), "done"]))
    # web.fetch is offered only when the conversation holds an address to read; the
    # words searched for are the household's (a query of the model's own in another
    # language than the question's is asked for again).
    words = " ".join(v for v in arguments.values() if isinstance(v, str))
    ask = [{"role": "user", "content": f"go to http://{HOST}/ {words}"}]
    paused = await loop.process_turn(ask, policy=POLICY, owner="o")
    card = paused.pending_confirmation
    assert card is not None, paused.text
    wire_card = json.loads(json.dumps(card.to_wire()))["arguments"]  # as the browser gets it
    finished = await loop.resume_turn(card.token, True, policy=POLICY, owner="o")
    assert [r.outcome for r in finished.receipts] == ["executed"], finished
    (bound,) = store.bound
    return wire_card, bound


SEARCH_CASES = [
    "solar panel cleaning",
    "  leading and trailing spaces  ",
    "double  spaces   inside",
    "!!wp solar panel cleaning",
    "!images kittens",
    ":de Wetter Berlin",
    "<3 meaning",
    "random uuid",
    "time in Berlin",
    "Time Berlin",
    "tor-check",
    "what does :) mean",
    "e-mail me! now",
    "site:example.org solar",
    '"exact phrase" search',
    "a & b = c?",
    "100% cotton",
    "C++ vs C#",
    "path/to/file.txt",
    "question? answer! ok.",
    "Müller Straße",
    "cafe\u0301 au lait",  # decomposed é: NFC makes it one value
    "Москва погода",
    "東京 天気",
    "مرحبا بالعالم",
    "שלום עולם",
    "emoji 🎉 party",
    "thumbs 👍🏽 up",
    "flag 🇩🇪 colours",
    "math \U0001d41a\U0001d41b letters",
    "Ω ≈ ∞",
    "<b>tags</b> & 'quotes'",
    "backslash \\ in text",
    "dots ... and .leading",
    "+plus -minus",
]


@pytest.mark.parametrize("query", SEARCH_CASES)
async def test_the_searched_q_is_the_card_and_the_token_binding(query):
    with FakeSearxng() as fake:
        registry = Registry()
        web_search.register(registry, base_url=fake.base_url)
        card, bound = await approve_once(registry, "web_search", {"query": query})
        (request,) = fake.requests_to("/search")
    sent = unquote_to_bytes(
        next(p for p in request.raw_query.split("&") if p.startswith("q="))[2:].replace("+", " ")
    )
    assert sent == card["query"].encode("utf-8")  # byte for byte
    assert json.loads(bound) == card
    assert web_search.check_arguments(card) == card  # a fixed point: an edit changes nothing


FETCH_CASES = [
    ("http://pages.test/a", "/a"),
    ("HTTP://PAGES.TEST/a", "/a"),
    ("http://Pages.Test./a", "/a"),
    ("http://pages.test", "/"),
    ("http://pages.test?", "/?"),
    ("http://pages.test/a#fragment", "/a"),
    ("http://pages.test/a/./b/../c", "/a/c"),
    ("http://pages.test/a/%2e%2e/b", "/b"),
    ("http://pages.test/%7euser", "/~user"),
    ("http://pages.test/%41%42", "/AB"),
    ("http://pages.test/a%2fb", "/a%2Fb"),
    ("http://pages.test/caf%c3%a9", "/caf%C3%A9"),
    ("http://pages.test/café", "/caf%C3%A9"),
    ("http://pages.test/Ünïcödé?q=ü", "/%C3%9Cn%C3%AFc%C3%B6d%C3%A9?q=%C3%BC"),
    ("http://pages.test/x?a=1&b=2", "/x?a=1&b=2"),
    ("http://pages.test/x?a=%20b", "/x?a=%20b"),
    ("http://pages.test/x?a=+b", "/x?a=+b"),
    ("http://pages.test/x?q=a/b?c", "/x?q=a/b?c"),
    ("http://pages.test/{curly}", "/%7Bcurly%7D"),
    ("http://pages.test/pipe|caret^", "/pipe%7Ccaret%5E"),
    ("http://pages.test/[brackets]", "/%5Bbrackets%5D"),
    ('http://pages.test/"quoted"', "/%22quoted%22"),
    ("http://pages.test/<angle>", "/%3Cangle%3E"),
    ("http://pages.test/back`tick", "/back%60tick"),
    ("http://pages.test/sub!$&'()*+,;=:@", "/sub!$&'()*+,;=:@"),
    ("http://pages.test/emoji🎉", "/emoji%F0%9F%8E%89"),
    ("http://pages.test/a//b", "/a//b"),
    ("http://pages.test/..", "/"),
    ("http://pages.test/a/.", "/a/"),
    ("http://pages.test/%E2%80%8B", "/%E2%80%8B"),  # an encoded ZWSP is visible as %E2%80%8B
    ("http://p%61ges.test/x", "/x"),
    ("http://pages.test:{port}/explicit-port", "/explicit-port"),
]


@pytest.fixture
async def pages():
    server = await LoopbackServer().start()
    yield server
    await server.stop()


@pytest.mark.parametrize(("raw", "target"), FETCH_CASES)
async def test_the_requested_url_is_the_card_and_the_token_binding(pages, raw, target):
    raw = raw.replace("{port}", str(pages.port))
    path = target.split("?")[0]
    pages.routes[path] = respond(
        "200 OK", {"Content-Type": "text/plain"}, b"ok"
    )
    registry = Registry()
    connector = PortConnector(pages.port)
    web_fetch.register(
        registry,
        resolver=StaticResolver({HOST: ["127.0.0.1"]}),
        address_policy=AddressPolicy(local_interfaces=list, unsafe_allow={ip_address("127.0.0.1")}),
        connector=connector,
    )
    card, bound = await approve_once(registry, "web_fetch", {"url": raw})
    ((request_target, headers),) = pages.requests
    port = "" if ":" not in raw.split("//", 1)[1].split("/", 1)[0] else f":{pages.port}"
    assert card["url"] == f"http://{HOST}{port}{target}"
    assert request_target == target  # the request line, byte for byte
    assert headers["host"] == f"{HOST}{port}"
    assert card["url"] == f"http://{headers['host']}{request_target}"
    assert json.loads(bound) == card
    assert web_fetch.canonical_url(card) == card  # a fixed point


class PortConnector(LoopbackConnector):
    """Connects 127.0.0.1:80 (a URL without a port) to the page server's port."""

    def __init__(self, port: int) -> None:
        super().__init__()
        self.port = port

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return await super().connect_tcp(host, self.port, timeout=timeout)
