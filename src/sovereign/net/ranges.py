"""The forbidden-destination table and the IPv6 forms that embed an IPv4 address (DESIGN §3).

Written out as data on purpose: the standard library's is_private and is_global change their
answers between Python releases, so nothing here asks them. Each row names the
range, the reason a fetch there is refused, and the RFC that defines the range.
:func:`sovereign.net.policy.classify` is the only reader of this table.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

from .verdict import Verdict

# First matching row wins, so a narrower row sits above any wider one that contains it.
FORBIDDEN_V4: tuple[tuple[IPv4Network, Verdict], ...] = (
    (IPv4Network("0.0.0.0/8"), Verdict.THIS_NETWORK),  # RFC 791 §3.2, RFC 1122 §3.2.1.3
    (IPv4Network("10.0.0.0/8"), Verdict.PRIVATE),  # RFC 1918
    (IPv4Network("100.64.0.0/10"), Verdict.SHARED_ADDRESS_SPACE),  # RFC 6598 (carrier-grade NAT)
    (IPv4Network("127.0.0.0/8"), Verdict.LOOPBACK),  # RFC 1122 §3.2.1.3
    (IPv4Network("169.254.0.0/16"), Verdict.LINK_LOCAL),  # RFC 3927 (cloud metadata lives here)
    (IPv4Network("172.16.0.0/12"), Verdict.PRIVATE),  # RFC 1918
    (IPv4Network("192.0.0.0/24"), Verdict.IETF_PROTOCOL),  # RFC 6890 §2.2.2
    (IPv4Network("192.0.2.0/24"), Verdict.DOCUMENTATION),  # RFC 5737 TEST-NET-1
    (IPv4Network("192.88.99.0/24"), Verdict.RESERVED),  # RFC 7526 (deprecated 6to4 relay anycast)
    (IPv4Network("192.168.0.0/16"), Verdict.PRIVATE),  # RFC 1918
    (IPv4Network("198.18.0.0/15"), Verdict.BENCHMARKING),  # RFC 2544
    (IPv4Network("198.51.100.0/24"), Verdict.DOCUMENTATION),  # RFC 5737 TEST-NET-2
    (IPv4Network("203.0.113.0/24"), Verdict.DOCUMENTATION),  # RFC 5737 TEST-NET-3
    (IPv4Network("224.0.0.0/4"), Verdict.MULTICAST),  # RFC 5771
    (IPv4Network("255.255.255.255/32"), Verdict.BROADCAST),  # RFC 919 §7, RFC 8190
    (IPv4Network("240.0.0.0/4"), Verdict.RESERVED),  # RFC 1112 §4 (future use)
)

FORBIDDEN_V6: tuple[tuple[IPv6Network, Verdict], ...] = (
    (IPv6Network("::/128"), Verdict.UNSPECIFIED),  # RFC 4291 §2.5.2
    (IPv6Network("::1/128"), Verdict.LOOPBACK),  # RFC 4291 §2.5.3
    (IPv6Network("100::/64"), Verdict.RESERVED),  # RFC 6666 (discard-only)
    (IPv6Network("2001:2::/48"), Verdict.BENCHMARKING),  # RFC 5180
    (IPv6Network("2001:10::/28"), Verdict.RESERVED),  # RFC 4843 (ORCHID, deprecated)
    (IPv6Network("2001:20::/28"), Verdict.RESERVED),  # RFC 7343 (ORCHIDv2)
    (IPv6Network("2001:db8::/32"), Verdict.DOCUMENTATION),  # RFC 3849
    (IPv6Network("3fff::/20"), Verdict.DOCUMENTATION),  # RFC 9637
    (IPv6Network("5f00::/16"), Verdict.RESERVED),  # RFC 9602 (SRv6 SIDs)
    (IPv6Network("fc00::/7"), Verdict.UNIQUE_LOCAL),  # RFC 4193
    (IPv6Network("fe80::/10"), Verdict.LINK_LOCAL),  # RFC 4291 §2.5.6
    (IPv6Network("fec0::/10"), Verdict.SITE_LOCAL),  # RFC 3879 (deprecated site-local)
    (IPv6Network("ff00::/8"), Verdict.MULTICAST),  # RFC 4291 §2.7
)

# Outside this block no IPv6 address is global unicast (RFC 4291 §2.4, IANA registry);
# anything there that no row or embedding names is refused as reserved.
GLOBAL_UNICAST_V6 = IPv6Network("2000::/3")  # RFC 4291 §2.4

# IPv6 forms that carry an IPv4 address, with where it sits. ``deprecated`` forms are
# refused even when the IPv4 address inside is public; the others are judged by it.
_MAPPED = IPv6Network("::ffff:0:0/96")  # RFC 4291 §2.5.5.2 IPv4-mapped
_TRANSLATED = IPv6Network("::ffff:0:0:0/96")  # RFC 2765 §2.1 IPv4-translated (SIIT)
_COMPATIBLE = IPv6Network("::/96")  # RFC 4291 §2.5.5.1 IPv4-compatible (deprecated)
_NAT64 = IPv6Network("64:ff9b::/96")  # RFC 6052 §2.1 well-known NAT64 prefix
_NAT64_LOCAL = IPv6Network("64:ff9b:1::/48")  # RFC 8215 local-use NAT64 prefix
_SIX_TO_FOUR = IPv6Network("2002::/16")  # RFC 3056 6to4 (deprecated by RFC 7526)
_TEREDO = IPv6Network("2001::/32")  # RFC 4380 Teredo

RFC6052_PREFIX_LENGTHS = (32, 40, 48, 56, 64, 96)  # RFC 6052 §2.2
_LOCAL_USE_LENGTHS = (48, 56, 64, 96)  # the RFC 6052 lengths that fit under a /48 (RFC 8215 §2)
_THIS_NETWORK = IPv4Network("0.0.0.0/8")  # RFC 1122 §3.2.1.3: a source, never a destination


def _bits(address: IPv6Address, start: int, length: int) -> int:
    return (int(address) >> (128 - start - length)) & ((1 << length) - 1)


def rfc6052_ipv4(address: IPv6Address, prefix_length: int) -> IPv4Address:
    """The IPv4 address that ``address`` carries under an RFC 6052 prefix of that length.

    RFC 6052 §2.2: the 32 bits follow the prefix, except that bits 64-71 (the "u"
    octet) never carry any: at /40, /48 and /56 the IPv4 address is split around
    them, at /64 it starts at bit 72, at /96 it is the last 32 bits.

    Args:
        address: any IPv6 address (its prefix is not checked here).
        prefix_length: 32, 40, 48, 56, 64 or 96.

    Raises:
        ValueError: for any other prefix length.
    """
    if prefix_length not in RFC6052_PREFIX_LENGTHS:
        raise ValueError(f"RFC 6052 defines no /{prefix_length} layout")
    if prefix_length == 96:
        return IPv4Address(_bits(address, 96, 32))
    value = int(address)
    without_u_octet = ((value >> 64) << 56) | (value & ((1 << 56) - 1))  # 120 bits
    start = prefix_length if prefix_length < 64 else 64  # /64: bit 72 of the address
    return IPv4Address((without_u_octet >> (120 - start - 32)) & 0xFFFFFFFF)


def _local_use_readings(address: IPv6Address) -> list[IPv4Address]:
    """Every IPv4 address a local-use translator could read, whatever its prefix length.

    The device cannot know which length the household's translator uses, so every
    reading is judged. A reading in 0.0.0.0/8 is only the zero bits of a longer
    prefix seen through a shorter layout: no translator sends there (RFC 1122
    §3.2.1.3), so it is left out unless every reading is there.
    """
    readings = [rfc6052_ipv4(address, length) for length in _LOCAL_USE_LENGTHS]
    reachable = [reading for reading in readings if reading not in _THIS_NETWORK]
    return reachable or readings


def embedded_ipv4(address: IPv6Address) -> tuple[list[IPv4Address], bool] | None:
    """The IPv4 addresses ``address`` embeds, and whether its form is deprecated.

    Returns ``None`` for an address of no embedding form. Local-use NAT64 may use
    any prefix length from /48 to /96, so every reading is returned and judged
    (see :func:`_local_use_readings`).
    """
    if address in _MAPPED:
        return [IPv4Address(_bits(address, 96, 32))], True
    if address in _TRANSLATED:
        return [IPv4Address(_bits(address, 96, 32))], True
    if address in _COMPATIBLE:  # :: and ::1 are matched by the table first
        return [IPv4Address(_bits(address, 96, 32))], True
    if address in _NAT64:
        return [rfc6052_ipv4(address, 96)], False
    if address in _NAT64_LOCAL:
        return _local_use_readings(address), False
    if address in _SIX_TO_FOUR:
        return [IPv4Address(_bits(address, 16, 32))], True
    if address in _TEREDO:  # server at bits 32-63, client obfuscated (inverted) at 96-127
        client = IPv4Address(_bits(address, 96, 32) ^ 0xFFFFFFFF)
        return [IPv4Address(_bits(address, 32, 32)), client], False
    return None


def table_verdict(address: IPv4Address | IPv6Address) -> Verdict | None:
    """The first table row containing ``address``, ignoring embeddings; ``None`` if none."""
    if isinstance(address, IPv4Address):
        return next((verdict for net, verdict in FORBIDDEN_V4 if address in net), None)
    return next((verdict for net, verdict in FORBIDDEN_V6 if address in net), None)
