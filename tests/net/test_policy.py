"""classify(): the first and last address of every forbidden range, and one on each side.

Expected verdicts are written out here, independently of the table in
``sovereign.net.ranges``, grouped by the RFC that defines each range.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Interface, IPv6Interface, ip_address, ip_interface
from pathlib import Path

import pytest

from sovereign.capabilities import web_fetch
from sovereign.executor import ErrorCode, Registry
from sovereign.net import AddressPolicy, StaticResolver, Verdict, classify, device_interfaces
from sovereign.net import ranges as ranges_module

from .support import Recorder, invoke_fetch

V = Verdict
NO_DEVICE = AddressPolicy(local_interfaces=lambda: [])

EDGES = """
# RFC 791 / 1122 "this network" 0.0.0.0/8
0.0.0.0 THIS_NETWORK | 0.255.255.255 THIS_NETWORK | 1.0.0.0 ALLOW
# RFC 1918 10/8
9.255.255.255 ALLOW | 10.0.0.0 PRIVATE | 10.255.255.255 PRIVATE | 11.0.0.0 ALLOW
# RFC 6598 shared address space 100.64/10
100.63.255.255 ALLOW | 100.64.0.0 SHARED_ADDRESS_SPACE | 100.127.255.255 SHARED_ADDRESS_SPACE
100.128.0.0 ALLOW
# RFC 1122 loopback 127/8
126.255.255.255 ALLOW | 127.0.0.0 LOOPBACK | 127.255.255.255 LOOPBACK | 128.0.0.0 ALLOW
# RFC 3927 link-local 169.254/16
169.253.255.255 ALLOW | 169.254.0.0 LINK_LOCAL | 169.254.255.255 LINK_LOCAL | 169.255.0.0 ALLOW
# RFC 1918 172.16/12
172.15.255.255 ALLOW | 172.16.0.0 PRIVATE | 172.31.255.255 PRIVATE | 172.32.0.0 ALLOW
# RFC 6890 IETF protocol assignments 192.0.0/24
191.255.255.255 ALLOW | 192.0.0.0 IETF_PROTOCOL | 192.0.0.255 IETF_PROTOCOL | 192.0.1.0 ALLOW
# RFC 5737 documentation
192.0.1.255 ALLOW | 192.0.2.0 DOCUMENTATION | 192.0.2.255 DOCUMENTATION | 192.0.3.0 ALLOW
198.51.99.255 ALLOW | 198.51.100.0 DOCUMENTATION | 198.51.100.255 DOCUMENTATION
198.51.101.0 ALLOW
203.0.112.255 ALLOW | 203.0.113.0 DOCUMENTATION | 203.0.113.255 DOCUMENTATION | 203.0.114.0 ALLOW
# RFC 7526 deprecated 6to4 relay anycast 192.88.99/24 (terminated), RFC 6751 6a44 relay
192.88.98.255 ALLOW | 192.88.99.0 RESERVED | 192.88.99.255 RESERVED | 192.88.100.0 ALLOW
192.88.99.2 NOT_GLOBALLY_REACHABLE
# RFC 7535 AS112-v4, RFC 7450 AMT, RFC 7534 AS112 direct delegation: globally reachable
192.31.196.0 ALLOW | 192.52.193.255 ALLOW | 192.175.48.1 ALLOW
# RFC 1918 192.168/16
192.167.255.255 ALLOW | 192.168.0.0 PRIVATE | 192.168.255.255 PRIVATE | 192.169.0.0 ALLOW
# RFC 2544 benchmarking 198.18/15
198.17.255.255 ALLOW | 198.18.0.0 BENCHMARKING | 198.19.255.255 BENCHMARKING | 198.20.0.0 ALLOW
# RFC 5771 multicast 224/4, RFC 1112 reserved 240/4, RFC 919 broadcast
223.255.255.255 ALLOW | 224.0.0.0 MULTICAST | 239.255.255.255 MULTICAST | 240.0.0.0 RESERVED
255.255.255.254 RESERVED | 255.255.255.255 BROADCAST
# RFC 4291 unspecified, loopback, IPv4-compatible (deprecated) ::/96
:: UNSPECIFIED | ::1 LOOPBACK | ::2 THIS_NETWORK | ::8.8.8.8 DEPRECATED_IPV4_EMBEDDING
::10.0.0.1 PRIVATE | ::ffff:ffff BROADCAST | ::1:0:0 RESERVED
# RFC 4291 IPv4-mapped ::ffff:0:0/96
::ffff:0.0.0.0 THIS_NETWORK | ::ffff:127.0.0.1 LOOPBACK | ::ffff:8.8.8.8 DEPRECATED_IPV4_EMBEDDING
::ffff:255.255.255.255 BROADCAST | ::fffe:ffff:ffff RESERVED | ::1:0:0:0 RESERVED
# RFC 2765 IPv4-translated ::ffff:0:0:0/96
::ffff:0:8.8.8.8 DEPRECATED_IPV4_EMBEDDING | ::ffff:0:10.0.0.1 PRIVATE
# RFC 6052 NAT64 64:ff9b::/96 (judged by the IPv4 inside)
64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | 64:ff9b::8.8.8.8 ALLOW
64:ff9b::127.0.0.1 LOOPBACK | 64:ff9b::169.254.169.254 LINK_LOCAL
64:ff9b::255.255.255.255 BROADCAST | 64:ff9b::1:0:0 RESERVED
# RFC 8215 local-use NAT64 64:ff9b:1::/48: not globally reachable (IANA), whatever it carries
64:ff9b:1:a00:0:100:: NOT_GLOBALLY_REACHABLE | 64:ff9b:1::808:808 NOT_GLOBALLY_REACHABLE
64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | 64:ff9b:0:ffff:ffff:ffff:ffff:ffff RESERVED
64:ff9b:1:ffff:ffff:ffff:ffff:ffff NOT_GLOBALLY_REACHABLE | 64:ff9b:2:: RESERVED
# RFC 6666 discard-only 100::/64, RFC 9780 dummy prefix 100:0:0:1::/64
0:ff:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | 100:: RESERVED | 100::ffff:ffff:ffff:ffff RESERVED
100:0:0:1:: NOT_GLOBALLY_REACHABLE | 100:0:0:1:ffff:ffff:ffff:ffff NOT_GLOBALLY_REACHABLE
# RFC 4380 Teredo 2001::/32 (server and inverted client judged)
2001:0:4136:e378:8000:63bf:3fff:fdd2 DOCUMENTATION | 2001:0:808:808::f7f7:f7f7 ALLOW
2001:0:808:808::80ff:fffe LOOPBACK | 2001:0:a00:1::f7f7:f7f7 PRIVATE
# RFC 2928 IETF protocol assignments 2001::/23, refused outside its reachable rows
2001:1:: IETF_PROTOCOL | 2001:1:ffff:ffff:ffff:ffff:ffff:ffff IETF_PROTOCOL
2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff IETF_PROTOCOL | 2001:200:: ALLOW
# RFC 7723 PCP, RFC 8155 TURN, RFC 9665 SRP anycast: listed reachable, answered nearby
2001:1::1 NEARBY_SERVICE_ANYCAST | 2001:1::2 NEARBY_SERVICE_ANYCAST
2001:1::3 NEARBY_SERVICE_ANYCAST | 2001:1::4 IETF_PROTOCOL
192.0.0.9 NEARBY_SERVICE_ANYCAST | 192.0.0.10 NEARBY_SERVICE_ANYCAST | 192.0.0.11 IETF_PROTOCOL
# RFC 5180 benchmarking 2001:2::/48
2001:1:ffff:ffff:ffff:ffff:ffff:ffff IETF_PROTOCOL | 2001:2:: BENCHMARKING
2001:2:0:ffff:ffff:ffff:ffff:ffff BENCHMARKING | 2001:2:1:: IETF_PROTOCOL
# RFC 7450 AMT 2001:3::/32, RFC 7535 AS112-v6 2001:4:112::/48: globally reachable
2001:3:: ALLOW | 2001:3:ffff:ffff:ffff:ffff:ffff:ffff ALLOW | 2001:4:: IETF_PROTOCOL
2001:4:112:: ALLOW | 2001:4:112:ffff:ffff:ffff:ffff:ffff ALLOW | 2001:4:113:: IETF_PROTOCOL
# RFC 4843 ORCHID 2001:10::/28 (terminated), RFC 7343 ORCHIDv2, RFC 9374 DETs (reachable)
2001:f:ffff:ffff:ffff:ffff:ffff:ffff IETF_PROTOCOL | 2001:10:: RESERVED
2001:1f:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | 2001:20:: ALLOW
2001:3f:ffff:ffff:ffff:ffff:ffff:ffff ALLOW | 2001:40:: IETF_PROTOCOL
# RFC 3849 documentation 2001:db8::/32, RFC 9637 3fff::/20
2001:db7:ffff:ffff:ffff:ffff:ffff:ffff ALLOW | 2001:db8:: DOCUMENTATION
2001:db8:ffff:ffff:ffff:ffff:ffff:ffff DOCUMENTATION | 2001:db9:: ALLOW
3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff ALLOW | 3fff:: DOCUMENTATION
3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff DOCUMENTATION | 3fff:1000:: ALLOW
# RFC 3056 6to4 2002::/16 (deprecated by RFC 7526)
2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff ALLOW | 2002:808:808:: DEPRECATED_IPV4_EMBEDDING
2002:7f00:1:: LOOPBACK | 2002:a9fe:a9fe:: LINK_LOCAL | 2003:: ALLOW
# RFC 9602 SRv6 SIDs 5f00::/16 (also outside 2000::/3)
5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | 5f00:: NOT_GLOBALLY_REACHABLE
5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff NOT_GLOBALLY_REACHABLE | 5f01:: RESERVED
# RFC 4291 §2.4 global unicast 2000::/3; outside it nothing is allowed
1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | 2000:: ALLOW
3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ALLOW | 4000:: RESERVED
# RFC 4193 ULA fc00::/7, RFC 4291 link-local fe80::/10, RFC 3879 site-local, multicast ff00::/8
fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | fc00:: UNIQUE_LOCAL
fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff UNIQUE_LOCAL | fe00:: RESERVED
fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff RESERVED | fe80:: LINK_LOCAL
febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff LINK_LOCAL | fec0:: SITE_LOCAL
feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff SITE_LOCAL | ff00:: MULTICAST
ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff MULTICAST
# zone identifiers: judged by the address, refused even when it is public
fe80::1%eth0 LINK_LOCAL | 2606:4700::1111%eth0 ZONE_ID
# ordinary public addresses
8.8.8.8 ALLOW | 93.184.215.14 ALLOW | 2606:4700:4700::1111 ALLOW | 2a00:1450:4001:80e::200e ALLOW
"""


def _rows() -> list[tuple[str, Verdict]]:
    rows = []
    for line in EDGES.strip().splitlines():
        if line.startswith("#"):
            continue
        for cell in line.split("|"):
            address, name = cell.split()
            rows.append((address, Verdict[name]))
    return rows


@pytest.mark.parametrize(("address", "expected"), _rows(), ids=lambda v: str(v))
def test_classify_edge(address: str, expected: Verdict) -> None:
    assert classify(ip_address(address), NO_DEVICE) is expected


DEVICE = AddressPolicy(
    local_interfaces=lambda: [ip_interface("203.0.114.7/24"), ip_interface("2a02:8109::50/64")]
)


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("203.0.114.7", V.DEVICE_ADDRESS),
        ("203.0.114.8", V.DEVICE_NETWORK),
        ("203.0.113.255", V.DOCUMENTATION),
        ("203.0.115.0", V.ALLOW),
        ("2a02:8109::50", V.DEVICE_ADDRESS),
        ("2a02:8109::51", V.DEVICE_NETWORK),
        ("2a02:8109:0:1::50", V.HOME_NETWORK),  # a sibling /64 of the assumed /56
        ("2a02:8109:0:100::50", V.ALLOW),
    ],
)
def test_device_addresses_and_their_networks_are_refused(address: str, expected: V) -> None:
    assert classify(ip_address(address), DEVICE) is expected


def test_default_policy_reads_this_devices_interfaces() -> None:
    assert ip_address("127.0.0.1") in {i.ip for i in device_interfaces()}


def test_unsafe_allow_admits_exactly_the_listed_address() -> None:
    policy = AddressPolicy(local_interfaces=lambda: [], unsafe_allow={ip_address("127.0.0.1")})
    assert classify(ip_address("127.0.0.1"), policy) is V.ALLOW_UNSAFE_EXCEPTION
    assert classify(ip_address("127.0.0.2"), policy) is V.LOOPBACK
    assert classify(ip_address("::ffff:127.0.0.1"), policy) is V.LOOPBACK
    assert classify(ip_address("::1"), policy) is V.LOOPBACK


def test_only_allow_verdicts_allow() -> None:
    allowing = {v for v in Verdict if v.allowed}
    assert allowing == {V.ALLOW, V.ALLOW_UNSAFE_EXCEPTION}
    assert all(v.value.startswith("deny: ") for v in Verdict if not v.allowed)


def test_every_table_row_names_its_rfc() -> None:
    assert len(ranges_module.TABLE) >= 50
    assert all(re.search(r"\[RFC ?\d+\]", row.rfc) for row in ranges_module.TABLE)


def test_classifier_never_asks_the_standard_library_what_is_private() -> None:
    for module in ("ranges.py", "policy.py"):
        source = (Path(ranges_module.__file__).parent / module).read_text(encoding="utf-8")
        assert not re.search(r"\.is_(private|global|reserved|loopback|link_local)", source)


def _unreadable_interfaces() -> list[IPv4Interface | IPv6Interface]:
    raise OSError(97, "Address family not supported by protocol")  # no netlink socket


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"])
def test_unreadable_device_addresses_refuse_instead_of_guessing(address: str) -> None:
    policy = AddressPolicy(local_interfaces=_unreadable_interfaces)
    assert classify(ip_address(address), policy) is V.DEVICE_ADDRESSES_UNKNOWN
    assert not V.DEVICE_ADDRESSES_UNKNOWN.allowed


def test_unreadable_device_addresses_keep_the_fixed_table_verdict() -> None:
    policy = AddressPolicy(local_interfaces=_unreadable_interfaces)
    assert classify(ip_address("127.0.0.1"), policy) is V.LOOPBACK


async def test_web_fetch_opens_no_socket_when_device_addresses_are_unreadable() -> None:
    recorder = Recorder()
    registry = Registry()
    web_fetch.register(
        registry,
        resolver=StaticResolver({"example.org": ["93.184.215.14"]}),
        address_policy=AddressPolicy(local_interfaces=_unreadable_interfaces),
        connector=recorder,
    )
    outcome = await invoke_fetch(registry, "https://example.org/")
    assert outcome.error_code is ErrorCode.FETCH_TARGET_REJECTED
    assert outcome.reason == str(V.DEVICE_ADDRESSES_UNKNOWN)
    assert recorder.attempts == []
