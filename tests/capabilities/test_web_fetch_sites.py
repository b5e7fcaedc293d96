"""web.fetch under the household's site list: rules parsed as URLs are, every spelling of a
host judged as that host, refusals before any card and any look-up, and again at execute."""

from __future__ import annotations

from ipaddress import ip_address

import pytest

from sovereign.capabilities import web_fetch
from sovereign.capabilities.site_rules import judge_url, parse_rule
from sovereign.egress import RuleKind, SiteList, SiteMode, SiteRule, SiteVerdict
from sovereign.executor import AuditLog, ErrorCode, Executor, Registry, Stage, TurnState
from sovereign.net import AddressPolicy, StaticResolver
from tests.net.support import LoopbackConnector, LoopbackServer, Recorder, respond

POLICY = {"external_enabled": True}
HTML = {"Content-Type": "text/html; charset=utf-8"}


@pytest.mark.parametrize(
    ("typed", "kind", "value"),
    [
        ("example.org", RuleKind.HOST, "example.org"),
        ("EXAMPLE.org.", RuleKind.HOST, "example.org"),
        ("  example.org  ", RuleKind.HOST, "example.org"),
        ("bücher.example", RuleKind.HOST, "xn--bcher-kva.example"),
        ("xn--bcher-kva.example", RuleKind.HOST, "xn--bcher-kva.example"),
        ("BÜCHER.example", RuleKind.HOST, "xn--bcher-kva.example"),
        ("\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.org", RuleKind.HOST, "example.org"),
        ("%65xample.org", RuleKind.HOST, "example.org"),
        ("https://www.example.org/some/page?x=1", RuleKind.HOST, "www.example.org"),
        ("*.example.org", RuleKind.WILDCARD, "example.org"),
        ("*.Bücher.example.", RuleKind.WILDCARD, "xn--bcher-kva.example"),
        ("*.bbc.co.uk", RuleKind.WILDCARD, "bbc.co.uk"),
        ("8.8.8.8", RuleKind.ADDRESS, "8.8.8.8"),
        ("8.8.8.8.", RuleKind.ADDRESS, "8.8.8.8"),
        ("\uff18.\uff18.\uff18.\uff18", RuleKind.ADDRESS, "8.8.8.8"),
        ("[2001:4860:4860:0:0:0:0:8888]", RuleKind.ADDRESS, "2001:4860:4860::8888"),
        ("2001:4860:4860::8888", RuleKind.ADDRESS, "2001:4860:4860::8888"),
        ("2001:4860:4860::8888".upper(), RuleKind.ADDRESS, "2001:4860:4860::8888"),
    ],
)
def test_a_typed_site_becomes_its_canonical_rule(typed, kind, value):
    assert parse_rule(typed) == SiteRule(kind, value)


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("", "host name"),
        ("*.org", "top-level domain"),
        ("*.co.uk", "public suffix co.uk"),
        ("*.github.io", "public suffix github.io"),
        ("*", "not a site"),
        ("ex*ample.org", "not a site"),
        ("*example.org", "not a site"),
        ("www.*.example.org", "not a site"),
        ("example.org/path", "not a site"),
        ("example.org:8080", "without a port"),
        ("user@example.org", "not a site"),
        ("localhost", "never reads"),
        ("router", "never reads"),
        ("nas.lan", "never reads"),
        ("*.local", "top-level domain"),
        ("*.home.arpa", "home.arpa"),
        ("*.nas.lan", "never reads"),
        ("printer.local", "never reads"),
        ("127.0.0.1", "never reads"),
        ("10.0.0.1", "never reads"),
        ("192.168.1.1", "never reads"),
        ("[::1]", "never reads"),
        ("[::ffff:8.8.8.8]", "never reads"),
        ("2001:db8::1", "never reads"),
        ("127.1", "never reads"),
        ("134744072", "never reads"),
        ("0x08080808", "never reads"),
        ("010.010.010.010", "never reads"),
        ("*.8.8.8", "IP address"),
        ("exa\u200bmple.org", "U+200B"),
        ("ftp://example.org/", "not a web address"),
    ],
)
def test_a_site_that_cannot_be_listed_is_refused_with_a_sentence(typed, words):
    with pytest.raises(ValueError) as refused:
        parse_rule(typed)
    assert words in str(refused.value)


