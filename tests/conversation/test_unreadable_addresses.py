"""A question naming an address that can only be refused: nothing stands in for reading it
(docs/decisions/offered-tools-and-arguments.md, "Addresses no tool may read").

The production web.fetch capability's own validation (no network) decides which addresses
are unreadable; its DNS resolver is never reached before approval.
"""

from __future__ import annotations

import pytest

from sovereign.capabilities import web_fetch
from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.base import ModelReply
from sovereign.conversation.backends.scripted import ScriptedBackend, propose
from sovereign.conversation.offer.guidance import ArgumentGuide, addresses_in, urls_in
from sovereign.executor import (
    AuditLog,
    Capability,
    ConfirmationStore,
    Effect,
    Executor,
    Locality,
    Registry,
)

ON = {"external_enabled": True}
UNREADABLE = [
    "file:///etc/passwd",
    "ftp://files.example/a.txt",
    "http://localhost:8093/search?q=test",
    "http://app.localhost/",
    "http://127.0.0.1:8080/admin/",
    "http://[::1]/",
    "http://0x7f000001/",
    "http://2130706433/",
    "http://192.168.1.1/",
    "http://10.0.0.5:8123/",
    "http://router.local/",
    "http://nas.internal/",
    "http://printer.home.arpa/",
]


class NoLookups:
    """A resolver that fails the test if anything is looked up."""

    async def resolve(self, host: str, port: int) -> list[str]:
        raise AssertionError(f"{host} was looked up before any approval")


def household(calls):
    async def run(arguments):
        calls.append(arguments)
        return {"results": [], "query": arguments.get("query", "")}

    registry = Registry()
    for name, locality, schema in [
        ("system.health", Locality.LOCAL, {"type": "object"}),
        (
            "web.search",
            Locality.EXTERNAL,
            {"type": "object", "properties": {"query": {"type": "string"}}},
        ),
    ]:
        registry.add(
            Capability(
                name=name,
                version=1,
                description=name,
                arguments_schema=schema,
                result_schema={"type": "object"},
                effect=Effect.READ_ONLY,
                locality=locality,
                execute=run,
                policy_key="external_enabled" if locality is Locality.EXTERNAL else None,
            )
        )
    web_fetch.register(registry, resolver=NoLookups())
    return registry


def loop_over(script, tmp_path, calls=None):
    backend = ScriptedBackend(script)
    registry = household([] if calls is None else calls)
    executor = Executor(registry, confirmations=ConfirmationStore(), audit=AuditLog(tmp_path))
    return TurnLoop(executor, backend), backend


def ask(text):
    return [{"role": "user", "content": text}]


def test_addresses_of_every_scheme_are_read_and_only_http_ones_are_web_addresses():
    text = "Fetch file:///etc/passwd, then ftp://x.example/f and https://a.example/b."
    assert addresses_in(text) == ["file:///etc/passwd", "ftp://x.example/f", "https://a.example/b"]
    assert urls_in(text) == ["https://a.example/b"]


@pytest.mark.parametrize("address", UNREADABLE)
async def test_an_address_that_can_only_be_refused_is_not_offered_and_nothing_stands_in(
    address, tmp_path
):
    loop, backend = loop_over([ModelReply(), "I can't read it."], tmp_path)
    result = await loop.process_turn(
        ask(f"Open {address} and show me the page."), policy=ON, owner="o"
    )
    decision, answer = backend.requests
    offered = [t["function"]["name"] for t in decision.tools]
    assert "web_search" not in offered and "web_fetch" not in offered
    assert "system_health" in offered
    assert f"No tool can read {address}." in decision.messages[-1]["content"]  # read last
    assert f"No tool can read {address}." in answer.messages[0]["content"]
    assert result.pending_confirmation is None and result.receipts == []


async def test_an_unreadable_address_beside_a_public_one_offers_the_public_one_to_read(tmp_path):
    question = "Compare http://192.168.1.1/ with https://news.example/router-guide please."
    loop, backend = loop_over([ModelReply(), "Done."], tmp_path)
    await loop.process_turn(ask(question), policy=ON, owner="o")
    decision = backend.requests[0]
    fetch = next(t for t in decision.tools if t["function"]["name"] == "web_fetch")
    assert fetch["function"]["parameters"]["properties"]["url"]["enum"] == [
        "https://news.example/router-guide"
    ]
    assert "web_search" not in [t["function"]["name"] for t in decision.tools]  # a page named
    assert "No tool can read http://192.168.1.1/." in decision.messages[-1]["content"]


async def test_a_public_address_gets_the_reading_hint_and_no_unreadable_note(tmp_path):
    loop, backend = loop_over([ModelReply(), "Done."], tmp_path)
    await loop.process_turn(ask("Summarise https://news.example/a for me."), policy=ON, owner="o")
    last = backend.requests[0].messages[-1]["content"]
    assert "web_fetch reads exactly that page" in last and "No tool can read" not in last


async def test_with_web_fetch_switched_off_no_address_is_checked(tmp_path):
    loop, backend = loop_over([ModelReply(), "Web search is off."], tmp_path)
    await loop.process_turn(ask("Open http://localhost/ for me."), policy={}, owner="o")
    assert all("No tool can read" not in m["content"] for m in backend.requests[0].messages)


async def test_a_fetch_of_an_unreadable_address_named_anyway_is_refused_without_a_card(tmp_path):
    # The model may still write the address (it saw it in the question): the executor's
    # validation refuses it before any approval, so no card is shown.
    script = [propose("web_fetch", {"url": "http://router.local/"}), ModelReply(), "x"]
    loop, _ = loop_over(script, tmp_path)
    result = await loop.process_turn(ask("Open http://router.local/ now."), policy=ON, owner="o")
    assert result.pending_confirmation is None
    assert [r.outcome for r in result.receipts] == ["refused"]
    assert "I can't read that address" in result.text


def test_the_guide_asks_the_check_only_about_the_question_s_addresses():
    checked: list[str] = []

    def readable(url: str) -> bool:
        checked.append(url)
        return not url.startswith("file:")

    messages = [
        {"role": "user", "content": "Earlier: https://old.example/"},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Now read file:///etc/hosts and https://new.example/."},
    ]
    guide = ArgumentGuide.for_context(messages, readable=readable)
    assert checked == ["file:///etc/hosts", "https://new.example/"]
    assert guide.unreadable == ("file:///etc/hosts",) and not guide.only_unreadable
    assert guide.urls == ("https://new.example/", "https://old.example/")
