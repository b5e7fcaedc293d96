"""The site list's matching, as a pure function over canonical hosts (egress/sites.py)."""

from __future__ import annotations

import pytest

from sovereign.egress import (
    RuleKind,
    SiteList,
    SiteMode,
    SiteRule,
    SiteVerdict,
    judge_site,
    rule_matches,
    wildcard_problem,
)

HOST = SiteRule(RuleKind.HOST, "example.org")
WILDCARD = SiteRule(RuleKind.WILDCARD, "example.org")
ADDRESS_V4 = SiteRule(RuleKind.ADDRESS, "8.8.8.8")
ADDRESS_V6 = SiteRule(RuleKind.ADDRESS, "2001:4860:4860::8888")


@pytest.mark.parametrize(
    ("rule", "host", "matches"),
    [
        # an exact host is that host only
        (HOST, "example.org", True),
        (HOST, "www.example.org", False),
        (HOST, "example.org.evil.tld", False),
        (HOST, "evilexample.org", False),
        (HOST, "example.or", False),
        (HOST, "example.org0", False),
        (HOST, "xn--exmple-4nf.org", False),  # "example.org" with CYRILLIC SMALL LETTER A
        # a wildcard is one label or more below, never the name itself
        (WILDCARD, "www.example.org", True),
        (WILDCARD, "a.b.c.example.org", True),
        (WILDCARD, "example.org", False),
        (WILDCARD, "evilexample.org", False),
        (WILDCARD, "example.org.evil.tld", False),
        (WILDCARD, "www.example.org.evil.tld", False),
        (WILDCARD, "wwwexample.org", False),
        (WILDCARD, "xn--www-example-.org", False),
        # addresses match addresses, whatever their text
        (ADDRESS_V4, "8.8.8.8", True),
        (ADDRESS_V4, "8.8.8.9", False),
        (ADDRESS_V4, "8.8.8.8.example.org", False),
        (ADDRESS_V6, "2001:4860:4860::8888", True),
        (ADDRESS_V6, "2001:4860:4860:0:0:0:0:8888", True),
        (ADDRESS_V6, "2001:4860:4860::8844", False),
        # a name rule never matches an address, an address rule never a name
        (SiteRule(RuleKind.HOST, "8.8.8.8"), "8.8.8.8", False),
        (SiteRule(RuleKind.WILDCARD, "8.8"), "8.8.8.8", False),
        (ADDRESS_V4, "dns.google", False),
    ],
)
def test_a_rule_matches_exactly_the_hosts_it_names(rule, host, matches):
    assert rule_matches(rule, host) is matches


def allow_only(*rules):
    return SiteList(SiteMode.ALLOW_ONLY, allow=rules)


def block(*rules):
    return SiteList(SiteMode.BLOCK, block=rules)


def test_off_allows_everything_even_with_rules_kept():
    listed = SiteList(SiteMode.OFF, allow=(HOST,), block=(HOST,))
    assert judge_site(listed, "example.org") is SiteVerdict.ALLOWED
    assert judge_site(listed, "anything.example") is SiteVerdict.ALLOWED


@pytest.mark.parametrize("host", ["example.net", "example.org.evil.tld", "www.example.org",
                                  "8.8.4.4", "evilexample.org"])
def test_allow_only_refuses_everything_not_listed(host):
    assert judge_site(allow_only(HOST, ADDRESS_V4), host) is SiteVerdict.NOT_ON_ALLOW_LIST


def test_an_empty_allow_list_allows_nothing():
    assert judge_site(SiteList(SiteMode.ALLOW_ONLY), "example.org") is SiteVerdict.NOT_ON_ALLOW_LIST


def test_allow_only_allows_what_is_listed_and_only_the_active_list_counts():
    listed = SiteList(SiteMode.ALLOW_ONLY, allow=(WILDCARD,), block=(HOST,))
    assert judge_site(listed, "docs.example.org").allowed
    assert not judge_site(listed, "example.org").allowed  # on the block list: irrelevant here
    assert judge_site(SiteList(SiteMode.BLOCK, allow=(HOST,)), "example.org").allowed


@pytest.mark.parametrize("host", ["example.org", "EXAMPLE.ORG", "example.org.", "Example.Org."])
def test_block_refuses_the_listed_host_in_any_case_and_with_a_trailing_dot(host):
    assert judge_site(block(HOST), host) is SiteVerdict.ON_BLOCK_LIST


def test_a_non_ascii_host_never_passes_a_list():
    # canonical hosts are ASCII; anything else is refused by both modes rather than guessed
    assert not judge_site(block(HOST), "exämple.org").allowed
    assert not judge_site(allow_only(SiteRule(RuleKind.HOST, "exämple.org")), "exämple.org").allowed


@pytest.mark.parametrize("base", ["org", "com", "uk", "co.uk", "ac.uk", "github.io",
                                  "blogspot.com", "kawasaki.jp", "xn--p1ai", "ck", "local"])
def test_a_wildcard_over_a_public_suffix_is_refused(base):
    problem = wildcard_problem(base)
    assert problem is not None and f"*.{base}" in str(problem)


@pytest.mark.parametrize("base", ["example.org", "bbc.co.uk", "user.github.io", "www.ck",
                                  "city.kawasaki.jp", "example.test"])
def test_a_wildcard_below_a_registrable_name_is_accepted(base):
    assert wildcard_problem(base) is None


def test_the_rule_text_is_what_the_household_writes():
    assert [r.text for r in (HOST, WILDCARD, ADDRESS_V4)] == [
        "example.org", "*.example.org", "8.8.8.8",
    ]


def test_verdicts_are_fixed_audit_labels_that_never_hold_a_host():
    for verdict in SiteVerdict:
        assert verdict.value.startswith("site list: ")
        assert "." not in verdict.value
