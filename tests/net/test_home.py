"""The household's own IPv6 prefix: the /64 around each device address, the delegated
prefix (assumed /56, or the household's ``home_ipv6_prefixes``), through the injected seams."""

from __future__ import annotations

import json
from ipaddress import IPv6Network, ip_address, ip_interface
from pathlib import Path

import pytest

from sovereign.net import AddressPolicy, Verdict, classify, parse_home_prefixes, read_home_prefixes

V = Verdict
DHCPV6_ONLY = [ip_interface("2a02:8109:1:5::7/128"), ip_interface("192.168.1.50/24"),
               ip_interface("fe80::1/64")]


def policy(interfaces=DHCPV6_ONLY, prefixes=(), length=56) -> AddressPolicy:
    return AddressPolicy(local_interfaces=lambda: interfaces,
                         home_prefixes=lambda: [IPv6Network(p) for p in prefixes],
                         delegated_prefix_length=length)


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("2a02:8109:1:5::7", V.DEVICE_ADDRESS),
        ("2a02:8109:1:5::1", V.DEVICE_NETWORK),  # the router, beside a /128 from DHCPv6
        ("2a02:8109:1:5::", V.DEVICE_NETWORK),
        ("2a02:8109:1:5:ffff:ffff:ffff:ffff", V.DEVICE_NETWORK),
        ("2a02:8109:1:4:ffff:ffff:ffff:ffff", V.HOME_NETWORK),  # sibling /64 (an IoT network)
        ("2a02:8109:1:6::", V.HOME_NETWORK),
        ("2a02:8109:1::", V.HOME_NETWORK),  # first of the assumed /56
        ("2a02:8109:1:ff:ffff:ffff:ffff:ffff", V.HOME_NETWORK),  # last of it
        ("2a02:8109:1:100::", V.ALLOW),  # just past it
        ("2a02:8109:0:ffff:ffff:ffff:ffff:ffff", V.ALLOW),  # just before it
        ("93.184.215.14", V.ALLOW),
    ],
)
def test_the_devices_64_and_the_assumed_56_are_the_home_network(address: str,
                                                               expected: V) -> None:
    assert classify(ip_address(address), policy()) is expected


def test_every_global_address_of_the_device_brings_its_own_home_network() -> None:
    interfaces = [ip_interface("2a02:8109:1:5::7/64"), ip_interface("2001:470:9:1::2/128"),
                  ip_interface("fd00:1::5/64")]  # a ULA is refused by the table anyway
    home = policy(interfaces)
    assert classify(ip_address("2001:470:9:1::1"), home) is V.DEVICE_NETWORK
    assert classify(ip_address("2001:470:9:ab::1"), home) is V.HOME_NETWORK
    assert classify(ip_address("2001:470:9:100::1"), home) is V.ALLOW
    assert classify(ip_address("fd00:2::1"), home) is V.UNIQUE_LOCAL


@pytest.mark.parametrize(
    ("address", "expected"),
    [("2a02:8109::", V.HOME_NETWORK), ("2a02:8109:0:ab::1", V.HOME_NETWORK),
     ("2a02:8109:0:ffff:ffff:ffff:ffff:ffff", V.HOME_NETWORK),
     ("2a02:8109:1::", V.ALLOW), ("2a02:8108:ffff:ffff:ffff:ffff:ffff:ffff", V.ALLOW)],
)
def test_a_configured_48_is_refused_whole(address: str, expected: V) -> None:
    home = policy(interfaces=[ip_interface("2a02:8109:0:5::7/64")], prefixes=["2a02:8109::/48"])
    assert classify(ip_address(address), home) is expected


def test_a_configured_prefix_holds_even_without_a_global_device_address() -> None:
    home = policy(interfaces=[ip_interface("192.168.1.50/24")], prefixes=["2a02:8109::/48"])
    assert classify(ip_address("2a02:8109:0:7::1"), home) is V.HOME_NETWORK


def test_a_delegated_length_of_64_leaves_only_the_devices_own_64() -> None:
    home = policy(length=64)
    assert classify(ip_address("2a02:8109:1:5::1"), home) is V.DEVICE_NETWORK
    assert classify(ip_address("2a02:8109:1:6::1"), home) is V.ALLOW


def _unreadable() -> list[IPv6Network]:
    raise ValueError("home-network.json is not valid JSON")


def test_unreadable_home_prefixes_refuse_every_ipv6_destination_but_not_ipv4() -> None:
    broken = AddressPolicy(local_interfaces=lambda: DHCPV6_ONLY, home_prefixes=_unreadable)
    assert classify(ip_address("2606:4700:4700::1111"), broken) is V.HOME_PREFIXES_UNKNOWN
    assert classify(ip_address("93.184.215.14"), broken) is V.ALLOW
    assert classify(ip_address("::1"), broken) is V.LOOPBACK


@pytest.mark.parametrize(
    "value",
    [["2a02:8109::/16"], ["10.0.0.0/8"], ["2a02:8109::/72"], ["not a prefix"], [56],
     "2a02:8109::/48", {"a": 1}, ["2a02:8109::/48"] * 65],
    ids=["too-short", "ipv4", "longer-than-64", "text", "number", "not-a-list", "object",
         "too-many"],
)
def test_a_bad_home_prefix_setting_is_refused_with_a_sentence(value: object) -> None:
    with pytest.raises(ValueError, match=r"home_ipv6_prefixes|IPv6 prefix"):
        parse_home_prefixes(value)


def test_host_bits_of_a_configured_prefix_are_cleared() -> None:
    assert parse_home_prefixes(["2a02:8109:1:5::7/56"]) == [IPv6Network("2a02:8109:1::/56")]


def test_the_setting_file_is_read_absent_valid_or_broken(tmp_path: Path) -> None:
    path = tmp_path / "home-network.json"
    assert read_home_prefixes(path) == []
    path.write_text(json.dumps({"home_ipv6_prefixes": ["2a02:8109::/48"]}))
    assert read_home_prefixes(path) == [IPv6Network("2a02:8109::/48")]
    for broken in ("{", "[]", "[" * 100_000, json.dumps({"home_ipv6_prefixes": "x"})):
        path.write_text(broken)
        with pytest.raises(ValueError):
            read_home_prefixes(path)
