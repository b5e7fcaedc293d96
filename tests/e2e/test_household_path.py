"""End to end: the household's path through the real service, the real model and a recorded network.

One service for the module (``create_app`` under uvicorn on 127.0.0.1) with the
verified embedded model choosing every call, signed in through the real auth
routes, driven over HTTP with the CSRF header. Behind it: the replaying SearXNG of
``tests/fakes/searxng.py``, a page server playing ``news.example``, and a log of
every connection this process opens. Each scenario checks what left the device
(nothing, or exactly the one approved request), what the household saw, and that
the audit log recorded the outcome without the query or the URL.

``./scripts/test`` installs the model first (``scripts/setup-embedded``); the
module takes a few minutes on two cores. Deselect with ``-m "not slow"``.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from sovereign.model import default_model_path
from tests.fakes.searxng import FakeSearxng

from .household import WEB_HOST, Household, Service, serve, settings_for
from .network import ConnectionLog, PageServer, WebPort

pytestmark = pytest.mark.slow

SEARCH = "search the web for the Doobie Brothers reunion tour"
FETCH = f"fetch http://{WEB_HOST}/article"
REDIRECTED_FETCH = f"fetch http://{WEB_HOST}/latest"  # answered 302 to /article
IDENTIFYING_HEADERS = ("cookie", "referer", "accept-language")
SEARXNG_RESULT_URLS = {  # fixture search_basic, replayed for every query
    "https://example.org/solar/panel-cleaning",
    "https://example.org/solar/efficiency-loss",
}


@dataclass
class World:
    """The running service, the household's client, and every recorder behind them."""

    service: Service
    household: Household
    connections: ConnectionLog
    searxng: FakeSearxng
    pages: PageServer
    web: WebPort


@dataclass
class Traffic:
    """What was recorded from one point on: outbound connections, requests, audit lines."""

    world: World
    connects: int
    searches: int
    page_requests: int
    audit: int

    @classmethod
    def start(cls, world: World) -> Traffic:
        return cls(
            world,
            world.connections.mark(),
            len(world.searxng.requests),
            len(world.pages.requests),
            len(world.service.audit_lines()),
        )

    def outbound(self) -> list[tuple[str, int]]:
        """Connections opened since the start, except the household's own to the service."""
        service_port = int(self.world.service.url.rsplit(":", 1)[1])
        opened = self.world.connections.since(self.connects)
        return [(host, port) for host, port in opened if port != service_port]

    def searches_sent(self) -> list[Any]:
        return self.world.searxng.requests[self.searches :]

    def pages_requested(self) -> list[Any]:
        return self.world.pages.requests[self.page_requests :]

    def audit_lines(self) -> list[str]:
        return self.world.service.audit_lines()[self.audit :]

    def audit_outcomes(self) -> list[tuple[str, str]]:
        return [(r["capability"], r["outcome"]) for r in map(json.loads, self.audit_lines())]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    if importlib.util.find_spec("llama_cpp") is None or not default_model_path().is_file():
        pytest.fail(
            "the embedded model is not installed; ./scripts/setup-embedded installs it "
            "(or deselect these tests with -m 'not slow')"
        )
    data_dir = tmp_path_factory.mktemp("household-data")
    with ConnectionLog() as connections, FakeSearxng() as searxng, PageServer() as pages:
        web = WebPort(pages.port)
        with serve(settings_for(data_dir, searxng.base_url, web)) as service:
            household = Household(service)
            household.sign_in()
            try:
                yield World(service, household, connections, searxng, pages, web)
            finally:
                household.close()
        assert WEB_HOST not in connections.lookups, "news.example went to the system resolver"


def assert_audit_is_outcomes_only(traffic: Traffic, *secrets: str) -> None:
    lines = traffic.audit_lines()
    assert lines, "the audit log recorded nothing for this turn"
    for line in lines:
        record = json.loads(line)
        assert set(record) <= {
            "time", "boot", "run", "seq", "uptime_s", "capability", "version",
            "classification", "stage", "outcome", "error_code", "reason", "duration_ms",
            "asked", "started", "flags",
        }  # fmt: skip
        assert all(isinstance(kind, str) for kind in record.get("flags", []))
        for secret in (*secrets, "http://", "https://", WEB_HOST):
            assert secret.lower() not in line.lower(), f"{secret!r} is in the audit log: {line}"


def test_with_web_search_off_a_search_request_sends_nothing_and_says_it_is_off(world):
    world.household.set_web_search(False)
    traffic = Traffic.start(world)

    reply = world.household.say(SEARCH)

    # Switched off, web search and fetch are not offered at all, so none is proposed;
    # the system prompt and the web_switched_off stand-in give the sentence to say.
    assert reply["pending_confirmation"] is None, reply
    assert not [r for r in reply["receipts"] if r["capability"].startswith("web.")], reply
    assert reply["text"].strip()
    assert traffic.outbound() == []
    assert traffic.searches_sent() == [] and traffic.pages_requested() == []
    assert not [c for c, _ in traffic.audit_outcomes() if c.startswith("web.")]
    assert not [line for line in traffic.audit_lines() if "doobie" in line.lower()]