LIST = SiteList(
    SiteMode.ALLOW_ONLY,
    allow=(
        parse_rule("example.org"),
        parse_rule("*.wiki.example"),
        parse_rule("bücher.example"),
        parse_rule("8.8.8.8"),
        parse_rule("2001:4860:4860::8888"),
    ),
)


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org/",
        "https://EXAMPLE.ORG/a",
        "https://example.org./a",
        "https://example.org:8443/a",
        "http://%65xample.org/",
        "http://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.org/",
        "https://en.wiki.example/Page",
        "https://a.b.wiki.example/",
        "https://bücher.example/",
        "https://BÜCHER.example/",
        "https://xn--bcher-kva.example/",
        "http://8.8.8.8/",
        "http://8.8.8.8./",
        "http://%38.8.8.8/",
        "http://\uff18.\uff18.\uff18.\uff18/",
        "http://[2001:4860:4860::8888]/",
        "http://[2001:4860:4860:0:0:0:0:8888]/",
        "http://[2001:4860:4860:0000:0000:0000:0000:8888]/",
        "http://[2001:4860:4860::8888]:8080/",
    ],
)
def test_every_spelling_of_a_listed_site_is_that_site(url):
    site, verdict = judge_url(LIST, url)
    assert verdict is SiteVerdict.ALLOWED, site


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org.evil.tld/",
        "http://evilexample.org/",
        "http://www.example.org/",
        "http://example.org@evil.tld/",
        "http://evil.tld/?example.org",
        "http://evil.tld/#example.org",
        "http://evil.tld/example.org",
        "http://wiki.example/",  # the wildcard's own name is not below it
        "http://evilwiki.example/",
        "http://wiki.example.evil.tld/",
        "http://ex\u0430mple.org/",  # with CYRILLIC SMALL LETTER A
        "http://xn--exmple-4nf.org/",
        "http://bucher.example/",
        "http://xn--bcher-kva.example.evil.tld/",
        "http://8.8.4.4/",
        "http://8.8.8.8.example.org/",
        "http://[2001:4860:4860::8844]/",
        "http://dns.google/",
    ],
)
def test_look_alikes_and_neighbours_are_not_on_the_list(url):
    _, verdict = judge_url(LIST, url)
    assert verdict is SiteVerdict.NOT_ON_ALLOW_LIST


@pytest.mark.parametrize(
    "url",
    ["https://ads.example.org/x", "https://ADS.Example.ORG./x", "https://deep.ads.example.org/",
     "http://%61ds.example.org/", "https://tracker.example/"],
)
def test_block_refuses_every_spelling_of_a_blocked_site(url):
    listed = SiteList(
        SiteMode.BLOCK, block=(parse_rule("*.ads.example.org"), parse_rule("ads.example.org"),
                               parse_rule("tracker.example")),
    )
    assert judge_url(listed, url)[1] is SiteVerdict.ON_BLOCK_LIST


class Sites:
    """A site list a test can change between calls; counts how often it was read."""

    def __init__(self, *lists: SiteList) -> None:
        self.lists = list(lists)
        self.reads = 0

    def __call__(self) -> SiteList:
        self.reads += 1
        return self.lists[min(self.reads, len(self.lists)) - 1]


def build(tmp_path, sites, *, resolver=None, connector=None, policy=None):
    registry = Registry()
    web_fetch.register(
        registry,
        resolver=resolver or StaticResolver({}),
        address_policy=policy or AddressPolicy(local_interfaces=list),
        connector=connector or Recorder(None),
        sites=sites,
    )
    return Executor(registry, audit=AuditLog(tmp_path))


async def propose(executor, url, token=None):
    return await executor.invoke(
        "web.fetch", 1, {"url": url}, policy=POLICY, turn_state=TurnState(),
        confirmation_token=token,
    )


def audit_lines(tmp_path):
    return (tmp_path / "capabilities" / "audit.jsonl").read_text()


