"""E-mail addresses and phone numbers in a proposal, from their grammars (DESIGN §4).

**E-mail** (RFC 5322 §3.4.1 ``addr-spec``, dot-atom form, with RFC 6531's Unicode
letters): a local part of letters, digits, ``_+-`` and single dots, ``@``, then a domain of
at least two LDH labels ending in an alphabetic top-level label (or an ``xn--``
one). Also read: the obfuscations people write to dodge harvesters, ``name at
example dot com``, ``name (at) example (dot) com``, ``name @ example.com``
(:mod:`.scanview` already turns the bracketed forms into ``@`` and ``.``). The word
``at`` alone is not enough (``sign in at paypal.com`` is a sentence): a spelled
``at`` needs a spelled ``dot`` as well. Not flagged: the SSH user of code forges
(``git@github.com``) and no-reply senders, which name no person, and ``user@host``
on a home-network host (``pi@raspberrypi.local``: a login, judged by its host name).

**Phone numbers** (ITU-T E.164 and the national plans it fronts):

1. international: ``+`` or ``00``, a country code and the rest, 7 to 15 digits in
   all, grouped by spaces, dashes, dots, slashes or ``(0)``;
2. North American (NANP): ``NXX XXX XXXX`` with the area code optionally in
   parentheses and a leading ``1``; area codes the plan forbids (N11, a middle 9)
   and toll-free codes (800, 833, …, 888, and +800 worldwide: numbers businesses
   publish) are not phone numbers of a household;
3. trunk-prefixed national form used across Europe, Asia and Oceania: ``0`` and an
   area code, then groups, 9 to 12 digits, at least one separator
   (``020 7946 0958``, ``01 23 45 67 89``, ``(02) 9876 5432``); freephone ``0800``
   and ``0808`` are not flagged;
4. any other run of 7 to 15 digits (with single separators) right after a word
   that says a phone number follows (``call``, ``text``, ``my number``, …).

A number that reads as a calendar date first, or that follows a word naming some
other kind of number (``ISBN``, ``order``, ``serial``, ``model``, …), is not a phone
number. Digits inside an address or MAC already found are left to those detectors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from itertools import pairwise

from .names import HOME_SUFFIXES

__all__ = ["find_emails", "find_phones"]

Match = tuple[str, int, int]

_ATOM = r"[\w+-]"
"""Letters, digits, ``_``, ``+`` and ``-``: RFC 5322 allows more (``=``, ``?``, ``/``, …),
which real addresses do not use and URLs use as syntax around them."""
_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_TLD = r"(?:[^\W\d_]{2,63}|xn--[a-z0-9-]{1,59})"
_EMAIL = re.compile(
    rf"(?<![\w.])(?P<local>{_ATOM}+(?:\.{_ATOM}+)*)@(?P<domain>(?:{_LABEL}\.)+{_TLD})"
    r"(?![\w-]|\.[^\W_])",
)
_SPELLED_AT = r"(?:\s+at\s+|\s+@\s*|\s*@\s+|@)"
_SPELLED_DOT = r"(?:\s+dot\s+|\.)"
_OBFUSCATED = re.compile(
    rf"(?<![\w.])(?P<local>[\w+-]+(?:\.[\w+-]+)*)(?P<at>{_SPELLED_AT})"
    rf"(?P<domain>{_LABEL}(?:{_SPELLED_DOT}{_LABEL})*{_SPELLED_DOT}[a-z]{{2,24}})(?![\w-])",
    re.IGNORECASE,
)
_NOT_A_PERSON = frozenset(
    {"git", "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply"}
)


def find_emails(text: str) -> list[Match]:
    """E-mail addresses in the scan view ``text``, written plainly or obfuscated."""
    found = []
    for match in _EMAIL.finditer(text):
        if _mailbox(match):
            found.append(("email_address", match.start(), match.end()))
    lowered = text.lower()
    if " at " in lowered or ("@" in text and (" dot " in lowered or " @" in text or "@ " in text)):
        for match in _OBFUSCATED.finditer(text):
            if _is_obfuscated(match) and _mailbox(match):
                found.append(("email_address", match.start(), match.end()))
    return found


def _mailbox(match: re.Match[str]) -> bool:
    """Not a forge's SSH user or a no-reply sender, and not ``user@host.local``: a login
    on a home-network host, whose host name the name rules judge."""
    domain = match.group("domain").lower()
    at_home = any(domain == s or domain.endswith("." + s) for s in HOME_SUFFIXES)
    return match.group("local").lower() not in _NOT_A_PERSON and not at_home


def _is_obfuscated(match: re.Match[str]) -> bool:
    """Spaced or spelled somewhere, and a spelled ``at`` only with a spelled ``dot``."""
    at = match.group("at").strip().lower()
    spelled_dot = re.search(r"\sdot\s", match.group("domain"), re.IGNORECASE) is not None
    if at == "at":
        return spelled_dot
    return spelled_dot or match.group("at") != "@"


_SEP = r"(?:[ .\-/]|\s-\s)"
_END = r"(?![\w:%]|[.,/\-]\d)"
"""Not followed by more of a number, a word, a time (``:``) or a decimal part."""
_INTERNATIONAL = re.compile(
    rf"(?<![\w+])(?:\+|00)[1-9]\d{{0,2}}(?:{_SEP}?\(0\))?"
    rf"(?:{_SEP}?\(?\d{{1,6}}\)?){{1,6}}{_END}"
)
_NANP = re.compile(
    r"(?<![\w+])(?:1[ .\-]?)?(?:\((?P<a1>[2-9]\d\d)\)\s?|(?P<a2>[2-9]\d\d)[ .\-]?)"
    r"(?P<exchange>\d{3})[ .\-](?P<line>\d{4})" + _END
)
_TRUNK = re.compile(
    r"(?<![\w+])(?:\(0[1-9]\d{0,3}\)|0[1-9]\d{0,3})(?:[ .\-/]\s?\d{2,8}){1,5}" + _END
)
_DIGIT_RUN = re.compile(r"(?<![\w+])\(?\d{2,}\)?(?:[ .\-]?\(?\d+\)?){0,6}" + _END)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TOLL_FREE_NANP = frozenset({"800", "833", "844", "855", "866", "877", "888"})
_FREEPHONE_TRUNK = ("0800", "0808")
_PHONE_WORDS = _words(
    "call calls calling called phone phones telephone tel mobile cell cellphone "
    "landline whatsapp sms text texting fax ring dial hotline contact reach"
)
_NUMBER_OWNERS = _words("my our his her their mum's mom's dad's wife's husband's")
_OTHER_NUMBERS = _words(
    "isbn issn ean upc gtin sku asin serial sn s/n model part order invoice "
    "tracking ticket case ref reference account acct imei iban zip postcode "
    "patent kb cve version build id pin policy item product"
)
_WORD = re.compile(r"[\w'/]+")


def find_phones(text: str, claimed: Sequence[tuple[int, int]] = ()) -> list[Match]:
    """Phone numbers in the scan view ``text``; spans overlapping ``claimed`` are skipped."""
    spans: list[tuple[int, int]] = []
    for match in _INTERNATIONAL.finditer(text):
        if _international_ok(match.group()):
            spans.append(match.span())
    for pattern, accept in ((_NANP, _nanp_ok), (_TRUNK, _trunk_ok)):
        for match in pattern.finditer(text):
            if accept(match) and not _other_number(text, match):
                spans.append(match.span())
    for match in _DIGIT_RUN.finditer(text):
        digits = _digit_count(match.group())
        if 7 <= digits <= 15 and _said_to_be_phone(text, match):
            spans.append(match.span())
    kept = _disjoint(spans, list(claimed))
    return [("phone_number", start, end) for start, end in kept]


def _digit_count(text: str) -> int:
    return sum(character.isdigit() for character in text)


def _international_ok(number: str) -> bool:
    """7-15 digits; ``00`` only with a separator (else it is just a long number);
    not an international freephone number (+800, ITU-T E.169.1) or NANP toll-free."""
    digits = re.sub(r"\D", "", number.removeprefix("00"))
    if not 7 <= len(digits) <= 15 or digits.startswith("800"):
        return False
    if digits.startswith("1") and digits[1:4] in _TOLL_FREE_NANP:
        return False
    return not number.startswith("00") or _has_separator(number[2:])


def _has_separator(text: str) -> bool:
    return re.search(r"[ .\-/()]", text) is not None


def _nanp_ok(match: re.Match[str]) -> bool:
    area = match.group("a1") or match.group("a2")
    return not (area[1:] == "11" or area[1] == "9" or area in _TOLL_FREE_NANP)


def _trunk_ok(match: re.Match[str]) -> bool:
    number = match.group()
    digits = re.sub(r"\D", "", number)
    if not 9 <= len(digits) <= 12 or digits.startswith(_FREEPHONE_TRUNK):
        return False
    return not _starts_with_date(number)


def _starts_with_date(number: str) -> bool:
    """``01.02.2024 10`` and ``2024-01-15 …`` are dates, whatever digits follow."""
    groups = re.findall(r"\d+", number)
    if len(groups) < 3:
        return False
    first, second, third = (int(g) for g in groups[:3])
    readings = ((third, second, first), (third, first, second), (first, second, third))
    return any(1900 <= y <= 2100 and _valid_date(y, m, d) for y, m, d in readings)


def _valid_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _words_before(text: str, start: int, count: int = 3) -> list[str]:
    return [w.lower() for w in _WORD.findall(text[max(0, start - 40) : start])][-count:]


def _other_number(text: str, match: re.Match[str]) -> bool:
    before = text[max(0, match.start() - 2) : match.start()]
    if any(symbol in before for symbol in "$€£¥#"):
        return True
    return any(word in _OTHER_NUMBERS for word in _words_before(text, match.start(), 2))


def _said_to_be_phone(text: str, match: re.Match[str]) -> bool:
    words = _words_before(text, match.start())
    if not words or _other_number(text, match):
        return False
    if any(word in _PHONE_WORDS for word in words):
        return True
    owned = any(a in _NUMBER_OWNERS and b == "number" for a, b in pairwise(words))
    return owned or words[-2:] == ["number", "is"]


def _disjoint(
    spans: list[tuple[int, int]], claimed: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The longest spans first, each kept only if it overlaps nothing kept or claimed."""
    kept: list[tuple[int, int]] = []
    for span in sorted(set(spans), key=lambda s: (s[0] - s[1], s[0])):
        taken = kept + claimed
        if all(span[1] <= a or b <= span[0] for a, b in taken):
            kept.append(span)
    return sorted(kept)
