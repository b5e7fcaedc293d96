"""Host names that can only mean this device or the home network: refused without a look-up.

Written out as data, one row per suffix with the document that reserves it. A name
matches a row when it is the suffix itself or ends in ``.`` + the suffix. A name of
one label (``router``, ``nas``) is refused too: no public name is dotless (ICANN
forbids dotless domains), so one can only be completed by the resolver's search list
or the hosts file, both local. :func:`sovereign.net.policy.classify_host` is the only
reader of this table.
"""

from __future__ import annotations

from .verdict import Verdict

__all__ = ["LOCAL_SUFFIXES", "name_verdict"]

LOCAL_SUFFIXES: tuple[tuple[str, Verdict], ...] = (
    ("localhost", Verdict.LOCAL_NAME),  # RFC 6761 §6.3: always the loopback address
    ("local", Verdict.LOCAL_NAME),  # RFC 6762: multicast DNS on the home network
    ("home.arpa", Verdict.LOCAL_NAME),  # RFC 8375: residential home networks
    ("internal", Verdict.LOCAL_NAME),  # ICANN board resolution 2024.07.29.06: private use
    ("lan", Verdict.LOCAL_NAME),  # RFC 6762 Appendix G: used by home routers
    ("home", Verdict.LOCAL_NAME),  # RFC 6762 Appendix G; never delegated (ICANN 2018)
    ("localdomain", Verdict.LOCAL_NAME),  # the hosts-file domain of many distributions
    ("onion", Verdict.SPECIAL_USE_NAME),  # RFC 7686: must not be sent to DNS at all
)


def name_verdict(name: str) -> Verdict | None:
    """The refusing verdict for an ASCII host name (lower case, no trailing dot), or
    ``None`` when only resolving it can tell."""
    if "." not in name:
        return Verdict.LOCAL_NAME
    for suffix, verdict in LOCAL_SUFFIXES:
        if name == suffix or name.endswith("." + suffix):
            return verdict
    return None
