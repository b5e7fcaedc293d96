"""Network addresses in a proposal: private and link-local IPv4/IPv6, this device's own, MACs.

The ranges are written out as data, one row per block with the RFC that defines it
(not ``ipaddress.is_private``, whose answers change between Python releases). They
are the blocks in which an address can only belong to some home, private or local
network; the address policy of ``sovereign.net`` refuses every one of them as a
destination too, and the test suite checks that the two tables agree. Loopback,
documentation, multicast and reserved addresses are no household's: they are not
flagged.

An address that is the same in millions of homes identifies none of them, so the
first and last address of each block and the factory defaults in
:data:`FACTORY_DEFAULTS` are not flagged either ("192.168.1.1 default password").
This device's own addresses are always flagged, and so is every address of a
global (public) network this device sits on, which names the household's line.

Spellings read (after :mod:`.scanview` folding): dotted decimal with or without
leading zeros (each part read as decimal and, like ``inet_aton``, as octal), dotted
``0x`` parts, a ``0x`` 32-bit number, dashes inside a host name
(``192-168-1-5.nip.io``, ``ip-10-0-0-5``), every RFC 4291 text form of IPv6 with or
without a zone id or brackets, and IPv6 forms that carry an IPv4 address. MACs:
six groups with ``:`` (one or two hex digits each) or ``-``, three dotted groups of
four (``0011.2233.4455``, not all decimal digits), and twelve hex digits written
together (in one case and not all decimal digits: a twelve-digit number is a
barcode or an order number far more often than a MAC).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

__all__ = [
    "FACTORY_DEFAULTS",
    "HOUSEHOLD_V4",
    "HOUSEHOLD_V6",
    "AddressContext",
    "find_addresses",
    "find_macs",
]

IPAddress = IPv4Address | IPv6Address
IPNetwork = IPv4Network | IPv6Network
Match = tuple[str, int, int]
"""A detector's finding: (kind, start, end) in the scan view."""

HOUSEHOLD_V4: tuple[IPv4Network, ...] = (
    IPv4Network("10.0.0.0/8"),  # RFC 1918 private network
    IPv4Network("100.64.0.0/10"),  # RFC 6598 shared address space (CGNAT, tailnets)
    IPv4Network("169.254.0.0/16"),  # RFC 3927 link-local
    IPv4Network("172.16.0.0/12"),  # RFC 1918 private network
    IPv4Network("192.168.0.0/16"),  # RFC 1918 private network
)
HOUSEHOLD_V6: tuple[IPv6Network, ...] = (
    IPv6Network("fc00::/7"),  # RFC 4193 unique local addresses
    IPv6Network("fd00::/8"),  # RFC 4193 §3.1 its locally assigned half (L = 1)
    IPv6Network("fe80::/10"),  # RFC 4291 §2.5.6 link-local
    IPv6Network("fec0::/10"),  # RFC 3879 site-local (deprecated, still configured)
)
_V4_IN_V6: tuple[tuple[IPv6Network, int], ...] = (  # block, bit where the IPv4 address starts
    (IPv6Network("::ffff:0:0/96"), 96),  # RFC 4291 §2.5.5.2 IPv4-mapped
    (IPv6Network("::ffff:0:0:0/96"), 96),  # RFC 2765 §2.1 IPv4-translated
    (IPv6Network("::/96"), 96),  # RFC 4291 §2.5.5.1 IPv4-compatible (deprecated)
    (IPv6Network("64:ff9b::/96"), 96),  # RFC 6052 §2.1 well-known NAT64 prefix
    (IPv6Network("2002::/16"), 16),  # RFC 3056 6to4
)

FACTORY_DEFAULTS: frozenset[IPAddress] = frozenset(
    ip_address(text)
    for text in (
        "192.168.0.1",  # D-Link, TP-Link, Netgear routers
        "192.168.1.1",  # Linksys, ASUS, TP-Link, Netgear, most ISP routers
        "192.168.0.254",  # many ISP routers' second default
        "192.168.1.254",  # BT Home Hub, AT&T/2Wire gateways
        "192.168.2.1",  # Belkin, Telekom Speedport
        "192.168.8.1",  # Huawei mobile routers, GL.iNet
        "192.168.3.1",  # Huawei home routers
        "192.168.10.1",  # Ubiquiti/UniFi set-up, many travel routers
        "192.168.31.1",  # Xiaomi routers
        "192.168.50.1",  # ASUS (recent firmware)
        "192.168.68.1",  # TP-Link Deco
        "192.168.86.1",  # Google Nest Wifi / Google Wifi
        "192.168.88.1",  # MikroTik
        "192.168.100.1",  # every DOCSIS cable modem's status page
        "192.168.178.1",  # AVM FRITZ!Box
        "192.168.4.1",  # ESP8266/ESP32 soft access point, Raspberry Pi hotspot guides
        "192.168.43.1",  # Android Wi-Fi hotspot
        "192.168.49.1",  # Android Wi-Fi Direct group owner
        "172.20.10.1",  # iPhone Personal Hotspot
        "192.168.137.1",  # Windows Mobile hotspot / Internet Connection Sharing
        "10.0.0.1",  # Comcast Xfinity gateways
        "10.0.0.138",  # Xfinity/Arris gateways
        "10.0.1.1",  # Apple AirPort
        "10.0.2.2",  # VirtualBox and QEMU user-mode NAT gateway
        "10.0.2.15",  # VirtualBox and QEMU user-mode NAT guest
        "192.168.56.1",  # VirtualBox host-only network
        "192.168.122.1",  # libvirt's default network
        "172.17.0.1",  # Docker's default bridge
        "169.254.169.254",  # cloud instance metadata service
        "100.100.100.100",  # Tailscale's MagicDNS resolver
        "fe80::1",  # the link-local router address most home routers announce
    )
)
"""Addresses published as factory defaults of widely sold products: the same in
millions of homes, so never a household detail on their own."""


