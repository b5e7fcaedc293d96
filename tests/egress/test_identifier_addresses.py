"""The identifier check's address grammars: every spelling, the range edges, and the
near-misses that must stay unflagged (versions, defaults, documentation ranges)."""

# ruff: noqa: RUF001 - full-width and look-alike spellings are what these tests feed in

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address

import pytest

from sovereign.egress import (
    FACTORY_DEFAULTS,
    HOUSEHOLD_V4,
    HOUSEHOLD_V6,
    Household,
    find_identifiers,
)
from sovereign.net.policy import AddressPolicy, classify
from sovereign.net.verdict import Verdict

HOME = Household.build(
    device_addresses=["192.168.50.23", "2a02:8108:1c0:4e00::23", "127.0.0.1"],
    device_networks=["192.168.50.23/24", "2a02:8108:1c0:4e00::23/64", "127.0.0.1/8"],
)


def flagged(text: str, household: Household = HOME) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.kind) for f in find_identifiers(text, household)]


@pytest.mark.parametrize(
    "spelling",
    [
        "192.168.7.42",
        "192.168.007.042",  # leading zeros: decimal and inet_aton's octal both private
        "0300.0250.07.052",  # inet_aton's octal only
        "0xc0.0xa8.0x07.0x2a",
        "0xC0A8072A",
        "192[.]168[.]7[.]42",
        "192(.)168(.)7(.)42",
        "192 dot 168 dot 7 dot 42",
        "１９２．１６８．７．４２",  # full-width digits and full stops
        "192。168。7。42",  # ideographic full stops
        "192%2E168%2E7%2E42",
        "::ffff:192.168.7.42",
        "::ffff:c0a8:72a",
        "64:ff9b::192.168.7.42",
        "2002:c0a8:72a::1",
    ],
)
def test_every_spelling_of_a_private_ipv4_address_is_flagged(spelling):
    text = f"why is {spelling} slow"
    assert flagged(text) == [(spelling, "private_address")]


@pytest.mark.parametrize(
    "context",
    ["http://{}:8080/", "{}/24", "ping {}.", "({})", "host={}&x=1", "192-0-0-1 and {}"],
)
def test_an_address_is_found_in_its_usual_surroundings(context):
    text = context.format("10.20.30.40")
    assert ("10.20.30.40", "private_address") in flagged(text)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("192-168-7-42.nip.io not resolving", "192-168-7-42"),
        ("ip-10-0-1-23.ec2.internal", "ip-10-0-1-23"),
        ("app.10.0.7.42.sslip.io", "10.0.7.42"),
    ],
)
def test_an_address_written_into_a_host_name_is_flagged(text, span):
    assert (span, "private_address") in flagged(text)


@pytest.mark.parametrize(
    "spelling",
    [
        "fd12:3456:789a::1",
        "FD12:3456:789A:0000:0000:0000:0000:0001",
        "fd12:3456:789a:0:0:0:0:1",
        "fe80::1ff:fe23:4567:890a",
        "fe80::1ff:fe23:4567:890a%eth0",
        "fe80::1ff:fe23:4567:890a%25eth0",
        "fec0::7",
    ],
)
def test_every_spelling_of_a_private_ipv6_address_is_flagged(spelling):
    assert flagged(f"reach {spelling} now") == [(spelling, "private_address")]


def test_a_bracketed_ipv6_address_with_a_port_is_flagged_without_the_brackets():
    assert flagged("open [fd12:3456:789a::1]:8096") == [("fd12:3456:789a::1", "private_address")]


def test_this_devices_own_addresses_are_flagged_as_its_own():
    assert flagged("192.168.50.23 ssh") == [("192.168.50.23", "device_address")]
    assert flagged("2a02:8108:1c0:4e00::23") == [("2a02:8108:1c0:4e00::23", "device_address")]


def test_a_public_address_on_this_devices_own_network_is_flagged():
    assert flagged("2a02:8108:1c0:4e00::9b open") == [("2a02:8108:1c0:4e00::9b", "private_address")]
    assert flagged("2a02:8108:1c0:4e01::9b open") == []  # the next /64 is someone else's


def test_loopback_never_counts_as_the_devices_address():
    assert flagged("127.0.0.1 refused to connect") == []


@pytest.mark.parametrize(
    "text",
    [
        "192.168.1.1 default password meaning",
        "10.0.0.1 admin login",
        "fritzbox 192.168.178.1",
        "192.168.1.0/24 subnet",
        "192.168.1.255 broadcast",
        "10.0.0.0/8 and 172.16.0.0/12 and 192.168.0.0/16",
        "172.31.255.255 last private address",
        "169.254.169.254 metadata",
        "fe80::1 gateway",
        "fe80:: and fd00::/8 and fc00::/7",
        "8.8.8.8 and 1.1.1.1",
        "192.0.2.10 documentation range",
        "2001:db8::42 example",
        "224.0.0.251 mdns",
        "255.255.255.0 mask",
        "0.0.0.0 bind",
        "::1 localhost",
        "python 3.10.12",
        "chrome 120.0.6099.129",
        "v10.0.0.5 release notes",
        "firmware 1.2.3.4.5",
        "10.15.7 catalina",
        "12:30:45 timestamp",
        "ratio 16:9 and 4:3",
    ],
)
def test_addresses_no_household_owns_and_version_numbers_are_not_flagged(text):
    assert flagged(text) == []


