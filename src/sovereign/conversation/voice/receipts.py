"""The receipt under an answer, said by the product in the answer's language (DESIGN §4).

A turn's receipts (:class:`~sovereign.conversation.results.Receipt`) say what happened to
each call; the receipt the household reads says it in words: a headline (everything
stayed on this device; what left it, and where to; what may have left it; nothing left
it, and why) and one line per call. Its sentences come from the conversation's catalog
(context: their key), so an Italian answer has an Italian receipt; each line starts with
the capability's household name in that language (:data:`CAPABILITY_NAMES`; a name the
product does not know, such as one a model made up, is shown as it is) and a host is
shown as the address names it.

Every distinction is kept, since the receipt is the household's account of what left
the device: a call that ran was sent; a call that failed after its request may have
gone out "may have left"; one that failed before anything was sent (``sent: false``)
left nothing, with the reason; a refusal says why when the reason is known; a denied,
expired or refused call sent nothing. On the wire it is the answer's ``receipt``
(``{"headline", "lines", "stayed_local", "label"}``, ``label`` being what the Console
calls it, :mod:`.around`); docs/decisions/answers-rendered-by-the-product.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .around import NAMES, say_name
from .catalogs import Voice

if TYPE_CHECKING:
    from ..results import Receipt

RECEIPT_SENTENCES = {
    "receipt_stayed": "Stayed on this device.",
    "receipt_left": "Left this device: {destinations}.",
    "receipt_may_have_left": "May have left this device: {destinations}.",
    "receipt_nothing_left": "Nothing left this device: {reasons}.",
    "receipt_ran_here": "{capability}: ran on this device",
    "receipt_here_failed": "{capability}: failed",
    "receipt_here_denied": "{capability}: denied",
    "receipt_here_expired": "{capability}: expired",
    "receipt_here_refused": "{capability}: refused",
    "receipt_sent": "{capability}: sent to {destination}",
    "receipt_tried": "{capability}: tried to reach {destination} and failed",
    "receipt_not_sent": "{capability}: failed before anything left this device ({why})",
    "receipt_refused_because": "{capability}: refused ({reason}); nothing was sent",
    "receipt_refused": "{capability}: refused; nothing was sent",
    "receipt_denied": "{capability}: denied by you; nothing was sent",
    "receipt_expired": "{capability}: approval expired; nothing was sent",
    "receipt_to_search_engines": "the search engines",
    "receipt_to_web_server": "a web server",
    "receipt_to_outside": "a service outside this device",
    "receipt_search_service_down": "the device's search service is not running",
    "receipt_connection_failed": "the connection failed before anything was sent",
}
"""The receipt's sentences and the words they are filled with, by what they are for
(English source text; the key is the catalog context): the headlines, the line of a call
that ran here (``receipt_ran_here``) or did not (``receipt_here_<outcome>``), the lines of
an external call, where it went (``receipt_to_…``: a web.fetch's host otherwise) and why
nothing left when it failed before sending."""

CAPABILITY_NAMES = {
    "system.health": "This device's health",
    "web.search": "Web search",
    "web.fetch": "Reading a web page",
    "pihole.summary": "Ad blocker (Pi-hole)",
    "home_assistant.list_entities": "Device list (Home Assistant)",
    "home_assistant.get_state": "Device state (Home Assistant)",
}
"""What the household calls each capability at the start of a receipt's line, by its
identifier (context ``capability_name:<identifier>``)."""

REFUSAL_REASONS = {
    "POLICY_DISABLED": "switched off in the web search setting",
    "FETCH_TARGET_REJECTED": "that address is not allowed",
    "INVALID_ARGUMENTS": "the request was malformed",
    "INVOCATION_LIMIT_REACHED": "too many calls in one answer",
    "UNKNOWN_CAPABILITY": "no such capability",
    "INVALID_CONFIRMATION": "the approval was not valid",
    "NOT_ASKED": "not asked, since you denied the request before it",
    "AUDIT_UNAVAILABLE": "the device could not keep its record of it",
    "SITE_NOT_ALLOWED": "the household's site list does not allow that site",
}
"""Why an external call was refused, by the receipt's ``error_code`` (context
``receipt_refusal:<code>``); a refusal with another code says only that it was refused."""

_NOT_SENT_WHY = {"web.search": "receipt_search_service_down"}
"""Why a call failed before anything left (``sent: false``), by capability; otherwise
``receipt_connection_failed``."""
_LEFT = ("executed", "failed")
_SCHEMES = {"http": 80, "https": 443}


@dataclass(frozen=True)
class ReceiptSaid:
    """The receipt in words: ``headline``, one line per receipt, ``stayed_local``
    (no external call ran or tried to run) and ``label``, what the receipt is called
    (the Console's accessible name for it)."""

    headline: str
    lines: list[str]
    stayed_local: bool
    label: str = NAMES["receipt_label"]

    def to_wire(self) -> dict[str, Any]:
        """``{"headline", "lines", "stayed_local", "label"}``."""
        return {
            "headline": self.headline,
            "lines": self.lines,
            "stayed_local": self.stayed_local,
            "label": self.label,
        }


def say_receipt(receipts: Iterable[Receipt], voice: Voice) -> ReceiptSaid:
    """``receipts`` in words, in ``voice``'s language.

    The headline is "Stayed on this device.", "Left this device: <destinations>." when a
    call ran, "May have left this device: <destinations>." when every call that tried
    failed (a failure cannot tell whether the request got out before it broke), or
    "Nothing left this device: <why>." when the only external calls failed before
    anything was sent. Each destination and reason is named once, in order.
    """
    destinations: list[str] = []
    not_sent: list[str] = []
    any_ran = False
    lines = []
    for receipt in receipts:
        name = receipt.capability
        called = capability_name(name, voice)
        if receipt.locality != "external":
            key = "receipt_ran_here" if receipt.outcome == "executed" else None
            lines.append(_say(voice, key or f"receipt_here_{receipt.outcome}", capability=called))
        elif receipt.outcome == "failed" and receipt.sent is False:
            why = _say(voice, _NOT_SENT_WHY.get(name, "receipt_connection_failed"))
            not_sent.extend([why] if why not in not_sent else [])
            lines.append(_say(voice, "receipt_not_sent", capability=called, why=why))
        elif receipt.outcome == "refused" and receipt.error_code in REFUSAL_REASONS:
            code = receipt.error_code
            reason = voice.say(f"receipt_refusal:{code}", REFUSAL_REASONS[code])
            lines.append(_say(voice, "receipt_refused_because", capability=called, reason=reason))
        elif receipt.outcome not in _LEFT:
            lines.append(_say(voice, f"receipt_{receipt.outcome}", capability=called))
        else:
            where = _destination(receipt, voice)
            destinations.extend([where] if where not in destinations else [])
            any_ran = any_ran or receipt.outcome == "executed"
            key = "receipt_sent" if receipt.outcome == "executed" else "receipt_tried"
            lines.append(_say(voice, key, capability=called, destination=where))
    if destinations:
        key = "receipt_left" if any_ran else "receipt_may_have_left"
        headline = _say(voice, key, destinations=", ".join(destinations))
    elif not_sent:
        headline = _say(voice, "receipt_nothing_left", reasons="; ".join(not_sent))
    else:
        headline = _say(voice, "receipt_stayed")
    return ReceiptSaid(headline, lines, not destinations, say_name("receipt_label", voice))


def receipts_wire(receipts: Iterable[Receipt], voice: Voice) -> list[dict[str, Any]]:
    """``receipts`` as on the wire, each with ``"name"``, its capability's household name
    in ``voice``'s language, when the product has one (a client that composes a receipt
    of its own starts its line with it, as the said receipt does)."""
    wire = []
    for receipt in receipts:
        entry = receipt.to_wire()
        if receipt.capability in CAPABILITY_NAMES:
            entry["name"] = capability_name(receipt.capability, voice)
        wire.append(entry)
    return wire


def capability_name(capability: str, voice: Voice) -> str:
    """The household's name for ``capability`` in ``voice``'s language, or the identifier
    itself when the product has no name for it."""
    english = CAPABILITY_NAMES.get(capability)
    return voice.say(f"capability_name:{capability}", english) if english else capability


def host_of(url: object) -> str | None:
    """The ``host[:port]`` an http(s) ``url`` connects to (lower case, no default port),
    or ``None`` for anything else."""
    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in _SCHEMES or not host:
        return None
    shown = f"[{host}]" if ":" in host else host
    return shown if port in (None, _SCHEMES[parts.scheme.lower()]) else f"{shown}:{port}"


def _destination(receipt: Receipt, voice: Voice) -> str:
    """Where an external call sends data: the search engines for web.search, the host a
    web.fetch connects to (a web server when unknown), else a service outside."""
    if receipt.capability == "web.search":
        return _say(voice, "receipt_to_search_engines")
    if receipt.capability == "web.fetch":
        return receipt.host or _say(voice, "receipt_to_web_server")
    return _say(voice, "receipt_to_outside")


def _say(voice: Voice, key: str, **values: object) -> str:
    return voice.say(key, RECEIPT_SENTENCES[key], **values)
