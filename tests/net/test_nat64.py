"""IPv4 inside NAT64 addresses: every RFC 6052 prefix length, well-known and local-use prefix.

The well-known prefix is judged by the IPv4 address inside; the local-use prefix is refused
whatever it carries (IANA lists it as not globally reachable).

Addresses are built here byte by byte from RFC 6052 §2.2's layout (the IPv4 octets follow
the prefix, skipping octet 8, the "u" octet), and the builder is itself checked against the
RFC's own examples in §2.4 (192.0.2.33 under 2001:db8::/32 ... /96).
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address, ip_address, ip_interface

import pytest

from sovereign.net import AddressPolicy, Verdict, classify
from sovereign.net.ranges import rfc6052_ipv4

V = Verdict
NO_DEVICE = AddressPolicy(local_interfaces=lambda: [])
LENGTHS = (32, 40, 48, 56, 64, 96)

# RFC 6052 §2.4, Table 1: the text form of 192.0.2.33 under each Network-Specific Prefix.
RFC_EXAMPLES = {
    32: ("2001:db8::", "2001:db8:c000:221::"),
    40: ("2001:db8:100::", "2001:db8:1c0:2:21::"),
    48: ("2001:db8:122::", "2001:db8:122:c000:2:2100::"),
    56: ("2001:db8:122:300::", "2001:db8:122:3c0:0:221::"),
    64: ("2001:db8:122:344::", "2001:db8:122:344:c0:2:2100::"),
    96: ("2001:db8:122:344::", "2001:db8:122:344::192.0.2.33"),
}
RFC_IPV4 = "192.0.2.33"
WELL_KNOWN = "64:ff9b::"  # RFC 6052 §2.1, defined at /96 only
LOCAL_USE = "64:ff9b:1:344::"  # RFC 8215's 64:ff9b:1::/48 with the RFC 6052 example's subnet bits


def embed(prefix: str, length: int, ipv4: str) -> IPv6Address:
    """``ipv4`` written under the first ``length`` bits of ``prefix`` (RFC 6052 §2.2)."""
    octets = list(IPv6Address(prefix).packed[: length // 8])
    for octet in IPv4Address(ipv4).packed:
        if len(octets) == 8:
            octets.append(0)  # bits 64-71 carry no IPv4 bits
        octets.append(octet)
    return IPv6Address(bytes(octets + [0] * (16 - len(octets))))


@pytest.mark.parametrize("length", LENGTHS)
def test_the_rfc_example_is_read_at_every_prefix_length(length: int) -> None:
    prefix, text = RFC_EXAMPLES[length]
    assert embed(prefix, length, RFC_IPV4) == IPv6Address(text)  # the builder is the RFC's
    assert rfc6052_ipv4(IPv6Address(text), length) == IPv4Address(RFC_IPV4)


def test_the_well_known_prefix_example_is_read_at_96() -> None:
    assert rfc6052_ipv4(IPv6Address("64:ff9b::192.0.2.33"), 96) == IPv4Address(RFC_IPV4)


def test_a_prefix_length_rfc_6052_does_not_define_is_an_error() -> None:
    with pytest.raises(ValueError, match="/80"):
        rfc6052_ipv4(IPv6Address("64:ff9b::1"), 80)


REFUSED_INSIDE = [(RFC_IPV4, V.DOCUMENTATION), ("127.0.0.1", V.LOOPBACK),
                  ("192.168.1.1", V.PRIVATE), ("169.254.169.254", V.LINK_LOCAL),
                  ("100.64.0.1", V.SHARED_ADDRESS_SPACE)]


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize(("ipv4", "verdict"), REFUSED_INSIDE)
def test_well_known_prefix_at_each_length(length: int, ipv4: str, verdict: V) -> None:
    # Only /96 is the well-known prefix; other layouts land outside it and outside 2000::/3.
    expected = verdict if length == 96 else V.RESERVED
    assert classify(embed(WELL_KNOWN, length, ipv4), NO_DEVICE) is expected


@pytest.mark.parametrize("length", LENGTHS)
def test_well_known_prefix_admits_a_public_address_at_96_only(length: int) -> None:
    expected = V.ALLOW if length == 96 else V.RESERVED
    assert classify(embed(WELL_KNOWN, length, "8.8.8.8"), NO_DEVICE) is expected


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize(("ipv4", "verdict"), [*REFUSED_INSIDE, ("8.8.8.8", V.ALLOW)])
def test_local_use_prefix_is_refused_whatever_it_carries(length: int, ipv4: str,
                                                         verdict: V) -> None:
    # IANA lists 64:ff9b:1::/48 as not globally reachable (RFC 8215): the row decides.
    # /32 and /40 cannot sit under a /48: written that way the address leaves it.
    expected = V.NOT_GLOBALLY_REACHABLE if length >= 48 else V.RESERVED
    assert classify(embed(LOCAL_USE, length, ipv4), NO_DEVICE) is expected
    assert classify(embed("64:ff9b:1::", length, ipv4), NO_DEVICE) is expected


DEVICE = AddressPolicy(local_interfaces=lambda: [ip_interface("203.0.114.7/24")])


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("64:ff9b::203.0.114.7", V.DEVICE_ADDRESS),
        ("64:ff9b::203.0.114.9", V.DEVICE_NETWORK),
        (str(embed(LOCAL_USE, 96, "203.0.114.7")), V.NOT_GLOBALLY_REACHABLE),
        ("2001:0:cb00:7207::f7f7:f7f7", V.DEVICE_ADDRESS),  # Teredo server = the device
        ("2001:0:808:808::34ff:8df8", V.DEVICE_ADDRESS),  # Teredo client 203.0.114.7
        ("64:ff9b::203.0.115.7", V.ALLOW),
    ],
)
def test_own_address_check_sees_ipv4_embedded_in_ipv6(address: str, expected: V) -> None:
    assert classify(ip_address(address), DEVICE) is expected