@pytest.mark.parametrize("address", sorted(FACTORY_DEFAULTS, key=str))
def test_each_factory_default_sits_in_a_household_range(address):
    table = HOUSEHOLD_V4 if isinstance(address, IPv4Address) else HOUSEHOLD_V6
    assert any(address in network for network in table)


NET_VERDICTS = {
    "10.0.0.0/8": Verdict.PRIVATE,
    "172.16.0.0/12": Verdict.PRIVATE,
    "192.168.0.0/16": Verdict.PRIVATE,
    "100.64.0.0/10": Verdict.SHARED_ADDRESS_SPACE,
    "169.254.0.0/16": Verdict.LINK_LOCAL,
    "fc00::/7": Verdict.UNIQUE_LOCAL,
    "fd00::/8": Verdict.UNIQUE_LOCAL,
    "fe80::/10": Verdict.LINK_LOCAL,
    "fec0::/10": Verdict.SITE_LOCAL,
}


@pytest.mark.parametrize("network", [*HOUSEHOLD_V4, *HOUSEHOLD_V6], ids=str)
def test_the_household_ranges_agree_with_the_address_policy(network):
    policy = AddressPolicy(local_interfaces=list)
    for address in (network[0], network[1], network[-2], network[-1]):
        assert classify(address, policy) is NET_VERDICTS[str(network)]


@pytest.mark.parametrize("network", [*HOUSEHOLD_V4, *HOUSEHOLD_V6], ids=str)
def test_inside_each_range_is_flagged_and_just_outside_is_not(network):
    inside = network[1] + 41
    before, after = network[0] - 1, network[-1] + 1
    assert flagged(str(inside), Household()) == [(str(inside), "private_address")]
    for outside in (before, after):
        if not any(outside in other for other in (*HOUSEHOLD_V4, *HOUSEHOLD_V6)):
            assert flagged(str(outside), Household()) == []
    assert flagged(str(network[0]), Household()) == []  # the range's own first address


@pytest.mark.parametrize(
    ("spelling", "form"),
    [
        ("b8:27:eb:4f:11:9c", "colons"),
        ("B8:27:EB:4F:11:9C", "colons, upper case"),
        ("0:1b:63:84:45:e6", "colons without leading zeros"),
        ("b8-27-eb-4f-11-9c", "dashes"),
        ("b827.eb4f.119c", "Cisco dotted"),
        ("b827eb4f119c", "no separator"),
        ("B827EB4F119C", "no separator, upper case"),
        ("aabbccddeeff", "no separator, letters only"),
        ("01:23:45:67:89:ab", "a multicast-bit example"),
        ("b8%3A27%3Aeb%3A4f%3A11%3A9c", "percent-encoded"),
        ("ｂ８：２７：ｅｂ：４ｆ：１１：９ｃ", "full-width"),
    ],
)
def test_every_spelling_of_a_mac_address_is_flagged(spelling, form):
    assert flagged(f"device {spelling} on wifi") == [(spelling, "mac_address")], form


@pytest.mark.parametrize(
    "text",
    [
        "ff:ff:ff:ff:ff:ff broadcast",
        "00:00:00:00:00:00 null mac",
        "lottery 4-8-15-16-23-42",
        "upc 036000291452",
        "B827eb4F119c mixed case is a hash, not a MAC",
        "1234.5678.9012 digits only",
        "12:30:45 time",
        "oui b8:27:eb raspberry",
    ],
)
def test_mac_near_misses_are_not_flagged(text):
    assert [kind for _, kind in flagged(text)] == []


def test_flag_spans_are_code_points_of_the_text_as_shown():
    text = "zoë fragt: 192%2E168%2E7%2E42?"
    [flag] = find_identifiers(text)
    assert text[flag.start : flag.end] == "192%2E168%2E7%2E42"
    assert isinstance(IPv6Address("::1"), IPv6Address)  # ipaddress is what the table uses


def test_a_dotted_version_in_a_file_name_is_not_an_address():
    assert flagged("https://example.com/download/firmware-10.2.3.4.bin") == []
    assert flagged("backup host-10.2.3.4") == []
    assert flagged("reach 10.2.3.4-10.2.3.9") == [
        ("10.2.3.4", "private_address"),
        ("10.2.3.9", "private_address"),
    ]
