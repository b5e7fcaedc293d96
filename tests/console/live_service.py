"""The real service app, served by uvicorn on 127.0.0.1, for the Console's browser tests.

The app comes from ``create_app`` with the product's ``ScriptedBackend``, a fake
monotonic clock the test moves by hand, cheap argon2 parameters, and a registry
holding ``system.health`` and the real ``web.search`` (reading the household's search
settings from the data directory, as the service does) whose SearXNG is an httpx
handler transport answering with a captured response (so no query ever leaves
this machine, and the test can see exactly which queries would have).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import uvicorn
from argon2 import PasswordHasher

from sovereign.capabilities import system, web_search
from sovereign.conversation.backends.base import ModelReply, ModelUnavailable
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.executor import Registry
from sovereign.service.app import create_app
from sovereign.service.egress_settings import SearchSettingsStore
from sovereign.service.listeners import bind_listeners
from sovereign.service.server import server_config
from sovereign.service.settings import Settings
from tests.fixtures import SEARXNG

SEARXNG_CAPTURE = SEARXNG / "search_capability_shape.json"
PASSWORD = "correct horse battery"
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
GATE_TIMEOUT_SECONDS = 20


class FakeClock:
    """A monotonic clock (seconds) that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class FakeSearxng:
    """Answers every search with the captured SearXNG JSON (echoing the query, as SearXNG
    does); records each query that left."""

    queries: list[str] = field(default_factory=list)
    raw_queries: list[bytes] = field(default_factory=list)
    """Each request's query string exactly as it was sent."""
    rewrite: Any = None
    """A test's change to every answer body (e.g. hostile titles), or None."""
    down: bool = False
    """When set, every connection is refused, as when SearXNG on the device is not running."""

    def handler(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        query = request.url.params.get("q", "")
        self.queries.append(query)
        self.raw_queries.append(request.url.query)
        captured = json.loads(SEARXNG_CAPTURE.read_text())
        body = {**captured["body"], "query": query}
        return httpx.Response(captured["status"], json=self.rewrite(body) if self.rewrite else body)


def quote_call(tools: Any) -> Any:
    """A model's answer to a web question: the first passage offered; or ``None`` when
    no web source is there to quote."""
    for tool in tools or []:
        if tool["function"]["name"] == "quote_sources":
            first = tool["function"]["parameters"]["properties"]["passages"]["items"]["enum"][0]
            return propose("quote_sources", {"passages": [first]})
    return None


def household_model(messages: list[dict[str, Any]], tools: Any) -> Any:
    """The scripted model: a message starting with "search" proposes web.search with the
    whole message as the query, verbatim; one starting with "how hot" proposes
    system.health for its memory; "unplug the model" makes the model unavailable,
    and so does a search message ending "then unplug the model", once the search ran;
    anything else is answered in prose, which the turn loop asks for without tools (so it
    streams word by word)."""
    last = [m for m in messages if m["role"] != "system"][-1]  # past the turn's notes
    asked = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    if asked == "unplug the model" or (
        last["role"] == "tool" and asked.endswith("then unplug the model")
    ):
        return ModelUnavailable("llama-server is not running")
    if tools is not None:
        quote = quote_call(tools)
        if quote is not None:  # the search answered: quote what it found
            return quote
        wants_search = last["role"] == "user" and last["content"].lower().startswith("search")
        wants_health = last["role"] == "user" and last["content"].lower().startswith("how hot")
        if wants_health:
            return propose("system_health", {"facts": ["memory"]})
        return propose("web_search", {"query": last["content"]}) if wants_search else ""
    if last["role"] == "tool":
        if json.loads(last["content"]).get("capability") == "system_health":
            return "Your device is fine."
        status = json.loads(last["content"]).get("status")
        if status == "executed":
            return "I found a few pages about cleaning solar panels."
        return f"The search was {status}."  # not asked for when nothing ran: the loop answers
    return f"You said: {last['content']}"


class GatedBackend:
    """The scripted backend, with two gates a test may close to hold the answer:
    ``before_reply`` before the model replies at all, ``mid_answer`` after the
    first streamed piece. Both start open."""

    def __init__(self) -> None:
        self.inner = ScriptedBackend(household_model)
        self.before_reply = threading.Event()
        self.mid_answer = threading.Event()
        self.before_reply.set()
        self.mid_answer.set()

    async def complete(
        self, messages, *, tools, on_token=None, on_progress=None, tool_choice="auto"
    ) -> ModelReply:
        await _wait(self.before_reply)

        async def relay(piece: str) -> None:
            await on_token(piece)
            await _wait(self.mid_answer)

        return await self.inner.complete(
            messages,
            tools=tools,
            on_token=relay if on_token else None,
            on_progress=on_progress,
            tool_choice=tool_choice,
        )


async def _wait(gate: threading.Event) -> None:
    if not gate.is_set():
        await asyncio.to_thread(gate.wait, GATE_TIMEOUT_SECONDS)


@dataclass
class LiveService:
    """A running service: its URL, the first-run link, and the fakes behind it."""

    url: str
    app: Any
    clock: FakeClock
    searxng: FakeSearxng
    backend: GatedBackend
    data_dir: Path

    @property
    def setup_link(self) -> str:
        return f"{self.url}/#setup={self.app.state.services.owner.setup_token()}"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def http_client(self, **options: Any) -> httpx.Client:
        """An HTTP client that talks to the service as the Console does: it connects to
        127.0.0.1 (Python's resolver may not know ``*.localhost``) and names the
        Console's host and origin in ``Host`` and ``Origin``."""
        host = self.url.removeprefix("http://")
        headers = {"Host": host, "Origin": self.url, **options.pop("headers", {})}
        return httpx.Client(base_url=f"http://127.0.0.1:{self.port}", headers=headers, **options)


def build_app(data_dir: Path, port: int) -> tuple[Any, FakeClock, FakeSearxng, GatedBackend]:
    """The real app around the fakes described in the module docstring, answering
    at ``sovereign.localhost:<port>`` (and loopback's names) as ``sovereign serve`` does."""
    clock, searxng, backend = FakeClock(), FakeSearxng(), GatedBackend()
    registry = Registry()
    system.register(registry, disk_path=data_dir)
    web_search.register(
        registry,
        base_url="http://searxng.test",
        transport=httpx.MockTransport(searxng.handler),
        search_settings=SearchSettingsStore(data_dir).settings,  # the household's, as served
    )
    app = create_app(
        Settings(data_dir=data_dir, backend="scripted", port=port),
        backend=backend,
        clock=clock,
        registry=registry,
        password_hasher=CHEAP_HASHER,
    )
    return app, clock, searxng, backend


@contextmanager
def serve(data_dir: Path) -> Iterator[LiveService]:
    """Run the app under uvicorn on both loopback addresses of a free port, as
    ``sovereign serve`` binds them, until the block ends.

    Its URL is the Console's own name, ``http://sovereign.localhost:<port>``, which
    chromium resolves to loopback by itself (``::1`` first).
    """
    sockets = bind_listeners(["127.0.0.1", "::1"], 0)
    port = sockets[0].getsockname()[1]
    app, clock, searxng, backend = build_app(data_dir, port)
    server = uvicorn.Server(server_config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    try:
        _wait_until_started(server, thread)
        url = f"http://sovereign.localhost:{port}"
        yield LiveService(url, app, clock, searxng, backend, data_dir)
    finally:
        backend.before_reply.set()
        backend.mid_answer.set()
        server.should_exit = True
        thread.join(timeout=10)
        for sock in sockets:
            sock.close()


def _wait_until_started(server: uvicorn.Server, thread: threading.Thread) -> None:
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)


def fetch_through_loopback(route) -> Any:
    """``route.fetch()`` for a request to the live service: Playwright fetches from its
    own process, whose resolver may not know ``*.localhost``, so it connects to
    127.0.0.1 and keeps the Console's name in ``Host``."""
    url = urlsplit(route.request.url)
    loopback = url._replace(netloc=f"127.0.0.1:{url.port}").geturl()
    return route.fetch(url=loopback, headers={**route.request.headers, "host": url.netloc})