def test_a_denied_search_sends_nothing(world):
    world.household.set_web_search(True)
    traffic = Traffic.start(world)

    proposal = world.household.say(SEARCH)
    pending = proposal["pending_confirmation"]
    assert pending is not None and pending["capability"] == "web.search", proposal
    assert "doobie brothers" in pending["arguments"]["query"].lower()
    reply = world.household.answer(pending["token"], approve=False)

    assert reply["pending_confirmation"] is None, reply
    assert [(r["capability"], r["outcome"]) for r in reply["receipts"]] == [
        ("web.search", "denied")
    ]
    assert traffic.outbound() == []
    assert traffic.searches_sent() == []
    assert traffic.audit_outcomes() == [
        ("web.search", "confirmation_required"),
        ("web.search", "denied"),
    ]
    assert_audit_is_outcomes_only(traffic, pending["arguments"]["query"], "Doobie")


def test_an_approved_search_sends_exactly_the_disclosed_query_once(world):
    world.household.set_web_search(True)
    traffic = Traffic.start(world)

    proposal = world.household.say(SEARCH)
    pending = proposal["pending_confirmation"]
    assert pending is not None and pending["capability"] == "web.search", proposal
    assert traffic.outbound() == []  # nothing before the approval
    reply = world.household.answer(pending["token"], approve=True)

    [search] = traffic.searches_sent()
    assert search.path == "/search"
    assert search.q == pending["arguments"]["query"]  # byte for byte what the household saw
    assert search.params.get("time_range", [None])[0] == pending["arguments"].get("time_range")
    assert traffic.outbound() == [("127.0.0.1", int(world.searxng.base_url.rsplit(":", 1)[1]))]
    assert traffic.pages_requested() == []
    assert reply["pending_confirmation"] is None, reply
    assert [(r["capability"], r["outcome"]) for r in reply["receipts"]] == [
        ("web.search", "executed")
    ]
    assert {c["url"] for c in reply["citations"]} >= SEARXNG_RESULT_URLS
    assert reply["text"].strip()
    assert traffic.audit_outcomes() == [
        ("web.search", "confirmation_required"),
        ("web.search", "executing"),
        ("web.search", "executed"),
    ]
    assert_audit_is_outcomes_only(traffic, pending["arguments"]["query"], "Doobie")


def test_an_approved_fetch_sends_one_anonymous_request_to_the_approved_host(world):
    world.household.set_web_search(True)
    traffic = Traffic.start(world)

    proposal = world.household.say(FETCH)
    pending = proposal["pending_confirmation"]
    assert pending is not None and pending["capability"] == "web.fetch", proposal
    assert pending["arguments"] == {"url": f"http://{WEB_HOST}/article"}
    assert traffic.pages_requested() == []
    reply = world.household.answer(pending["token"], approve=True)

    [request] = traffic.pages_requested()
    assert (request.method, request.path, request.headers["host"]) == ("GET", "/article", WEB_HOST)
    for header in IDENTIFYING_HEADERS:
        assert header not in request.headers, f"web.fetch sent {header}: {request.headers}"
    assert traffic.outbound() == [("127.0.0.1", world.pages.port)]
    assert traffic.searches_sent() == []
    assert [(r["capability"], r["outcome"]) for r in reply["receipts"]] == [
        ("web.fetch", "executed")
    ]
    assert [c["url"] for c in reply["citations"]] == [f"http://{WEB_HOST}/article"]
    assert traffic.audit_outcomes() == [
        ("web.fetch", "confirmation_required"),
        ("web.fetch", "executing"),
        ("web.fetch", "executed"),
    ]
    assert_audit_is_outcomes_only(traffic, "/article", "Doobie")


def test_an_approved_fetch_answered_with_a_redirect_reports_it_and_does_not_follow(world):
    world.household.set_web_search(True)
    traffic = Traffic.start(world)

    proposal = world.household.say(REDIRECTED_FETCH)
    pending = proposal["pending_confirmation"]
    assert pending is not None and pending["capability"] == "web.fetch", proposal
    assert pending["arguments"] == {"url": f"http://{WEB_HOST}/latest"}
    reply = world.household.answer(pending["token"], approve=True)

    assert [r.path for r in traffic.pages_requested()] == ["/latest"]  # /article never asked for
    assert traffic.outbound() == [("127.0.0.1", world.pages.port)]
    assert [(r["capability"], r["outcome"]) for r in reply["receipts"]] == [
        ("web.fetch", "executed")
    ]
    [citation] = reply["citations"]
    assert citation["url"] == f"http://{WEB_HOST}/latest"
    assert citation["redirected"] is True
    assert citation["final_url"] == f"http://{WEB_HOST}/article"
    assert citation["snippet"] == "redirect, not followed"
    assert_audit_is_outcomes_only(traffic, "/latest", "/article")
