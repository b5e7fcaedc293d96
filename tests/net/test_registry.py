"""Every row of IANA's special-purpose registries is enforced (generated from the CSVs).

The expectations are derived here from the shipped CSV files with this file's own
reading of them, not from ``sovereign.net.ranges``: for each row, the first and last
address of every piece of its block that no more specific row covers, and one address
just outside the block when no other row holds it.

- "Globally Reachable" False, or a terminated allocation: refused.
- True: allowed, except the anycast rows answered by a nearby service (refused).
- N/A (Teredo, 6to4): judged by the IPv4 address carried (tests/net/test_nat64.py and
  test_policy.py hold those forms' own rows).
"""

from __future__ import annotations

import csv
import re
from ipaddress import IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from pathlib import Path

import pytest

import sovereign.net
from sovereign.net import AddressPolicy, Verdict, classify

REGISTRIES = Path(sovereign.net.__file__).with_name("registries")
NO_DEVICE = AddressPolicy(local_interfaces=lambda: [])
ANSWERED_NEARBY = {"Port Control Protocol Anycast", "Traversal Using Relays around NAT Anycast",
                   "DNS-SD Service Registration Protocol Anycast"}
EMBEDDING_FORMS = {ip_network("::ffff:0:0/96"), ip_network("64:ff9b::/96"),
                   ip_network("2001::/32"), ip_network("2002::/16")}
ELSEWHERE = [ip_network("224.0.0.0/4"), ip_network("ff00::/8"), ip_network("fec0::/10")]


def _rows() -> list[tuple[IPv4Network | IPv6Network, str, str, str]]:
    rows = []
    for name in ("iana-ipv4-special-registry-1.csv", "iana-ipv6-special-registry-1.csv"):
        with (REGISTRIES / name).open(encoding="utf-8", newline="") as handle:
            for record in csv.DictReader(handle):
                flag = re.sub(r"\[\d+\]", "", record["Globally Reachable"]).strip()
                ended = record["Termination Date"].strip() not in ("", "N/A")
                for block in re.sub(r"\[\d+\]", "", record["Address Block"]).split(","):
                    rows.append((ip_network(block.strip()), record["Name"], flag,
                                 "ended" if ended else "current"))
    return rows


ROWS = _rows()


def _expected(network: IPv4Network | IPv6Network, name: str, flag: str, state: str) -> str:
    if state == "ended" or flag == "False" or name in ANSWERED_NEARBY:
        return "refused"
    return "allowed" if flag == "True" else "embedding"


def _uncovered_edges(network: IPv4Network | IPv6Network) -> list[str]:
    """First and last address of every piece of ``network`` no more specific row holds."""
    pieces = [network]
    for other, *_ in ROWS:
        if other != network and other.version == network.version and other.subnet_of(network):
            pieces = [part for piece in pieces for part in
                      (piece.address_exclude(other) if other.subnet_of(piece) else [piece])]
    return sorted({str(edge) for piece in pieces for edge in (piece[0], piece[-1])})


def _outside(network: IPv4Network | IPv6Network) -> list[str]:
    """The addresses just before and after ``network`` that no row and no other range holds."""
    around = []
    first, last = int(network[0]), int(network[-1])
    neighbours = [n for n in (first - 1, last + 1) if 0 <= n <= network.broadcast_address._ALL_ONES]
    for address in (network[0].__class__(n) for n in neighbours):
        held = any(address in other for other, *_ in ROWS) or any(
            address in other for other in ELSEWHERE if other.version == address.version)
        if isinstance(address, IPv6Address) and address not in ip_network("2000::/3"):
            held = True
        if not held:
            around.append(str(address))
    return around


CASES = [
    pytest.param(_uncovered_edges(network), _expected(network, name, flag, state),
                 id=f"{network} {name[:40]}")
    for network, name, flag, state in ROWS
    if network not in EMBEDDING_FORMS
]


def test_both_registries_are_read_whole() -> None:
    assert sum(row[0].version == 4 for row in ROWS) == 26  # 25 rows, one holding two blocks
    assert sum(row[0].version == 6 for row in ROWS) == 25
    assert all(edges for edges, *_ in (case.values for case in CASES))


@pytest.mark.parametrize(("edges", "expected"), CASES)
def test_every_registry_row_is_enforced_at_its_edges(edges: list[str], expected: str) -> None:
    verdicts = {address: classify(ip_address(address), NO_DEVICE) for address in edges}
    if expected == "refused":
        assert not any(verdict.allowed for verdict in verdicts.values()), verdicts
    else:
        assert all(verdict is Verdict.ALLOW for verdict in verdicts.values()), verdicts


@pytest.mark.parametrize(
    "address", sorted({a for network, *_ in ROWS for a in _outside(network)}))
def test_an_ordinary_address_next_to_a_row_is_allowed(address: str) -> None:
    assert classify(ip_address(address), NO_DEVICE) is Verdict.ALLOW


@pytest.mark.parametrize("network", sorted(EMBEDDING_FORMS, key=str), ids=str)
def test_embedding_rows_are_judged_by_the_ipv4_address_they_carry(
        network: IPv6Network) -> None:
    carries_loopback = {
        "::ffff:0:0/96": "::ffff:127.0.0.1", "64:ff9b::/96": "64:ff9b::127.0.0.1",
        "2001::/32": "2001:0:7f00:1::f7f7:f7f7", "2002::/16": "2002:7f00:1::",
    }[str(network)]
    assert classify(ip_address(carries_loopback), NO_DEVICE) is Verdict.LOOPBACK


def test_the_example_of_the_report_2001_23_outside_its_exceptions_is_refused() -> None:
    for address in ("2001:1::4", "2001:5::1", "2001:1ff::1", "2001:100::"):
        assert not classify(ip_address(address), NO_DEVICE).allowed, address
