"""web.fetch's validate stage: what can only be refused is refused before any card,
without a look-up; invisible characters anywhere in the URL are INVALID_ARGUMENTS."""

from __future__ import annotations

import pytest

from sovereign.capabilities import web_fetch
from sovereign.executor import ErrorCode, Executor, Registry, Stage, TurnState
from sovereign.net import AddressPolicy, StaticResolver
from tests.net.support import Recorder

POLICY = {"external_enabled": True}


def build():
    resolver, connector = StaticResolver({}), Recorder(None)
    registry = Registry()
    web_fetch.register(
        registry,
        resolver=resolver,
        address_policy=AddressPolicy(local_interfaces=list),
        connector=connector,
    )
    return Executor(registry), resolver, connector


async def propose(executor, url):
    return await executor.invoke(
        "web.fetch", 1, {"url": url}, policy=POLICY, turn_state=TurnState()
    )


@pytest.mark.parametrize(
    ("url", "verdict"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://127.255.255.254:8081/completion", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://[::ffff:7f00:1]/", "loopback"),
        ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "loopback"),
        ("http://[64:ff9b::7f00:1]/", "loopback"),
        ("http://[2002:7f00:1::]/", "loopback"),
        ("http://%31%32%37.0.0.1/", "loopback"),
        ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "loopback"),
        ("http://127\u30020\u30020\u30021/", "loopback"),
        ("http://127.0.0.1./", "loopback"),
        ("http://127.1/", "non-canonical numeric host"),
        ("http://2130706433/", "non-canonical numeric host"),
        ("http://0x7f.0.0.1/", "non-canonical numeric host"),
        ("http://0177.0.0.1/", "non-canonical numeric host"),
        ("http://10.0.0.1/", "private network"),
        ("http://192.168.1.1/admin", "private network"),
        ("http://172.16.0.1/", "private network"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://0.0.0.0/", "this network"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fe80::1%25eth0]/", "link-local"),
        ("http://[fd00::1]/", "unique local"),
        ("http://224.0.0.1/", "multicast"),
        ("http://user@example.org/", "user name or password"),
        ("http://localhost/", "home network"),
        ("http://LOCALHOST./", "home network"),
        ("http://app.localhost/", "home network"),
        ("http://printer.local/", "home network"),
        ("http://nas.lan/", "home network"),
        ("http://router.home/", "home network"),
        ("http://hub.home.arpa/", "home network"),
        ("http://git.corp.internal/", "home network"),
        ("http://localhost.localdomain/", "home network"),
        ("http://router/", "home network"),
        ("http://exampleonion.onion/", "special-use name"),
    ],
)
async def test_a_destination_that_can_only_be_refused_gets_no_card_and_no_look_up(url, verdict):
    executor, resolver, connector = build()
    outcome = await propose(executor, url)
    assert (outcome.stage, outcome.error_code) == (Stage.VALIDATE, ErrorCode.FETCH_TARGET_REJECTED)
    assert verdict in outcome.message
    assert outcome.reason and outcome.reason.startswith("deny:")
    assert len(executor.confirmations) == 0
    assert resolver.lookups == {} and connector.attempts == []


@pytest.mark.parametrize(
    "url",
    ["http://example.org/", "https://news.example.com/a?b=c", "http://localhost.example.org/",
     "http://local.example/", "http://lan.example.net/", "http://8.8.8.8/", "http://[2606:4700::1]/",
     "http://xn--bcher-kva.example/"],
)
async def test_any_other_destination_gets_a_card_and_nothing_is_looked_up_before_approval(url):
    executor, resolver, connector = build()
    outcome = await propose(executor, url)
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED, outcome
    assert resolver.lookups == {} and connector.attempts == []


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://example.org/report\u202egnp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("http://exa\u00admple.org/", "U+00AD SOFT HYPHEN"),
        ("http://example.org/\u200b", "U+200B ZERO WIDTH SPACE"),
        ("http://example.org/?q=\U000E0068\U000E0069", "U+E0068 TAG LATIN SMALL LETTER H"),
        ("http://example.org/a\u00a0b", "U+00A0 NO-BREAK SPACE"),
        ("http://example.org/\u2028", "U+2028 LINE SEPARATOR"),
        ("http://example.org/\ue000", "U+E000"),
        ("http://ex\u200dample.org/", "U+200D ZERO WIDTH JOINER"),
        ("http://example.org/\ufe0f", "U+FE0F VARIATION SELECTOR-16"),
    ],
)
async def test_an_invisible_character_anywhere_in_the_url_is_invalid(url, words):
    executor, resolver, _ = build()
    outcome = await propose(executor, url)
    assert (outcome.stage, outcome.error_code) == (Stage.VALIDATE, ErrorCode.INVALID_ARGUMENTS)
    assert outcome.message.startswith("The URL contains ")
    assert words in outcome.message and "at position" in outcome.message
    assert resolver.lookups == {}


async def test_a_stray_percent_sign_is_invalid_rather_than_guessed():
    executor, _, _ = build()
    outcome = await propose(executor, "http://example.org/100%/sure")
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
    assert "two hexadecimal digits" in outcome.message


@pytest.mark.parametrize(
    ("start_index", "canonical"),
    [(0, None), (0.0, None), (2, 2), (2.0, 2), (1_000_000, 1_000_000)],
)
async def test_start_index_has_one_spelling_on_the_card(start_index, canonical):
    executor, _, _ = build()
    arguments = {"url": "https://example.org/long", "start_index": start_index}
    outcome = await executor.invoke(
        "web.fetch", 1, arguments, policy=POLICY, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED, outcome
    expected = {"url": "https://example.org/long"}
    if canonical is not None:
        expected["start_index"] = canonical
    assert outcome.arguments == expected
    assert type(outcome.arguments.get("start_index", 0)) is int


@pytest.mark.parametrize("start_index", [-1, 1.5, True, "3"])
async def test_start_index_that_is_not_a_whole_number_of_characters_is_invalid(start_index):
    executor, _, _ = build()
    arguments = {"url": "https://example.org/long", "start_index": start_index}
    outcome = await executor.invoke(
        "web.fetch", 1, arguments, policy=POLICY, turn_state=TurnState()
    )
    assert outcome.error_code is ErrorCode.INVALID_ARGUMENTS
