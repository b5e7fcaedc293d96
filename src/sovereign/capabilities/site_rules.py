"""The household's site list as web.fetch applies it: rules parsed, URLs judged (DESIGN §3).

The matching is :func:`sovereign.egress.judge_site` (pure); this module gives it the
canonical host of a URL through the same parser that decides what is requested
(:func:`sovereign.net.parse_url`), and turns what the household types into a rule
through the same host parser (:func:`sovereign.net.parse_host`), so a rule and a URL
can never disagree about a spelling (case, IDNA, trailing dot, percent-encoding,
full-width characters, every IP literal form). Decision record:
docs/decisions/household-egress-settings.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sovereign.egress import (
    RuleKind,
    SettingRefused,
    SiteList,
    SiteMode,
    SiteRule,
    SiteVerdict,
    find_invisible,
    judge_site,
    wildcard_problem,
)
from sovereign.executor import CapabilityError, ErrorCode
from sovereign.net import (
    AddressPolicy,
    Host,
    InvalidURL,
    TargetRejected,
    classify_host,
    parse_host,
    parse_url,
)

SiteListReader = Callable[[], SiteList]
"""Returns the household's list as it is now (read fresh on every call)."""

MAX_RULE_CHARACTERS = 253
"""Longest rule accepted, in characters (the longest DNS name)."""


def parse_rule(text: str, address_policy: AddressPolicy | None = None) -> SiteRule:
    """The canonical rule for what the household typed.

    Accepts ``example.org``, ``*.example.org``, an IP literal (``8.8.8.8``,
    ``[2001:db8::1]``, ``2001:db8::1``), or a pasted ``http(s)://`` URL, whose host is
    taken. Names are canonicalised exactly as URLs are (IDNA, case, trailing dot).

    Raises:
        SettingRefused: a ``ValueError`` with a sentence, keyed: empty or invisible
            characters; not a host; a wildcard that is not a leading ``*.`` or covers a
            public suffix; a name or address web.fetch never reads whatever the list
            says (this device, the home network, private or reserved ranges,
            non-canonical numbers).
    """
    text = text.strip()
    if not text or len(text) > MAX_RULE_CHARACTERS + 8:
        raise SettingRefused(
            "site_empty", "A site is a host name such as example.org, *.example.org or 8.8.8.8."
        )
    invisible = find_invisible(text)
    if invisible is not None:
        raise SettingRefused(
            "site_invisible",
            "The site contains {kind} ({character}) at position {position}.",
            kind=invisible.kind, character=invisible.label, position=invisible.position,
        )  # fmt: skip
    if "://" in text:
        return _rule_for(_url_host(text), False, address_policy)
    wildcard = text.startswith("*.")
    host = _host(text[2:] if wildcard else text)
    return _rule_for(host, wildcard, address_policy)


def _url_host(text: str) -> Host:
    try:
        return parse_url(text).host
    except (InvalidURL, TargetRejected) as exc:
        raise SettingRefused(
            "site_not_an_address",
            "{site} is not a web address whose site can be listed.",
            site=repr(text[:80]),
        ) from exc


def _host(text: str) -> Host:
    if any(character in text for character in "*/?#@"):
        raise SettingRefused(
            "site_with_path",
            "{site} is not a site: write a host name (example.org), a wildcard "
            "(*.example.org) or an IP address, without a path.",
            site=repr(text[:80]),
        )
    if text.count(":") == 1 and not text.startswith("["):
        raise SettingRefused(
            "site_with_port", "A site is listed without a port: it covers every port."
        )
    try:
        return parse_host(text)
    except InvalidURL as exc:
        raise SettingRefused(
            "site_invalid_host",
            "{site} is not a valid host name: {reason}.",
            site=repr(text[:80]),
            reason=exc.reason,
        ) from exc


def _rule_for(host: Host, wildcard: bool, address_policy: AddressPolicy | None) -> SiteRule:
    if wildcard:
        if host.address is not None or host.numeric:
            raise SettingRefused(
                "wildcard_address", "A wildcard names sites below a host name, not an IP address."
            )
        problem = wildcard_problem(host.name)
        if problem:
            raise problem
    verdict = classify_host(host, address_policy or AddressPolicy())
    if verdict is not None and not verdict.allowed:
        raise SettingRefused(
            "site_never_read",
            "web.fetch never reads {site} whatever the list says ({verdict}), so it "
            "cannot be listed.",
            site=host.name,
            verdict=str(verdict),
        )
    if host.address is not None:
        return SiteRule(RuleKind.ADDRESS, host.address.compressed)
    return SiteRule(RuleKind.WILDCARD if wildcard else RuleKind.HOST, host.name)


def site_of(url: str) -> str | None:
    """The canonical host of ``url`` (``None`` when it does not parse)."""
    try:
        return parse_url(url).host.name
    except (InvalidURL, TargetRejected):
        return None


def judge_url(site_list: SiteList, url: str) -> tuple[str, SiteVerdict]:
    """``(site, verdict)`` for a URL. One that does not parse is judged as no site:
    refused by an active list, allowed when the list is off."""
    site = site_of(url)
    if site is None:
        off = site_list.mode is SiteMode.OFF
        return url[:80], SiteVerdict.ALLOWED if off else SiteVerdict.NOT_ON_ALLOW_LIST
    return site, judge_site(site_list, site)


def not_allowed(site: str, verdict: SiteVerdict) -> CapabilityError:
    """SITE_NOT_ALLOWED for ``site``: names the site, never the list or the rule that
    matched; the audit log gets the verdict's fixed label."""
    return CapabilityError(
        f"The household does not allow web.fetch to read pages from {site} (the site "
        "list in the Console's settings).",
        code=ErrorCode.SITE_NOT_ALLOWED,
        reason=str(verdict),
    )


def site_list_check(sites: SiteListReader) -> Callable[[dict[str, Any]], None]:
    """web.fetch's stage-3 hook: refuse the canonical ``url`` the list does not allow.

    Reads the list fresh, parses nothing but the URL, looks nothing up.
    """

    def check(arguments: dict[str, Any]) -> None:
        site, verdict = judge_url(sites(), arguments["url"])
        if not verdict.allowed:
            raise not_allowed(site, verdict)

    return check