@dataclass(frozen=True)
class AddressContext:
    """What the device knows about its own place on the network.

    ``own``: this device's addresses (always flagged as ``device_address``).
    ``networks``: the networks its interfaces sit on; an address inside one that is
    not a household range (a public IPv6 prefix, say) is flagged as private too.
    """

    own: frozenset[IPAddress] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def build(cls, own: Iterable[object] = (), networks: Iterable[object] = ()) -> AddressContext:
        """From address and network texts or objects; unusable entries are skipped."""
        addresses = {_address(item) for item in own} - {None}
        nets = [_network(item) for item in networks]
        public = tuple(net for net in nets if net is not None and not _in_household(net[0]))
        return cls(frozenset(a for a in addresses if a is not None), public)


def _address(item: object) -> IPAddress | None:
    try:
        address = ip_address(str(item).split("%", 1)[0])
    except ValueError:
        return None
    return None if address.is_loopback else address


def _network(item: object) -> IPNetwork | None:
    try:
        network = IPv6Network(str(item), strict=False)
    except ValueError:
        try:
            network = IPv4Network(str(item), strict=False)
        except ValueError:
            return None
    if network[0].is_loopback or not 0 < network.prefixlen < network.max_prefixlen:
        return None
    return network


def _in_household(address: IPAddress) -> bool:
    table: tuple[IPNetwork, ...] = (
        HOUSEHOLD_V4 if isinstance(address, IPv4Address) else HOUSEHOLD_V6
    )
    return any(address in network for network in table)


def _is_boundary(address: IPAddress) -> bool:
    table: tuple[IPNetwork, ...] = (
        HOUSEHOLD_V4 if isinstance(address, IPv4Address) else HOUSEHOLD_V6
    )
    return any(address in (net[0], net[-1]) for net in table)


_DEFAULT_SUBNET_ENDS: frozenset[IPAddress] = frozenset(
    end
    for default in FACTORY_DEFAULTS
    if isinstance(default, IPv4Address)
    for end in (
        IPv4Network(f"{default}/24", strict=False)[0],
        IPv4Network(f"{default}/24", strict=False)[-1],
    )
)
"""The network and broadcast address of each default's /24 (``192.168.1.0/24``)."""


