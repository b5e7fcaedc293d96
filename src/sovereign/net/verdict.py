"""The answer of the destination classifier: allowed, or refused with a named reason (DESIGN §3)."""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """What :func:`sovereign.net.policy.classify` decided for one destination.

    The value is the name written to the audit log and into the
    ``FETCH_TARGET_REJECTED`` message, e.g. ``"deny: loopback"``.
    """

    ALLOW = "allow"
    ALLOW_UNSAFE_EXCEPTION = "allow: unsafe exception"
    THIS_NETWORK = "deny: this network"
    LOOPBACK = "deny: loopback"
    PRIVATE = "deny: private network"
    SHARED_ADDRESS_SPACE = "deny: shared address space (carrier-grade NAT)"
    LINK_LOCAL = "deny: link-local"
    IETF_PROTOCOL = "deny: IETF protocol assignment"
    DOCUMENTATION = "deny: documentation range"
    BENCHMARKING = "deny: benchmarking range"
    MULTICAST = "deny: multicast"
    BROADCAST = "deny: broadcast"
    RESERVED = "deny: reserved range"
    UNSPECIFIED = "deny: unspecified address"
    UNIQUE_LOCAL = "deny: unique local address"
    SITE_LOCAL = "deny: site-local"
    DEPRECATED_IPV4_EMBEDDING = "deny: deprecated IPv6 form embedding IPv4"
    DEVICE_ADDRESS = "deny: this device's own address"
    DEVICE_NETWORK = "deny: a network this device is attached to"
    DEVICE_ADDRESSES_UNKNOWN = "deny: this device's own addresses could not be read"
    HOME_NETWORK = "deny: the household's own IPv6 prefix"
    HOME_PREFIXES_UNKNOWN = "deny: the household's IPv6 prefixes could not be read"
    NOT_GLOBALLY_REACHABLE = "deny: not globally reachable (IANA special-purpose registry)"
    NEARBY_SERVICE_ANYCAST = "deny: anycast address answered by a nearby network service"
    ZONE_ID = "deny: IPv6 zone identifier"
    NON_CANONICAL_NUMERIC_HOST = "deny: non-canonical numeric host"
    USERINFO = "deny: user name or password in the URL"
    LOCAL_NAME = "deny: name of this device or the home network"
    SPECIAL_USE_NAME = "deny: special-use name"

    @property
    def allowed(self) -> bool:
        """True for the two allowing verdicts."""
        return self in (Verdict.ALLOW, Verdict.ALLOW_UNSAFE_EXCEPTION)
