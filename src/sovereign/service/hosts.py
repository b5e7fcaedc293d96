"""The host names the service answers to, and how a request's Host and Origin are read.

DESIGN §5: a request is served only when its ``Host`` names one of the service's own
``(name, port)`` pairs. Names are compared exactly as a browser sends them: lower
case, IPv6 in brackets, no trailing dot, the port written out unless it is the
scheme's default. Anything else (``127.1``, ``[0:0::1]``, ``name.``, a user-info
part, a second port) is simply not one of the pairs, so it is refused.
"""

from __future__ import annotations

import ipaddress
import re

CONSOLE_HOST = "sovereign.localhost"
"""The Console's own name: browsers resolve every ``*.localhost`` name to loopback,
and a cookie set for it (host-only) is never sent to ``127.0.0.1`` or ``localhost``."""

LOOPBACK_NAMES = (CONSOLE_HOST, "localhost", "127.0.0.1", "[::1]")
"""Names every service answers to: its own, and loopback's (which work but share
their cookies with every other service on the device)."""

DEFAULT_PORTS = {"http": 80, "https": 443}

_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_PORT = re.compile(r"[1-9][0-9]{0,4}")

def is_this_device(host: str) -> bool:
    """Whether ``host`` (a URL's host name or address, or a listening address) can only be
    this device: ``localhost`` or a ``*.localhost`` name (RFC 6761), or a loopback address
    (127.0.0.0/8, ``::1``, with a zone index or as an IPv4-mapped IPv6 address)."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


HostPin = tuple[str, int]
"""``(name, port)``: a canonical host name (or bracketed address) and a TCP port."""


def canonical_name(entry: str) -> str:
    """A host name or address as browsers write it in ``Host``.

    ``"Sovereign.LAN"`` → ``"sovereign.lan"``, ``"::1"`` or ``"[::1]"`` → ``"[::1]"``,
    ``"192.168.1.20"`` unchanged.

    Raises:
        ValueError: not a plain DNS name, IPv4 or IPv6 address (wildcards, schemes,
            paths, trailing dots and names ending in a number such as ``127.1``
            are refused, the last because browsers read them as IPv4).
    """
    name = entry.strip().lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        address = None
    if isinstance(address, ipaddress.IPv6Address):
        return f"[{address.compressed}]"
    if address is not None:
        return str(address)
    if len(name) > 253 or not _HOSTNAME.fullmatch(name) or name.rsplit(".", 1)[-1].isdigit():
        raise ValueError(f"{entry!r} is not a host name or an IP address")
    return name


def parse_pin(entry: str, port: int) -> HostPin:
    """An allowed-host entry, ``name`` or ``name:port``, as a pin (``port`` by default).

    Raises:
        ValueError: a malformed name (see :func:`canonical_name`) or port.
    """
    entry = entry.strip()
    name, explicit = entry, None
    if entry.count(":") == 1 or (entry.startswith("[") and "]:" in entry):
        name, _, explicit = entry.rpartition(":")
    if explicit is not None and not _PORT.fullmatch(explicit):
        raise ValueError(f"{entry!r} has no valid port after the colon")
    chosen = int(explicit) if explicit is not None else port
    if not 0 < chosen < 65536:
        raise ValueError(f"{entry!r}: the port must be between 1 and 65535")
    return canonical_name(name), chosen


def read_authority(value: str, scheme: str) -> HostPin | None:
    """A ``Host`` header value (or an origin's authority) as ``(name, port)``.

    The name is only lower-cased, never otherwise rewritten, so a spelling no
    browser sends cannot equal a pin. ``None`` when the value is malformed.
    """
    value = value.lower()
    if value.startswith("["):
        end = value.find("]") + 1
        name, rest = value[:end], value[end:]
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
    if not name:
        return None
    if not rest:
        return (name, DEFAULT_PORTS[scheme]) if scheme in DEFAULT_PORTS else None
    if rest[0] != ":" or not _PORT.fullmatch(rest[1:]) or int(rest[1:]) > 65535:
        return None
    return name, int(rest[1:])


def read_origin(value: str) -> tuple[str, HostPin] | None:
    """An ``Origin`` header as ``(scheme, (name, port))``; ``None`` for ``null`` or junk."""
    scheme, separator, authority = value.partition("://")
    if not separator or scheme not in DEFAULT_PORTS or "/" in authority:
        return None
    pin = read_authority(authority, scheme)
    return (scheme, pin) if pin else None
