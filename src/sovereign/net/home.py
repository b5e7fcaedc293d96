"""The household's own IPv6 prefix: what counts as the home network beyond the device's /64.

A home router is usually delegated a /56 (sometimes a /48 or /60) by the provider and
hands one /64 of it to each of its networks (the LAN, a guest or IoT network). The
device sees only its own /64 in the router advertisement, so the rest of the delegation
is either configured by the household (``home_ipv6_prefixes``) or assumed: the /56
around each global IPv6 address of the device (:data:`DEFAULT_DELEGATED_PREFIX_LENGTH`).
Decision record: docs/decisions/web-fetch-home-ipv6-prefix.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from ipaddress import IPv6Address, IPv6Network, ip_network
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_DELEGATED_PREFIX_LENGTH", "HOME_PREFIXES_KEY", "ON_LINK_PREFIX_LENGTH",
    "home_networks", "parse_home_prefixes", "read_home_prefixes",
]

ON_LINK_PREFIX_LENGTH = 64
"""An IPv6 LAN is a /64 (RFC 4291 §2.5.1, RFC 7421), whatever prefix an address came with."""
DEFAULT_DELEGATED_PREFIX_LENGTH = 56
"""The delegation assumed when none is configured: RIPE-690 §4.2's advice for homes."""
SHORTEST_HOME_PREFIX = 32
"""A configured prefix shorter than this is refused: it would be a provider's whole block."""
HOME_PREFIXES_KEY = "home_ipv6_prefixes"
MAX_PREFIXES = 64
MAX_FILE_BYTES = 65536


def parse_home_prefixes(value: Any) -> list[IPv6Network]:
    """The household's prefixes from the setting's JSON value (a list of CIDR strings).

    Host bits are cleared (``2001:db8:1:2::5/56`` means ``2001:db8:1::/56``).

    Raises:
        ValueError: not a list of at most :data:`MAX_PREFIXES` IPv6 prefixes of length
            :data:`SHORTEST_HOME_PREFIX` to 64, with a sentence naming the entry.
    """
    if not isinstance(value, list) or len(value) > MAX_PREFIXES:
        raise ValueError(f"{HOME_PREFIXES_KEY} must be a list of at most {MAX_PREFIXES} "
                         "IPv6 prefixes such as 2001:db8:1200::/56")
    prefixes = []
    for position, entry in enumerate(value, 1):
        try:
            network = ip_network(entry, strict=False) if isinstance(entry, str) else None
        except ValueError:
            network = None
        if not isinstance(network, IPv6Network) or not (
                SHORTEST_HOME_PREFIX <= network.prefixlen <= ON_LINK_PREFIX_LENGTH):
            raise ValueError(f"entry {position} of {HOME_PREFIXES_KEY} is not an IPv6 prefix "
                             f"of length /{SHORTEST_HOME_PREFIX} to /64 (such as "
                             "2001:db8:1200::/56)")
        prefixes.append(network)
    return prefixes


def read_home_prefixes(path: Path) -> list[IPv6Network]:
    """The prefixes configured in ``path`` (a JSON object); ``[]`` when it does not exist.

    Raises:
        OSError: the file exists but cannot be read. ValueError: it is larger than
            :data:`MAX_FILE_BYTES`, not a JSON object, or its prefixes are invalid.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"{path.name} is larger than {MAX_FILE_BYTES} bytes")
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path.name} is not valid JSON") from exc
    if not isinstance(document, dict):
        raise ValueError(f"{path.name} must hold a JSON object")
    return parse_home_prefixes(document.get(HOME_PREFIXES_KEY, []))


def home_networks(
    device_addresses: Iterable[IPv6Address], configured: Iterable[IPv6Network],
    delegated_prefix_length: int = DEFAULT_DELEGATED_PREFIX_LENGTH,
) -> list[IPv6Network]:
    """Every network taken as the household's own.

    Args:
        device_addresses: the device's global IPv6 addresses.
        configured: the household's ``home_ipv6_prefixes``.
        delegated_prefix_length: the prefix assumed around each device address
            (between 1 and 64; 64 assumes nothing beyond the device's own /64).

    Returns:
        The configured prefixes, then the assumed prefix around each device address.
    """
    length = max(1, min(ON_LINK_PREFIX_LENGTH, delegated_prefix_length))
    assumed = [IPv6Network(f"{address}/{length}", strict=False) for address in device_addresses]
    return [*configured, *assumed]
