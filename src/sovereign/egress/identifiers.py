"""The household-identifier check: spans of an outgoing argument that look private (DESIGN §4).

Run on the canonical arguments of every external proposal (the web.search query,
the web.fetch URL) before its card is issued. Local, deterministic, no model: a
set of grammars (:mod:`.addresses`, :mod:`.contacts`) and the household's own
words and names (:mod:`.household`) read the folded view of the text
(:mod:`.scanview`). Each finding is a :class:`Flag`: the argument, its span in
code points of the canonical value, a kind from the fixed vocabulary
:data:`REASONS` (the only part that may reach the audit log) and the reason in
plain words for the card. A flag is a warning, not a refusal: the household
approves anyway, edits or denies. docs/decisions/household-identifiers.md says what
is flagged, what is deliberately not, and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .addresses import find_addresses, find_macs
from .contacts import find_emails, find_phones
from .household import Household
from .lookalikes import mixed_script_words
from .scanview import scan_view

__all__ = ["KINDS", "REASONS", "Flag", "check_arguments", "find_identifiers"]

REASONS: dict[str, str] = {
    "private_address": "looks like an address on your home network",
    "device_address": "is one of this device's own network addresses",
    "mac_address": "looks like a device's hardware (MAC) address",
    "email_address": "looks like an e-mail address",
    "phone_number": "looks like a phone number",
    "local_host_name": "looks like the name of a device on your home network",
    "device_name": "is a name of this device or of its home network",
    "home_assistant_name": "names something in your Home Assistant",
    "pihole_name": "is a name from your Pi-hole's local DNS",
    "wifi_name": "is the name of your Wi-Fi network",
    "private_word": "is on your household's list of private words",
    "look_alike": "spells one of your household's words with look-alike letters, "
    "digits or in another order",
    "mixed_script": "mixes letters of different alphabets, as look-alike spellings do",
}
"""Every flag kind and the words the card says after the flagged text."""
KINDS: tuple[str, ...] = tuple(REASONS)


@dataclass(frozen=True, order=True)
class Flag:
    """One flagged span: ``value[start:end]`` of argument ``argument`` (code points)."""

    start: int
    end: int
    kind: str
    argument: str = ""

    @property
    def reason(self) -> str:
        """The plain sentence fragment for the card (see :data:`REASONS`)."""
        return REASONS[self.kind]

    def to_wire(self) -> dict[str, Any]:
        """``{"argument", "start", "end", "kind", "reason"}`` for ``pending_confirmation.flags``."""
        return {
            "argument": self.argument,
            "start": self.start,
            "end": self.end,
            "kind": self.kind,
            "reason": self.reason,
        }


def find_identifiers(
    text: str, household: Household | None = None, *, argument: str = ""
) -> list[Flag]:
    """Every span of ``text`` that looks like a household detail, sorted by position.

    Args:
        text: one argument value as it will leave (canonical form).
        household: the compiled household sources; ``None`` for the grammars alone.
        argument: the argument's name, carried into each :class:`Flag`.

    Returns:
        Flags with spans in code points of ``text``; one span may carry several
        kinds (an e-mail address on a ``.local`` host is both). Never raises.
    """
    household = household or _EMPTY
    view = scan_view(text)
    machine = find_addresses(view.text, household.addresses) + find_macs(view.text)
    found = machine + find_emails(view.text)
    found += find_phones(view.text, [(start, end) for _, start, end in found])
    found += household.find_names(view.text) + household.find_words(view.text)
    found += mixed_script_words(view.text)
    flags = {Flag(*view.original_span(start, end), kind, argument) for kind, start, end in found}
    return sorted(flags)


def check_arguments(
    arguments: Mapping[str, Any], names: Iterable[str], household: Household | None = None
) -> list[Flag]:
    """:func:`find_identifiers` over the string arguments called ``names``.

    Args:
        arguments: a proposal's canonical arguments.
        names: which of them leave the device as text (``("query",)`` for web.search).
        household: as for :func:`find_identifiers`.
    """
    flags: list[Flag] = []
    for name in names:
        value = arguments.get(name)
        if isinstance(value, str):
            flags.extend(find_identifiers(value, household, argument=name))
    return flags


_EMPTY = Household()
