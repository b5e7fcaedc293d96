"""The one place that decides whether an address may be connected to (DESIGN §3).

:func:`classify` reads the special-purpose table in :mod:`sovereign.net.ranges`
(built from IANA's registries), unwraps IPv6 forms that embed IPv4, refuses this
device's own addresses, the networks its interfaces sit on and the household's IPv6
prefix (:mod:`sovereign.net.home`), and names its reason in a :class:`Verdict`.
Nothing else in the code decides. The only way to loosen it is an explicit address
list in :attr:`AddressPolicy.unsafe_allow`, meant for tests that serve pages on loopback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from ipaddress import (
    IPv4Address,
    IPv4Interface,
    IPv4Network,
    IPv6Address,
    IPv6Interface,
    IPv6Network,
    ip_address,
    ip_interface,
)

import psutil

from .home import DEFAULT_DELEGATED_PREFIX_LENGTH, ON_LINK_PREFIX_LENGTH, home_networks
from .names import name_verdict
from .ranges import EMBEDDING_NETWORKS, GLOBAL_UNICAST_V6, embedded_ipv4, special_row
from .url import Host
from .verdict import Verdict

__all__ = [
    "AddressPolicy",
    "IPAddress",
    "IPInterface",
    "Verdict",
    "classify",
    "classify_host",
    "device_interfaces",
    "fixed_verdict",
]

IPAddress = IPv4Address | IPv6Address
IPInterface = IPv4Interface | IPv6Interface


def device_interfaces() -> list[IPInterface]:
    """Every interface address of this device with its on-link prefix, e.g. ``192.168.1.50/24``.

    Read afresh on each call (addresses change with DHCP and router advertisements).
    Returns an empty list where the platform reports none.
    """
    interfaces: list[IPInterface] = []
    for entries in psutil.net_if_addrs().values():
        for entry in entries:
            interface = _interface(entry.address, entry.netmask)
            if interface is not None:
                interfaces.append(interface)
    return interfaces


def _interface(address: str, netmask: str | None) -> IPInterface | None:
    try:
        host = ip_address(address.split("%", 1)[0])
    except ValueError:
        return None  # a MAC address entry
    prefix = host.max_prefixlen
    if netmask:
        with contextlib.suppress(ValueError):
            prefix = bin(int(ip_address(netmask))).count("1")
    return ip_interface(f"{host}/{prefix}")


@dataclass(frozen=True)
class AddressPolicy:
    """What :func:`classify` needs beyond the fixed range table.

    Args:
        local_interfaces: returns this device's interface addresses with their
            on-link prefix; each address is refused as DEVICE_ADDRESS and the rest
            of its network as DEVICE_NETWORK (for a global IPv6 address, at least
            the /64 around it). Default: :func:`device_interfaces`.
        home_prefixes: returns the household's delegated IPv6 prefixes as the
            household configured them (``home_ipv6_prefixes``); refused as
            HOME_NETWORK. It raises ``OSError`` or ``ValueError`` when the setting
            cannot be read, and every global IPv6 destination is then refused.
        delegated_prefix_length: without a configured prefix, the prefix around each
            global IPv6 address of the device that is taken as the household's
            (default 56, the usual delegation; 64 leaves only the /64).
        unsafe_allow: exact addresses allowed even though the table refuses them.
            Production code leaves it empty; tests use it to reach a server they
            started on 127.0.0.1. There is no range form on purpose.
    """

    local_interfaces: Callable[[], Iterable[IPInterface]] = device_interfaces
    home_prefixes: Callable[[], Iterable[IPv6Network]] = tuple
    delegated_prefix_length: int = DEFAULT_DELEGATED_PREFIX_LENGTH
    unsafe_allow: frozenset[IPAddress] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        object.__setattr__(self, "unsafe_allow", frozenset(self.unsafe_allow))


DEFAULT_POLICY = AddressPolicy()


def classify(address: IPAddress, policy: AddressPolicy = DEFAULT_POLICY) -> Verdict:
    """Decide whether a connection to ``address`` is allowed (DESIGN §3 rule 3).

    Checks, in order: the exact ``unsafe_allow`` list; an IPv6 zone identifier
    (ZONE_ID); the special-purpose table (the most specific row decides); IPv4
    embedded in IPv6, judged by the IPv4 address (deprecated forms refused even when
    it is public); IPv6 outside 2000::/3 (RESERVED); this device's own addresses and
    networks, for the address itself and for every IPv4 address it embeds (a NAT64
    or Teredo form of the device's own IPv4 address is DEVICE_ADDRESS too); the
    household's IPv6 prefix (HOME_NETWORK). When the device's addresses cannot be
    read (``OSError``), the answer is DEVICE_ADDRESSES_UNKNOWN: refused, not guessed;
    likewise HOME_PREFIXES_UNKNOWN for an IPv6 destination when the household's
    prefixes cannot be read.

    Args:
        address: the exact address a socket would connect to.
        policy: device networks and test-only exceptions.

    Returns:
        ``Verdict.ALLOW``, ``Verdict.ALLOW_UNSAFE_EXCEPTION`` or a ``deny:`` verdict.
    """
    if address in policy.unsafe_allow:
        return Verdict.ALLOW_UNSAFE_EXCEPTION
    verdict = fixed_verdict(address)
    if verdict is not None:
        return verdict
    try:
        interfaces = list(policy.local_interfaces())
    except OSError:  # e.g. no netlink socket in a sandbox: fail closed, never guess
        return Verdict.DEVICE_ADDRESSES_UNKNOWN
    destinations = _destinations(address)
    verdict = _device_verdict(destinations, interfaces)
    if verdict is not Verdict.ALLOW or not isinstance(address, IPv6Address):
        return verdict
    return _home_verdict(address, interfaces, policy)


def classify_host(host: Host, policy: AddressPolicy = DEFAULT_POLICY) -> Verdict | None:
    """What can be decided about ``host`` without any network activity.

    An IP literal is judged by :func:`classify` (every spelling :func:`parse_host`
    accepts has become its address by then); a non-canonical numeric spelling is
    refused; a name is refused when :func:`~sovereign.net.names.name_verdict` says it
    can only be local. Used at validation, before a card is shown, and again by the
    transport before it resolves.

    Returns:
        A verdict for an IP literal or a refused name; ``None`` for a name whose
        addresses must be looked up (after approval) and classified then.
    """
    if host.numeric:
        return Verdict.NON_CANONICAL_NUMERIC_HOST
    if host.address is not None:
        return classify(host.address, policy)
    return name_verdict(host.name)


def fixed_verdict(address: IPAddress) -> Verdict | None:
    """What the fixed tables alone say about ``address``: a refusal, or ``None``.

    No device or household address is consulted; used by :func:`classify` and to tell
    which of the device's own IPv6 addresses are global.
    """
    if isinstance(address, IPv6Address) and address.scope_id:
        return fixed_verdict(_unscoped(address)) or Verdict.ZONE_ID
    row = special_row(address)
    if row is not None and row.network not in EMBEDDING_NETWORKS:
        return row.verdict
    if isinstance(address, IPv4Address):
        return None
    embedding = embedded_ipv4(address)
    if embedding is not None:
        inner, deprecated = embedding
        refused = next((v for v in map(fixed_verdict, inner) if v is not None), None)
        return refused or (Verdict.DEPRECATED_IPV4_EMBEDDING if deprecated else None)
    if address not in GLOBAL_UNICAST_V6:
        return Verdict.RESERVED
    return None


def _unscoped(address: IPv6Address) -> IPv6Address:
    return IPv6Address(address.compressed.split("%", 1)[0])


def _destinations(address: IPAddress) -> list[IPAddress]:
    """``address`` and every IPv4 address it embeds: each could be where packets go."""
    if isinstance(address, IPv4Address):
        return [address]
    embedding = embedded_ipv4(address)
    return [address, *(embedding[0] if embedding else [])]


def _device_verdict(addresses: list[IPAddress], interfaces: list[IPInterface]) -> Verdict:
    verdicts = [_one_device_verdict(address, interfaces) for address in addresses]
    for refusal in (Verdict.DEVICE_ADDRESS, Verdict.DEVICE_NETWORK):
        if refusal in verdicts:
            return refusal
    return Verdict.ALLOW


def _one_device_verdict(address: IPAddress, interfaces: Iterable[IPInterface]) -> Verdict:
    verdict = Verdict.ALLOW
    for interface in interfaces:
        if interface.version != address.version:
            continue
        if address == interface.ip:
            return Verdict.DEVICE_ADDRESS
        if address in interface.network or address in _at_least_64(interface):
            verdict = Verdict.DEVICE_NETWORK
    return verdict


def _at_least_64(interface: IPInterface) -> IPv4Network | IPv6Network:
    """The /64 around a global IPv6 address of the device (a /128 from DHCPv6 too)."""
    if isinstance(interface, IPv4Interface) or fixed_verdict(interface.ip) is not None:
        return interface.network
    return IPv6Network(f"{interface.ip}/{ON_LINK_PREFIX_LENGTH}", strict=False)


def _home_verdict(
    address: IPv6Address, interfaces: list[IPInterface], policy: AddressPolicy
) -> Verdict:
    try:
        configured = list(policy.home_prefixes())
    except (OSError, ValueError):  # an unreadable setting: fail closed for IPv6
        return Verdict.HOME_PREFIXES_UNKNOWN
    globals_ = [i.ip for i in interfaces
                if isinstance(i.ip, IPv6Address) and fixed_verdict(i.ip) is None]
    networks = home_networks(globals_, configured, policy.delegated_prefix_length)
    if any(address in network for network in networks):
        return Verdict.HOME_NETWORK
    return Verdict.ALLOW
