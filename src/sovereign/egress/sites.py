"""The household's site list for web.fetch: which hosts a page may be read from (DESIGN §1).

Pure functions over canonical host names; imports nothing of ours. A host reaches
:func:`judge_site` in the one form the URL parser gives it (``sovereign.net.parse_url``:
lower case, IDNA A-labels, no trailing dot, an IPv6 literal compressed without its
brackets), and a rule holds its value in the same form, so matching compares strings
(names) or addresses (IP literals) and never spellings. Decision record:
docs/decisions/household-egress-settings.md.

Rules:

* ``example.org``: that host exactly (not ``www.example.org``);
* ``*.example.org``: any host one label or more below ``example.org`` (not
  ``example.org`` itself, not ``evilexample.org``, not ``example.org.evil.tld``);
  the part after ``*.`` may not be a public suffix (``org``, ``co.uk``, ``github.io``:
  :func:`wildcard_problem`);
* ``8.8.8.8`` or ``2001:4860:4860::8888``: that IP literal in the URL (a name that
  resolves to it is a name, judged by the name rules).

A rule covers both schemes and every port. The list only ever narrows what the address
policy allows: it is consulted after that policy, and nothing here can admit a host
the policy refuses.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from ipaddress import IPv4Address, IPv6Address, ip_address

from publicsuffixlist import PublicSuffixList

from .refusals import SettingRefused

__all__ = [
    "RuleKind",
    "SiteList",
    "SiteMode",
    "SiteRule",
    "SiteVerdict",
    "judge_site",
    "rule_matches",
    "wildcard_problem",
]

WILDCARD_PREFIX = "*."


class SiteMode(StrEnum):
    """How the list applies: not at all, as the only sites allowed, or as sites refused."""

    OFF = "off"
    ALLOW_ONLY = "allow-only"
    BLOCK = "block"


class RuleKind(StrEnum):
    """What one rule names."""

    HOST = "host"
    WILDCARD = "wildcard"
    ADDRESS = "address"


class SiteVerdict(StrEnum):
    """The list's answer for one host; the value is the audit log's fixed ``reason``."""

    ALLOWED = "site list: allowed"
    NOT_ON_ALLOW_LIST = "site list: not on the allow list"
    ON_BLOCK_LIST = "site list: on the block list"

    @property
    def allowed(self) -> bool:
        """True only for :attr:`ALLOWED`."""
        return self is SiteVerdict.ALLOWED


@dataclass(frozen=True, order=True)
class SiteRule:
    """One entry of the list, canonical (see the module).

    ``value``: the host name (HOST), the name below which hosts match (WILDCARD,
    without ``*.``) or the address in its compressed text form (ADDRESS).
    """

    kind: RuleKind
    value: str

    @property
    def text(self) -> str:
        """The rule as the household writes it: ``example.org``, ``*.example.org``,
        ``8.8.8.8``."""
        return WILDCARD_PREFIX + self.value if self.kind is RuleKind.WILDCARD else self.value


@dataclass(frozen=True)
class SiteList:
    """The household's list. ``allow`` applies in ALLOW_ONLY mode, ``block`` in BLOCK
    mode; both are kept whatever the mode, so switching modes never reinterprets a rule."""

    mode: SiteMode = SiteMode.OFF
    allow: tuple[SiteRule, ...] = ()
    block: tuple[SiteRule, ...] = ()

    @property
    def active_rules(self) -> tuple[SiteRule, ...]:
        """The rules the mode applies (none when OFF)."""
        if self.mode is SiteMode.ALLOW_ONLY:
            return self.allow
        return self.block if self.mode is SiteMode.BLOCK else ()


def rule_matches(rule: SiteRule, host: str) -> bool:
    """True when ``rule`` names ``host`` (a canonical host, see the module).

    An IP literal matches only an ADDRESS rule of the same address; a name matches a
    HOST rule equal to it, or a WILDCARD rule it lies one label or more below.
    """
    address = _address(host)
    if rule.kind is RuleKind.ADDRESS:
        return address is not None and address == _address(rule.value)
    if address is not None:
        return False
    if rule.kind is RuleKind.HOST:
        return host == rule.value
    return host.endswith("." + rule.value)


def judge_site(site_list: SiteList, host: str) -> SiteVerdict:
    """The list's verdict on a canonical ``host``.

    OFF allows everything; ALLOW_ONLY allows only hosts some allow rule matches (an
    empty allow list allows nothing); BLOCK refuses hosts some block rule matches.
    A host that is not in canonical form (upper case, a trailing dot, non-ASCII) is
    never allowed by ALLOW_ONLY and never escapes BLOCK: it is canonicalised the
    cheap way (case, trailing dot) and, when still not ASCII, treated as matching
    nothing in ALLOW_ONLY and as blocked in BLOCK.
    """
    if site_list.mode is SiteMode.OFF:
        return SiteVerdict.ALLOWED
    name = host.lower().removesuffix(".")
    ascii_name = name.isascii()
    matched = ascii_name and any(rule_matches(rule, name) for rule in site_list.active_rules)
    if site_list.mode is SiteMode.ALLOW_ONLY:
        return SiteVerdict.ALLOWED if matched else SiteVerdict.NOT_ON_ALLOW_LIST
    return SiteVerdict.ON_BLOCK_LIST if matched or not ascii_name else SiteVerdict.ALLOWED


def wildcard_problem(base: str) -> SettingRefused | None:
    """Why ``*.<base>`` may not be a rule (its sentence, keyed), or ``None`` when it may.

    ``base`` is a canonical host name. Refused: a single label (a top-level domain)
    and any public suffix of the Public Suffix List, ICANN and private sections alike
    (``co.uk``, ``github.io``): names below a public suffix belong to unrelated
    owners, so such a wildcard is a whole registry, not a site.
    """
    if "." not in base:
        return SettingRefused(
            "wildcard_top_level",
            "*.{base} would cover a whole top-level domain; name a site below it.",
            base=base,
        )
    if _suffixes().is_public(base):
        return SettingRefused(
            "wildcard_public_suffix",
            "*.{base} would cover every site registered under the public suffix {base}; "
            "name a site below it.",
            base=base,
        )
    return None


@functools.cache
def _suffixes() -> PublicSuffixList:
    """The Public Suffix List bundled with ``publicsuffixlist`` (read once, offline)."""
    return PublicSuffixList()


def _address(text: str) -> IPv4Address | IPv6Address | None:
    try:
        return ip_address(text)
    except ValueError:
        return None
