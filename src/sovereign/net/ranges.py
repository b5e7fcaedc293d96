"""The special-purpose address table, built from IANA's own registries (DESIGN §3).

The rows come from the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890),
shipped as their CSV files in ``registries/`` with their date and source. A block the
registry lists as not globally reachable (or whose allocation was terminated) is refused;
a block it lists as globally reachable is not refused by its row. A few rows are added,
each naming its RFC (:data:`SUPPLEMENT`): ranges other registries define (multicast,
site-local), and anycast addresses whose nearest answering instance is usually the
household's own router (:data:`NEARBY_SERVICE_ANYCAST`). The most specific row wins,
so ``2001::/23`` is refused except where a longer row says otherwise.

Nothing here asks the standard library's is_private or is_global: their answers change
between Python releases. :func:`sovereign.net.policy.classify` is the only reader.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_network
from pathlib import Path

from .verdict import Verdict

__all__ = [
    "GLOBAL_UNICAST_V6", "REGISTRY_FILES", "SpecialRow", "embedded_ipv4", "read_registry",
    "rfc6052_ipv4", "special_row",
]

IPNetwork = IPv4Network | IPv6Network
REGISTRY_DIR = Path(__file__).with_name("registries")
REGISTRY_FILES = (
    REGISTRY_DIR / "iana-ipv4-special-registry-1.csv",
    REGISTRY_DIR / "iana-ipv6-special-registry-1.csv",
)

# The registry's own block names, mapped to the reason a fetch there is refused.
# A name not listed here (a row added to a later registry) reads NOT_GLOBALLY_REACHABLE.
VERDICT_BY_NAME = {
    '"This network"': Verdict.THIS_NETWORK,
    '"This host on this network"': Verdict.THIS_NETWORK,
    "Private-Use": Verdict.PRIVATE,
    "Shared Address Space": Verdict.SHARED_ADDRESS_SPACE,
    "Loopback": Verdict.LOOPBACK,
    "Loopback Address": Verdict.LOOPBACK,
    "Link Local": Verdict.LINK_LOCAL,
    "Link-Local Unicast": Verdict.LINK_LOCAL,
    "IETF Protocol Assignments": Verdict.IETF_PROTOCOL,
    "IPv4 Service Continuity Prefix": Verdict.IETF_PROTOCOL,
    "IPv4 dummy address": Verdict.IETF_PROTOCOL,
    "NAT64/DNS64 Discovery": Verdict.IETF_PROTOCOL,
    "Documentation": Verdict.DOCUMENTATION,
    "Documentation (TEST-NET-1)": Verdict.DOCUMENTATION,
    "Documentation (TEST-NET-2)": Verdict.DOCUMENTATION,
    "Documentation (TEST-NET-3)": Verdict.DOCUMENTATION,
    "Benchmarking": Verdict.BENCHMARKING,
    "Reserved": Verdict.RESERVED,
    "Discard-Only Address Block": Verdict.RESERVED,
    "Limited Broadcast": Verdict.BROADCAST,
    "Unspecified Address": Verdict.UNSPECIFIED,
    "Unique-Local": Verdict.UNIQUE_LOCAL,
}

NEARBY_SERVICE_ANYCAST = frozenset({
    "Port Control Protocol Anycast",  # RFC 7723: the PCP server is the home router or CGN
    "Traversal Using Relays around NAT Anycast",  # RFC 8155: a TURN server of this network
    "DNS-SD Service Registration Protocol Anycast",  # RFC 9665: an SRP server on the LAN
})
"""Registry rows listed as globally reachable but refused: the nearest instance answers."""


@dataclass(frozen=True)
class SpecialRow:
    """One block of the table.

    Attributes:
        network: the address block.
        name: the registry's name for it (or the supplement's).
        rfc: the RFC(s) defining it, as the registry writes them.
        verdict: the refusal, or ``None`` when the block is globally reachable.
    """

    network: IPNetwork
    name: str
    rfc: str
    verdict: Verdict | None


SUPPLEMENT = (
    SpecialRow(IPv4Network("224.0.0.0/4"), "Multicast", "[RFC5771]", Verdict.MULTICAST),
    SpecialRow(IPv6Network("ff00::/8"), "Multicast", "[RFC4291], Section 2.7", Verdict.MULTICAST),
    SpecialRow(IPv6Network("fec0::/10"), "Site-Local (deprecated)", "[RFC3879]",
               Verdict.SITE_LOCAL),
)
"""Rows the special-purpose registries leave to other registries, refused all the same."""

# IPv6 forms that carry an IPv4 address, with where it sits. ``deprecated`` forms are
# refused even when the IPv4 address inside is public; the others are judged by it.
_MAPPED = IPv6Network("::ffff:0:0/96")  # RFC 4291 §2.5.5.2 IPv4-mapped
_TRANSLATED = IPv6Network("::ffff:0:0:0/96")  # RFC 2765 §2.1 IPv4-translated (SIIT)
_COMPATIBLE = IPv6Network("::/96")  # RFC 4291 §2.5.5.1 IPv4-compatible (deprecated)
_NAT64 = IPv6Network("64:ff9b::/96")  # RFC 6052 §2.1 well-known NAT64 prefix
_SIX_TO_FOUR = IPv6Network("2002::/16")  # RFC 3056 6to4 (deprecated by RFC 7526)
_TEREDO = IPv6Network("2001::/32")  # RFC 4380 Teredo
EMBEDDING_NETWORKS = frozenset({_MAPPED, _TRANSLATED, _COMPATIBLE, _NAT64, _SIX_TO_FOUR, _TEREDO})
"""Blocks whose addresses are judged by the IPv4 address inside, not by their row."""

_FOOTNOTE = re.compile(r"\s*\[\d+\]")


def _flag(cell: str | None) -> bool | None:
    value = _FOOTNOTE.sub("", cell or "").strip().lower()
    return {"true": True, "false": False}.get(value)


def _row_verdict(
    network: IPNetwork, name: str, reachable: bool | None, terminated: bool
) -> Verdict | None:
    if terminated:
        return Verdict.RESERVED  # the allocation ended: nothing lives there
    if name in NEARBY_SERVICE_ANYCAST:
        return Verdict.NEARBY_SERVICE_ANYCAST
    if reachable or (reachable is None and network in EMBEDDING_NETWORKS):
        return None  # N/A (Teredo, 6to4): judged by the IPv4 address it carries
    return VERDICT_BY_NAME.get(name, Verdict.NOT_GLOBALLY_REACHABLE)


def read_registry(path: Path) -> list[SpecialRow]:
    """The rows of one IANA special-purpose registry CSV (RFC 6890 §2.1 columns).

    A cell may hold several blocks (``"192.0.0.170/32, 192.0.0.171/32"``); footnote
    marks (``[2]``) are dropped. "Globally Reachable" ``N/A`` (Teredo, 6to4) reads as
    not refused by the row: those forms are judged by the IPv4 address they carry.

    Raises:
        OSError: the file cannot be read. ValueError: a block is not a network.
    """
    rows = []
    with path.open(encoding="utf-8", newline="") as handle:
        for record in csv.DictReader(handle):
            name = " ".join(record["Name"].split())
            terminated = record["Termination Date"].strip() not in ("", "N/A")
            reachable = _flag(record["Globally Reachable"])
            rfc = " ".join(record["RFC"].split())
            for block in _FOOTNOTE.sub("", record["Address Block"]).split(","):
                network = ip_network(block.strip())
                verdict = _row_verdict(network, name, reachable, terminated)
                rows.append(SpecialRow(network, name, rfc, verdict))
    return rows


def _table(rows: list[SpecialRow]) -> tuple[SpecialRow, ...]:
    return tuple(sorted(rows, key=lambda row: -row.network.prefixlen))  # most specific first


TABLE = _table([row for path in REGISTRY_FILES for row in read_registry(path)]
               + list(SUPPLEMENT))
"""Every row, most specific first: the first row that contains an address decides."""


def special_row(address: IPv4Address | IPv6Address) -> SpecialRow | None:
    """The most specific row containing ``address``; ``None`` if no row does."""
    return next((row for row in TABLE if row.network.version == address.version
                 and address in row.network), None)


# Outside this block no IPv6 address is global unicast (RFC 4291 §2.4, IANA registry);
# anything there that no row or embedding names is refused as reserved.
GLOBAL_UNICAST_V6 = IPv6Network("2000::/3")  # RFC 4291 §2.4

RFC6052_PREFIX_LENGTHS = (32, 40, 48, 56, 64, 96)  # RFC 6052 §2.2


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


def embedded_ipv4(address: IPv6Address) -> tuple[list[IPv4Address], bool] | None:
    """The IPv4 addresses ``address`` embeds, and whether its form is deprecated.

    Returns ``None`` for an address of no embedding form. The local-use NAT64 prefix
    (64:ff9b:1::/48, RFC 8215) is not an embedding here: the registry lists it as not
    globally reachable, so its row refuses it whatever it carries.
    """
    if address in _MAPPED or address in _TRANSLATED or address in _COMPATIBLE:
        return [IPv4Address(_bits(address, 96, 32))], True  # :: and ::1 have rows of their own
    if address in _NAT64:
        return [rfc6052_ipv4(address, 96)], False
    if address in _SIX_TO_FOUR:
        return [IPv4Address(_bits(address, 16, 32))], True
    if address in _TEREDO:  # server at bits 32-63, client obfuscated (inverted) at 96-127
        client = IPv4Address(_bits(address, 96, 32) ^ 0xFFFFFFFF)
        return [IPv4Address(_bits(address, 32, 32)), client], False
    return None