def judge(address: IPAddress, context: AddressContext) -> str | None:
    """``device_address``, ``private_address`` or ``None`` (not a household detail)."""
    if address in context.own and address not in FACTORY_DEFAULTS:
        return "device_address"
    if isinstance(address, IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return judge(embedded, context)
    if address in FACTORY_DEFAULTS or address in _DEFAULT_SUBNET_ENDS or _is_boundary(address):
        return None
    if _in_household(address) or any(address in net for net in context.networks):
        return "private_address"
    return None


def _embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    for network, start in _V4_IN_V6:
        if address in network and not (start == 96 and int(address) <= 1):
            return IPv4Address((int(address) >> (96 - start)) & 0xFFFFFFFF)
    return None


_PART = r"(?:0x[0-9a-f]{1,2}|0[0-7]{1,3}|\d{1,3})"
_DOTTED = re.compile(rf"{_PART}(?:\.{_PART}){{3}}", re.IGNORECASE)
_HEX32 = re.compile(r"(?<![\w.])0x[0-9a-f]{8}(?![\w.])", re.IGNORECASE)
_DASHED = re.compile(
    r"(?<![\w-])(?:ip-)?(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})(?=\.[a-z])|"
    r"(?<![\w-])ip-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})(?![\w-])",
    re.IGNORECASE,
)
_V6 = re.compile(
    r"(?<![\w:.])(?=[0-9a-f]*:[0-9a-f]*:)"
    r"(?:[0-9a-f:]*:(?:\d{1,3}\.){3}\d{1,3}(?![\d.])|[0-9a-f:]+)(?:%(?:25)?[\w.~-]+)?",
    re.IGNORECASE,
)


def find_addresses(text: str, context: AddressContext) -> list[Match]:
    """Household IPv4/IPv6 addresses in the scan view ``text``, as (kind, start, end)."""
    found: list[Match] = []
    for start, end, readings in _ipv4_candidates(text):
        verdicts = {judge(reading, context) for reading in readings} - {None}
        if verdicts:
            kind = "device_address" if "device_address" in verdicts else "private_address"
            found.append((kind, start, end))
    for start, end, address in _ipv6_candidates(text):
        kind = judge(address, context)
        if kind is not None:
            found.append((kind, start, end))
    return _outermost(found)


def _ipv4_candidates(text: str) -> Iterator[tuple[int, int, list[IPv4Address]]]:
    for match in _DOTTED.finditer(text):
        if _bounded(text, match.start(), match.end()):
            readings = _readings(match.group().split("."))
            if readings:
                yield match.start(), match.end(), readings
    for match in _HEX32.finditer(text):
        yield match.start(), match.end(), [IPv4Address(int(match.group(), 16))]
    for match in _DASHED.finditer(text):
        groups = [g for g in match.groups() if g is not None]
        readings = _readings(groups, octal=False)
        if readings:
            yield match.start(), match.end(), readings


def _bounded(text: str, start: int, end: int) -> bool:
    """A dotted quad that stands alone: not the tail or head of a longer dotted number,
    not glued to a word after it, and not a version (``v10.0.0.1``, ``name-10.0.0.1``)."""
    before = text[start - 1] if start else ""
    if before.isdigit() or before == "_":
        return False
    if before == "." and not (start >= 2 and (text[start - 2].isalpha() or text[start - 2] == "-")):
        return False
    if before and before in "vV" and (start < 2 or not text[start - 2].isalpha()):
        return False
    if before == "-" and start >= 2 and text[start - 2].isalpha():
        return False  # name-version, as in firmware-10.2.3.4.bin
    after = text[end : end + 2]
    return not (after[:1].isalnum() or after[:1] == "_" or re.match(r"\.\d", after))


def _readings(parts: list[str], *, octal: bool = True) -> list[IPv4Address]:
    """The addresses four parts can mean: decimal, and (leading zero) octal as inet_aton reads."""
    decimal = [int(p, 16) if p[:2].lower() == "0x" else int(p) for p in parts]
    readings = [decimal]
    if octal and any(len(p) > 1 and p[0] == "0" and p[1:2].isdigit() for p in parts):
        with contextlib.suppress(ValueError):
            readings.append([_inet_aton_part(p) for p in parts])
    return [IPv4Address(bytes(r)) for r in readings if all(0 <= v <= 255 for v in r)]


def _inet_aton_part(part: str) -> int:
    if part[:2].lower() == "0x":
        return int(part, 16)
    return int(part, 8) if len(part) > 1 and part[0] == "0" else int(part)


def _ipv6_candidates(text: str) -> Iterator[tuple[int, int, IPv6Address]]:
    for match in _V6.finditer(text):
        candidate, end = match.group(), match.end()
        body = candidate.split("%", 1)[0]
        while body.endswith(":") and not body.endswith("::"):
            body, end = body[:-1], end - 1
            candidate = body
        try:
            address = IPv6Address(body)
        except ValueError:
            continue
        yield match.start(), end, address


_MAC_FORMS = (
    re.compile(r"(?<![\w:.-])[0-9a-f]{1,2}(?::[0-9a-f]{1,2}){5}(?![\w-]|[:.][0-9a-f])", re.I),
    re.compile(r"(?<![\w:.-])[0-9a-f]{2}(?:-[0-9a-f]{2}){5}(?![\w-]|[:.-][0-9a-f])", re.I),
    re.compile(r"(?<![\w:.-])[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}(?![\w-]|[:.][0-9a-f])", re.I),
)
_MAC_BARE = re.compile(r"(?<![\w-])[0-9a-f]{12}(?![\w-])", re.IGNORECASE)
_NO_DEVICE = frozenset({"000000000000", "ffffffffffff"})
"""The all-zero and broadcast MACs: protocol constants, no device's address."""


def find_macs(text: str) -> list[Match]:
    """MAC addresses in the scan view ``text`` (see the module for the forms read)."""
    found = []
    for form in _MAC_FORMS:
        for match in form.finditer(text):
            digits = "".join(f"{g:0>2}" for g in re.split(r"[:.-]", match.group()))
            if form is _MAC_FORMS[2]:
                digits = match.group().replace(".", "")
                if digits.isdigit():
                    continue
            if digits.lower() not in _NO_DEVICE:
                found.append(("mac_address", match.start(), match.end()))
    for match in _MAC_BARE.finditer(text):
        value = match.group()
        one_case = value.islower() or value.isupper() or value.isdigit()
        if not value.isdigit() and one_case and value.lower() not in _NO_DEVICE:
            found.append(("mac_address", match.start(), match.end()))
    return found


def _outermost(found: list[Match]) -> list[Match]:
    """Drop a match lying inside another (an IPv4 address inside its IPv6 form)."""
    return [m for m in found if not any(o != m and o[1] <= m[1] and m[2] <= o[2] for o in found)]