@pytest.mark.parametrize(
    ("listed", "url"),
    [
        (SiteList(SiteMode.BLOCK, block=(parse_rule("blocked.example"),)),
         "https://BLOCKED.example./page"),
        (SiteList(SiteMode.BLOCK, block=(parse_rule("*.blocked.example"),)),
         "https://www.blocked.example/"),
        (SiteList(SiteMode.ALLOW_ONLY, allow=(parse_rule("ok.example"),)),
         "https://blocked.example/"),
        (SiteList(SiteMode.ALLOW_ONLY), "https://blocked.example/"),
    ],
)
async def test_a_refused_site_gets_no_card_no_look_up_and_no_connection(tmp_path, listed, url):
    resolver, connector = StaticResolver({"blocked.example": ["8.8.8.8"]}), Recorder(None)
    executor = build(tmp_path, lambda: listed, resolver=resolver, connector=connector)
    outcome = await propose(executor, url)
    assert (outcome.stage, outcome.error_code) == (Stage.POLICY, ErrorCode.SITE_NOT_ALLOWED)
    assert "household does not allow" in outcome.message
    site = "www.blocked.example" if "www." in url else "blocked.example"
    assert site in outcome.message  # the site is named ...
    assert "ok.example" not in outcome.message  # ... the list never is
    assert len(executor.confirmations) == 0
    assert resolver.lookups == {} and connector.attempts == []
    log = audit_lines(tmp_path)
    assert '"error_code":"SITE_NOT_ALLOWED"' in log.replace(" ", "")
    assert "blocked.example" not in log and "ok.example" not in log
    assert outcome.reason in ("site list: on the block list", "site list: not on the allow list")


async def test_an_allowed_site_gets_its_card_and_still_nothing_is_looked_up(tmp_path):
    resolver, connector = StaticResolver({}), Recorder(None)
    listed = SiteList(SiteMode.ALLOW_ONLY, allow=(parse_rule("ok.example"),))
    executor = build(tmp_path, lambda: listed, resolver=resolver, connector=connector)
    outcome = await propose(executor, "https://OK.example/a")
    assert outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
    assert outcome.arguments == {"url": "https://ok.example/a"}
    assert resolver.lookups == {} and connector.attempts == []


async def test_the_list_never_loosens_the_address_policy(tmp_path):
    # a hand-edited list naming a loopback address or a local name admits neither
    listed = SiteList(SiteMode.ALLOW_ONLY, allow=(
        SiteRule(RuleKind.ADDRESS, "127.0.0.1"), SiteRule(RuleKind.HOST, "localhost")))
    executor = build(tmp_path, lambda: listed)
    for url in ("http://127.0.0.1/", "http://localhost/"):
        outcome = await propose(executor, url)
        assert (outcome.stage, outcome.error_code) == (
            Stage.VALIDATE, ErrorCode.FETCH_TARGET_REJECTED)


async def test_a_name_on_the_allow_list_that_resolves_to_a_private_address_is_refused(tmp_path):
    resolver, connector = StaticResolver({"ok.example": ["192.168.1.10"]}), Recorder(None)
    listed = SiteList(SiteMode.ALLOW_ONLY, allow=(parse_rule("ok.example"),))
    executor = build(tmp_path, lambda: listed, resolver=resolver, connector=connector)
    card = await propose(executor, "http://ok.example/")
    token = executor.confirmations.issue("web.fetch", 1, card.arguments)
    outcome = await propose(executor, "http://ok.example/", token)
    assert outcome.error_code is ErrorCode.FETCH_TARGET_REJECTED
    assert connector.attempts == []


async def test_a_site_blocked_after_the_card_is_refused_on_approval(tmp_path):
    blocked = SiteList(SiteMode.BLOCK, block=(parse_rule("news.example"),))
    sites = Sites(SiteList(), blocked)
    resolver, connector = StaticResolver({"news.example": ["8.8.8.8"]}), Recorder(None)
    executor = build(tmp_path, sites, resolver=resolver, connector=connector)
    card = await propose(executor, "http://news.example/")
    assert card.error_code is ErrorCode.CONFIRMATION_REQUIRED
    token = executor.confirmations.issue("web.fetch", 1, card.arguments)
    outcome = await propose(executor, "http://news.example/", token)
    assert (outcome.stage, outcome.error_code) == (Stage.POLICY, ErrorCode.SITE_NOT_ALLOWED)
    assert resolver.lookups == {} and connector.attempts == []


async def test_execute_judges_the_url_it_is_about_to_request_again(tmp_path):
    # allowed at the policy stage of the approval, blocked by the time execute reads the list
    blocked = SiteList(SiteMode.BLOCK, block=(parse_rule("news.example"),))
    sites = Sites(SiteList(), SiteList(), blocked)
    resolver, connector = StaticResolver({"news.example": ["8.8.8.8"]}), Recorder(None)
    executor = build(tmp_path, sites, resolver=resolver, connector=connector)
    card = await propose(executor, "http://news.example/")
    token = executor.confirmations.issue("web.fetch", 1, card.arguments)
    outcome = await propose(executor, "http://news.example/", token)
    assert (outcome.stage, outcome.error_code) == (Stage.EXECUTE, ErrorCode.SITE_NOT_ALLOWED)
    assert sites.reads == 3
    assert resolver.lookups == {} and connector.attempts == []


@pytest.fixture
async def server():
    running = await LoopbackServer().start()
    yield running
    await running.stop()


async def test_a_redirect_outside_the_list_is_reported_and_its_follow_up_refused(tmp_path, server):
    server.routes["/moved"] = respond("302 Found", {"Location": "https://elsewhere.example/x"})
    resolver = StaticResolver({"pages.example": ["127.0.0.1"], "elsewhere.example": ["127.0.0.1"]})
    connector = LoopbackConnector()
    listed = SiteList(SiteMode.ALLOW_ONLY, allow=(parse_rule("pages.example"),))
    executor = build(
        tmp_path, lambda: listed, resolver=resolver, connector=connector,
        policy=AddressPolicy(local_interfaces=list, unsafe_allow={ip_address("127.0.0.1")}),
    )
    url = f"http://pages.example:{server.port}/moved"
    card = await propose(executor, url)
    token = executor.confirmations.issue("web.fetch", 1, card.arguments)
    fetched = await propose(executor, url, token)
    assert fetched.ok, fetched
    assert fetched.result["redirected"] is True
    assert fetched.result["final_url"] == "https://elsewhere.example/x"
    assert fetched.result["redirect_allowed"] is False
    assert fetched.result["text"] == ""
    attempts = list(connector.attempts)
    follow_up = await propose(executor, fetched.result["final_url"])
    assert (follow_up.stage, follow_up.error_code) == (Stage.POLICY, ErrorCode.SITE_NOT_ALLOWED)
    assert "elsewhere.example" in follow_up.message
    assert connector.attempts == attempts and resolver.lookups == {"pages.example": 1}
    assert len(server.requests) == 1


async def test_a_redirect_inside_the_list_is_reported_as_allowed(tmp_path, server):
    server.routes["/moved"] = respond("301 Moved", {"Location": "/new"})
    resolver = StaticResolver({"pages.example": ["127.0.0.1"]})
    listed = SiteList(SiteMode.ALLOW_ONLY, allow=(parse_rule("pages.example"),))
    executor = build(
        tmp_path, lambda: listed, resolver=resolver, connector=LoopbackConnector(),
        policy=AddressPolicy(local_interfaces=list, unsafe_allow={ip_address("127.0.0.1")}),
    )
    url = f"http://pages.example:{server.port}/moved"
    card = await propose(executor, url)
    token = executor.confirmations.issue("web.fetch", 1, card.arguments)
    fetched = await propose(executor, url, token)
    assert fetched.result["redirect_allowed"] is True
    assert fetched.result["final_url"] == f"http://pages.example:{server.port}/new"


async def test_a_page_read_carries_no_redirect_field(tmp_path, server):
    server.routes["/page"] = respond("200 OK", HTML, b"<p>hello</p>")
    resolver = StaticResolver({"pages.example": ["127.0.0.1"]})
    executor = build(
        tmp_path, SiteList, resolver=resolver, connector=LoopbackConnector(),
        policy=AddressPolicy(local_interfaces=list, unsafe_allow={ip_address("127.0.0.1")}),
    )
    url = f"http://pages.example:{server.port}/page"
    card = await propose(executor, url)
    token = executor.confirmations.issue("web.fetch", 1, card.arguments)
    fetched = await propose(executor, url, token)
    assert fetched.ok and "redirect_allowed" not in fetched.result
    assert "hello" in fetched.result["text"]
